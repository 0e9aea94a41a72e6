import { createHash, randomUUID } from 'node:crypto'
import { existsSync, lstatSync } from 'node:fs'
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fail, failureReason, ok, type Outcome } from '../../../shared/protocol'
import { runGit, type GitOptions, type GitResult } from '../git'
import { isInside, readSmallRegularFile } from '../platform'
import { JOURNAL_TEMP_PREFIX } from '../journal'

/** One project worktree's shadow repository. */
export interface Shadow {
  readonly projectId: string
  /** The real path of the project folder: the shadow's work tree. */
  readonly worktree: string
  /** `<data>/snapshot/<project_id>/<hash(worktree)>`. */
  readonly gitDir: string
  readonly dataDir: string
}

/** The user's repository, read (never written) for its object store, index and ignore rules. */
export interface UserRepo {
  readonly commonDir: string
  readonly indexFile: string
  readonly objectFormat: 'sha1' | 'sha256'
}

interface ShadowMeta {
  readonly version: 1
  readonly worktree: string
  readonly seeded_at_ms: number
  readonly reseeds: number
  /** The user's object store as last verified complete for our index. */
  readonly odb_fingerprint: string | null
}

const META = 'retrace.json'

export function shadowFor(dataDir: string, projectId: string, worktree: string): Shadow {
  const hash = createHash('sha256').update(worktree).digest('hex').slice(0, 16)
  return { projectId, worktree, gitDir: join(dataDir, 'snapshot', projectId, hash), dataDir }
}

/**
 * git against the shadow repository: its own git dir and index, the project folder as work tree,
 * pathspecs taken literally (a file named `*` is that file, not every file).
 */
export function shadowGit(
  shadow: Shadow,
  args: readonly string[],
  verb: string,
  options: Omit<GitOptions, 'gitDir' | 'workTree'> & { gitDir?: string } = {},
): Promise<Outcome<GitResult>> {
  return runGit(shadow.worktree, args, verb, {
    ...options,
    gitDir: options.gitDir ?? shadow.gitDir,
    workTree: shadow.worktree,
    env: { GIT_LITERAL_PATHSPECS: '1', ...options.env },
  })
}

/** Null-separated git output as strings (a trailing separator yields no empty entry). */
export function splitNul(buffer: Buffer): string[] {
  const text = buffer.toString('utf8')
  if (text === '') return []
  const parts = text.split('\0')
  if (parts[parts.length - 1] === '') parts.pop()
  return parts
}

/**
 * Spec 06: only a git project takes snapshots, and its folder must be the top of the repository
 * (the shadow index is seeded from the user's, whose paths are relative to that top).
 */
export async function probeUserRepo(worktree: string): Promise<Outcome<UserRepo>> {
  if (!existsSync(join(worktree, '.git'))) {
    return fail('UNAVAILABLE', notGitMessage, { reason: 'not-git' })
  }
  const out = await runGit(
    worktree,
    [
      'rev-parse',
      '--path-format=absolute',
      '--show-toplevel',
      '--git-common-dir',
      '--git-path',
      'index',
      '--show-object-format',
    ],
    'rev-parse',
  )
  if (out.kind === 'error') {
    const reason = failureReason(out.error) === 'no-git' ? 'no-git' : 'not-git'
    return fail('UNAVAILABLE', reason === 'no-git' ? out.error.message : notGitMessage, { reason })
  }
  const [top = '', commonDir = '', indexFile = '', format = 'sha1'] = out.result.stdout.toString('utf8').split('\n')
  if (top !== worktree) {
    return fail(
      'UNAVAILABLE',
      'This folder is inside a git repository but is not its top folder; step snapshots need the repository root opened as the project.',
      { reason: 'not-git' },
    )
  }
  return ok({ commonDir, indexFile, objectFormat: format === 'sha256' ? 'sha256' : 'sha1' })
}

const notGitMessage =
  'This folder is not a git repository, so Retrace takes no step snapshots: files changed by commands are not recorded.'

/** Settings of spec 06 "first init", and what keeps the shadow byte-exact and quiet. */
function settings(large: boolean): Array<[string, string]> {
  const base: Array<[string, string]> = [
    ['core.autocrlf', 'false'],
    ['core.fsmonitor', 'false'],
    ['core.longpaths', 'true'],
    ['core.symlinks', 'true'],
    ['core.quotepath', 'false'],
    ['core.safecrlf', 'false'],
    // Maintenance is ours, off the hot path; nothing else may start a gc mid-snapshot.
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['core.preloadIndex', 'true'],
  ]
  if (large) {
    base.push(
      ['feature.manyFiles', 'true'],
      ['index.version', '4'],
      ['index.threads', 'true'],
      ['core.untrackedCache', 'true'],
    )
  }
  return base
}

/**
 * Snapshots hold raw bytes: no clean/smudge filter, end-of-line conversion or encoding may run in
 * the shadow (an LFS clean filter would otherwise store a pointer where the file was).
 */
const RAW_ATTRIBUTES = '* -text -eol -filter -ident -working-tree-encoding\n'

/** Indexes above this size (about 20 000 entries) get the large-repository settings. */
const LARGE_INDEX_BYTES = 2 * 1024 * 1024

/**
 * Creates and seeds the shadow repository if it does not exist (the caller holds the shadow
 * lock). Built in a temp folder and renamed into place, so a crash never leaves half a repository.
 */
export async function ensureShadow(shadow: Shadow, user: UserRepo): Promise<Outcome<{ created: boolean }>> {
  if (existsSync(join(shadow.gitDir, META))) return ok({ created: false })
  await mkdir(join(shadow.gitDir, '..'), { recursive: true, mode: 0o700 })
  const temp = `${shadow.gitDir}.init-${randomUUID().slice(0, 8)}`
  try {
    const init = await shadowGit(
      shadow,
      ['init', '--quiet', '--template=', `--object-format=${user.objectFormat}`],
      'init',
      { gitDir: temp },
    )
    if (init.kind === 'error') return init
    const indexSize = await stat(user.indexFile).then(
      (s) => s.size,
      () => 0,
    )
    for (const [key, value] of settings(indexSize > LARGE_INDEX_BYTES)) {
      const set = await shadowGit(shadow, ['config', key, value], 'config', { gitDir: temp })
      if (set.kind === 'error') return set
    }
    await mkdir(join(temp, 'info'), { recursive: true })
    await writeFile(join(temp, 'info', 'attributes'), RAW_ATTRIBUTES)
    await mkdir(join(temp, 'objects', 'info'), { recursive: true })
    await writeFile(join(temp, 'objects', 'info', 'alternates'), `${join(user.commonDir, 'objects')}\n`)
    await mirrorExcludesFile(shadow, temp)
    await syncExcludes(shadow, user, temp)
    const seeded = await seedIndex(shadow, user, temp)
    if (seeded.kind === 'error') return seeded
    await writeMeta(temp, {
      version: 1,
      worktree: shadow.worktree,
      seeded_at_ms: Date.now(),
      reseeds: 0,
      odb_fingerprint: await odbFingerprint(user),
    })
    try {
      await rename(temp, shadow.gitDir)
    } catch (error) {
      // Left by an init that crashed before writing its metadata: replace it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw error
      await rm(shadow.gitDir, { recursive: true, force: true })
      await rename(temp, shadow.gitDir)
    }
    return ok({ created: true })
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}

/**
 * Spec 06 seeding: a copy of the user's index, so the first snapshot reuses git's stat data and
 * the user's objects (through alternates) instead of hashing the whole tree. Entries git would
 * convert on their way into the index (filters, CRLF) are dropped: their blobs are not the bytes
 * on disk, and the shadow stores bytes. Unmerged entries are dropped too (they would stop
 * write-tree); both are then captured from the worktree like any untracked file.
 */
async function seedIndex(shadow: Shadow, user: UserRepo, gitDir: string): Promise<Outcome<void>> {
  const target = join(gitDir, 'index')
  await rm(target, { force: true })
  if (!existsSync(user.indexFile)) return ok(undefined)
  await copyFile(user.indexFile, target)
  const risky = await convertedPaths(shadow.worktree)
  const unmerged = await shadowGit(shadow, ['ls-files', '-u', '-z'], 'ls-files', { gitDir })
  if (risky === 'all' || unmerged.kind === 'error') {
    // A split or otherwise unreadable index copy, or content that is converted everywhere.
    await rm(target, { force: true })
    return ok(undefined)
  }
  const drop = new Set(risky)
  for (const line of splitNul(unmerged.result.stdout)) {
    const tab = line.indexOf('\t')
    if (tab >= 0) drop.add(line.slice(tab + 1))
  }
  if (drop.size > 0) {
    const removed = await shadowGit(shadow, ['update-index', '--force-remove', '-z', '--stdin'], 'update-index', {
      gitDir,
      stdin: `${[...drop].join('\0')}\0`,
    })
    if (removed.kind === 'error') {
      await rm(target, { force: true })
      return ok(undefined)
    }
  }
  // Entries the user's git wrote in the same second as their file are "racily clean" and would be
  // re-read on every snapshot until refreshed once.
  const refreshed = await shadowGit(shadow, ['update-index', '-q', '--refresh'], 'update-index', {
    gitDir,
    acceptExitCodes: [1],
  })
  if (refreshed.kind === 'error') await rm(target, { force: true })
  return ok(undefined)
}

/** Paths whose index blob is not their bytes on disk, per the user's attributes ('all' for core.autocrlf=true). */
async function convertedPaths(worktree: string): Promise<string[] | 'all'> {
  const config = async (key: string) => {
    const out = await runGit(worktree, ['config', '--get', key], 'config', { acceptExitCodes: [1] })
    return out.kind === 'ok' ? out.result.stdout.toString('utf8').trim().toLowerCase() : ''
  }
  if ((await config('core.autocrlf')) === 'true' || (await config('core.eol')) === 'crlf') return 'all'
  const attributeFiles = await runGit(
    worktree,
    ['ls-files', '-z', '--', '.gitattributes', '*/.gitattributes'],
    'ls-files',
  )
  const globalFile =
    (await config('core.attributesfile')) ||
    join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'git', 'attributes')
  const hasAttributes =
    (attributeFiles.kind === 'ok' && attributeFiles.result.stdout.length > 0) ||
    existsSync(join(worktree, '.git', 'info', 'attributes')) ||
    existsSync(globalFile.replace(/^~(?=\/)/, homedir()))
  if (!hasAttributes) return []
  const listed = await runGit(worktree, ['ls-files', '-z'], 'ls-files')
  if (listed.kind === 'error') return 'all'
  const checked = await runGit(
    worktree,
    ['check-attr', '--stdin', '-z', 'filter', 'eol', 'ident', 'working-tree-encoding'],
    'check-attr',
    { stdin: listed.result.stdout, timeoutMs: 120_000 },
  )
  if (checked.kind === 'error') return 'all'
  const fields = splitNul(checked.result.stdout)
  const risky = new Set<string>()
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [path = '', attribute = '', value = ''] = [fields[i], fields[i + 1], fields[i + 2]]
    const converts =
      attribute === 'eol'
        ? value === 'crlf'
        : attribute === 'ident'
          ? value === 'set'
          : value !== 'unspecified' && value !== 'unset'
    if (converts) risky.add(path)
  }
  return [...risky]
}

/** The user's repository-local `core.excludesFile` applies to the shadow too (the global one already does). */
async function mirrorExcludesFile(shadow: Shadow, gitDir: string): Promise<void> {
  const local = await runGit(
    shadow.worktree,
    ['config', '--local', '--type=path', '--get', 'core.excludesFile'],
    'config',
    {
      acceptExitCodes: [1],
    },
  )
  const value = local.kind === 'ok' ? local.result.stdout.toString('utf8').trim() : ''
  if (value !== '') await shadowGit(shadow, ['config', 'core.excludesFile', value], 'config', { gitDir })
}

const EXCLUDES_HEADER = '# Written by Retrace: the user repository info/exclude, then what snapshots never hold.\n'

/**
 * The shadow's `info/exclude` = the user's `info/exclude` (which a different git dir would not
 * read) + Retrace's own temp files + its data folder when that lies inside the project.
 */
export async function syncExcludes(shadow: Shadow, user: UserRepo, gitDir = shadow.gitDir): Promise<void> {
  // Never a FIFO or a device a hostile repository put there (issue 23 review); over 1 MiB it is no
  // real exclude file (search and the project walk skip it the same way).
  const users =
    readSmallRegularFile(join(user.commonDir, 'info', 'exclude'), { maxBytes: 1024 * 1024, followLinks: true }) ?? ''
  const lines = [EXCLUDES_HEADER, users, users.endsWith('\n') || users === '' ? '' : '\n', `${JOURNAL_TEMP_PREFIX}*\n`]
  if (isInside(shadow.worktree, shadow.dataDir) && shadow.dataDir !== shadow.worktree) {
    lines.push(`/${escapePattern(relative(shadow.worktree, shadow.dataDir).split(sep).join('/'))}/\n`)
  }
  const wanted = lines.join('')
  const file = join(gitDir, 'info', 'exclude')
  const current = await readFile(file, 'utf8').catch(() => null)
  if (current !== wanted) {
    await mkdir(join(gitDir, 'info'), { recursive: true })
    await writeFile(file, wanted)
  }
}

function escapePattern(path: string): string {
  return path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')
}

/**
 * The user's object store changes identity when it is repacked or pruned (gc rewrites the pack
 * folder); then objects our index borrowed may be gone and are checked before being relied on.
 */
export async function odbFingerprint(user: UserRepo): Promise<string> {
  const parts: string[] = []
  for (const path of [join(user.commonDir, 'objects', 'pack'), join(user.commonDir, 'objects', 'info')]) {
    try {
      const info = lstatSync(path)
      parts.push(`${info.ino}:${info.mtimeMs}`)
    } catch {
      parts.push('-')
    }
  }
  return parts.join('|')
}

export async function readMeta(gitDir: string): Promise<ShadowMeta | null> {
  try {
    return JSON.parse(await readFile(join(gitDir, META), 'utf8')) as ShadowMeta
  } catch {
    return null
  }
}

export async function writeMeta(gitDir: string, meta: ShadowMeta): Promise<void> {
  const temp = join(gitDir, `${META}.${randomUUID().slice(0, 8)}`)
  await writeFile(temp, JSON.stringify(meta))
  await rename(temp, join(gitDir, META))
}

/** Index entries whose objects are gone from every object store the shadow can read. */
export async function missingIndexObjects(shadow: Shadow): Promise<Outcome<string[]>> {
  const listed = await shadowGit(shadow, ['ls-files', '-s', '-z'], 'ls-files')
  if (listed.kind === 'error') return listed
  const oids = new Set<string>()
  for (const entry of splitNul(listed.result.stdout)) {
    const [mode = '', oid = ''] = entry.split(' ')
    if (mode !== '160000' && oid !== '') oids.add(oid)
  }
  if (oids.size === 0) return ok([])
  const checked = await shadowGit(shadow, ['cat-file', '--batch-check=%(objectname)'], 'cat-file', {
    stdin: `${[...oids].join('\n')}\n`,
    timeoutMs: 120_000,
  })
  if (checked.kind === 'error') return checked
  return ok(
    checked.result.stdout
      .toString('utf8')
      .split('\n')
      .filter((line) => line.endsWith(' missing'))
      .map((line) => line.slice(0, -' missing'.length)),
  )
}

/**
 * Rebuilds the shadow index from the user's current one after objects it relied on were pruned
 * (spec 06: detect, reseed, report — never fail every later snapshot). Earlier snapshot trees
 * that need the pruned objects stay unreadable and say so when used.
 */
export async function reseed(shadow: Shadow, user: UserRepo): Promise<Outcome<void>> {
  const seeded = await seedIndex(shadow, user, shadow.gitDir)
  if (seeded.kind === 'error') return seeded
  const meta = await readMeta(shadow.gitDir)
  await writeMeta(shadow.gitDir, {
    version: 1,
    worktree: shadow.worktree,
    seeded_at_ms: Date.now(),
    reseeds: (meta?.reseeds ?? 0) + 1,
    odb_fingerprint: await odbFingerprint(user),
  })
  return ok(undefined)
}
