import { mkdtempSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fail, ok, type Outcome } from '../../../shared/protocol'

/*
 * Settings that would make a git process run a program, neutralised for every git Retrace starts
 * (issue 23 item 1; the rule itself is written at the top of runner.ts). Two kinds:
 *
 * - Fixed keys, the same for every run: hooks, fsmonitor, pager, editors, askpass, credential
 *   helpers, ssh and proxy commands, signing programs, the external diff, transports.
 * - Keys named after a driver (`filter.<name>.clean`, `diff.<name>.textconv`…): which names exist
 *   is read from the configuration as data — `git config --list --show-origin -z`, which runs
 *   nothing — from every scope and every file it includes, and each is overridden.
 *
 * An empty program means "none" for a filter (git then passes the bytes through unchanged, and
 * `required=false` lets it). For a textconv, a diff or merge driver and `diff.external` git would
 * try to run the empty command and fail: a verb that forgets `--no-textconv`/`--no-ext-diff` fails
 * loudly instead of running the repository's program.
 */

/** Every override shows in `git config --list` as from the command line; if it does not, git ignored them. */
const SENTINEL_KEY = 'retrace.neutralised'

let noHooks: string | undefined
/**
 * A hooks folder with nothing in it. On POSIX `/dev/null` is not a folder, so every hook lookup
 * finds nothing without any file of ours; Windows has no such path, so an empty folder made once.
 */
function noHooksPath(): string {
  if (process.platform !== 'win32') return '/dev/null'
  noHooks ??= mkdtempSync(join(tmpdir(), 'retrace-no-hooks-'))
  return noHooks
}

function fixedOverrides(): Array<[string, string]> {
  return [
    [SENTINEL_KEY, 'true'],
    // Hooks from any scope: the repository's own `.git/hooks` and the person's global
    // `core.hooksPath` alike (hooks are for the person's own git commands, not for Retrace's reads).
    ['core.hooksPath', noHooksPath()],
    ['core.fsmonitor', 'false'],
    ['core.pager', 'cat'],
    ['core.editor', ':'],
    ['sequence.editor', ':'],
    ['core.askPass', ''],
    // An empty helper empties the list of helpers configured before it (every file scope).
    ['credential.helper', ''],
    ['core.sshCommand', ''],
    ['core.gitProxy', ''],
    ['core.alternateRefsCommand', ''],
    ['diff.external', ''],
    ['gpg.program', ''],
    ['gpg.openpgp.program', ''],
    ['gpg.x509.program', ''],
    ['gpg.ssh.program', ''],
    ['gpg.ssh.defaultKeyCommand', ''],
    ['log.showSignature', 'false'],
    ['protocol.allow', 'never'],
    ['submodule.recurse', 'false'],
    // A submodule's status runs in a git process that reads the submodule's own config, whose
    // driver names we never listed: verbs look only at the commit a submodule is at.
    ['diff.ignoreSubmodules', 'dirty'],
    ['status.submoduleSummary', 'false'],
    // Automatic maintenance would write into the person's repository.
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
  ]
}

/** Per configuration section with named subsections: the keys that name a program, and their neutral value. */
const DRIVER_KEYS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  filter: [
    ['clean', ''],
    ['smudge', ''],
    ['process', ''],
    ['required', 'false'],
  ],
  diff: [
    ['textconv', ''],
    ['command', ''],
  ],
  merge: [['driver', '']],
  credential: [['helper', '']],
  remote: [
    ['uploadpack', 'git-upload-pack'],
    ['receivepack', 'git-receive-pack'],
  ],
}

/** Bounds on a configuration read as data: its listing, the files it includes, the overrides it yields. */
export const CONFIG_LIMITS = { listingBytes: 4 * 1024 * 1024, includedFiles: 32, overrides: 2000, timeoutMs: 10_000 }

export interface ConfigEntry {
  /** `file:<path>` (relative to the directory git ran in), `command line:`, `blob:…`. */
  readonly origin: string
  readonly key: string
  readonly value: string | null
}

/** `git config --list -z --show-origin`: `origin NUL key [LF value] NUL`, repeated. */
export function parseConfigListing(bytes: Buffer): ConfigEntry[] {
  const fields = bytes.toString('utf8').split('\0')
  const entries: ConfigEntry[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] ?? ''
    const item = fields[i + 1] ?? ''
    const newline = item.indexOf('\n')
    entries.push(
      newline < 0
        ? { origin, key: item, value: null }
        : { origin, key: item.slice(0, newline), value: item.slice(newline + 1) },
    )
  }
  return entries
}

/** The overrides that neutralise every driver the entries name (in any scope). */
export function driverOverrides(entries: readonly ConfigEntry[]): Array<[string, string]> {
  const seen = new Set<string>()
  const overrides: Array<[string, string]> = []
  for (const { key } of entries) {
    const first = key.indexOf('.')
    const last = key.lastIndexOf('.')
    if (first < 0 || last <= first) continue
    const section = key.slice(0, first).toLowerCase()
    const keys = DRIVER_KEYS[section]
    if (!keys) continue
    // Subsection names are case-sensitive and may hold anything but NUL and LF (`=` too).
    const name = key.slice(first + 1, last)
    if (seen.has(`${section}\0${name}`)) continue
    seen.add(`${section}\0${name}`)
    for (const [variable, value] of keys) overrides.push([`${section}.${name}.${variable}`, value])
  }
  return overrides
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path
}

/** Absolute path of a `file:` origin (git prints it relative to the directory it ran in). */
function originFile(origin: string, cwd: string): string | null {
  if (!origin.startsWith('file:')) return null
  const path = origin.slice('file:'.length)
  return isAbsolute(path) ? path : resolve(cwd, path)
}

/**
 * Files named by `include.path` and `includeIf.<condition>.path`, whether git included them this
 * time or not: a condition can start to hold without any file changing (`onbranch:` after a
 * checkout), so the drivers of every file the configuration could include are neutralised too.
 */
function includeTargets(entries: readonly ConfigEntry[], cwd: string): string[] {
  const targets: string[] = []
  for (const entry of entries) {
    const key = entry.key.toLowerCase()
    if (entry.value === null || entry.value === '') continue
    if (key !== 'include.path' && !(key.startsWith('includeif.') && key.endsWith('.path'))) continue
    const from = originFile(entry.origin, cwd)
    const path = expandHome(entry.value)
    targets.push(isAbsolute(path) ? path : resolve(from ? dirname(from) : cwd, path))
  }
  return targets
}

/** Where the person's global and system configuration would be, existing or not (one appearing is a change). */
function defaultConfigFiles(): string[] {
  const env = process.env
  const xdg = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return [
    env.GIT_CONFIG_GLOBAL ?? join(homedir(), '.gitconfig'),
    join(xdg, 'git', 'config'),
    env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig',
  ]
}

async function signature(path: string): Promise<string> {
  try {
    const info = await stat(path, { bigint: true })
    // A git folder's own times change with every lock file in it; only what it is matters here
    // (a `.git` folder replaced by a gitfile pointing elsewhere is a change).
    if (info.isDirectory()) return 'folder'
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
  } catch {
    return 'absent'
  }
}

async function signatures(paths: Iterable<string>): Promise<Map<string, string>> {
  const list = [...new Set(paths)]
  const values = await Promise.all(list.map(signature))
  return new Map(list.map((path, i) => [path, values[i] ?? 'absent']))
}

/**
 * Runs `git <location> config <args>` (nothing else) with the fixed overrides in its environment
 * and answers its standard output.
 */
export type ConfigReader = (
  args: readonly string[],
  fixed: ReadonlyArray<readonly [string, string]>,
) => Promise<Outcome<Buffer>>

/** Where a git run looks for its repository: `-C <root>`, and `--git-dir`/`--work-tree` when given. */
export interface GitLocation {
  readonly root: string
  readonly gitDir?: string
}

interface Neutralised {
  readonly overrides: Array<[string, string]>
  /** Every file the overrides were read from or could be read from, with its stat signature before the read. */
  readonly files: Map<string, string>
}

const KEPT_LOCATIONS = 64
const cache = new Map<string, Promise<Outcome<Neutralised>>>()

/**
 * The overrides for one git run at `location`. The configuration is data and cached per location;
 * every run re-stats the files it came from (a few `stat` calls, no process), and a changed,
 * appeared or vanished file reads it again before git runs.
 */
export async function neutralisingConfig(
  location: GitLocation,
  read: ConfigReader,
): Promise<Outcome<Array<[string, string]>>> {
  const key = `${location.root}\0${location.gitDir ?? ''}`
  const cached = cache.get(key)
  if (cached) {
    const known = await cached
    if (known.kind === 'ok' && (await unchanged(known.result.files))) return ok(known.result.overrides)
    if (cache.get(key) === cached) cache.delete(key)
  }
  let pending = cache.get(key)
  if (!pending) {
    pending = readNeutralised(location, read, cached ? await cached : undefined)
    cache.set(key, pending)
    while (cache.size > KEPT_LOCATIONS) cache.delete(cache.keys().next().value as string)
  }
  const fresh = await pending
  // A failure is not remembered: the next run reads again.
  if (fresh.kind === 'error' && cache.get(key) === pending) cache.delete(key)
  return fresh.kind === 'ok' ? ok(fresh.result.overrides) : fresh
}

async function unchanged(files: Map<string, string>): Promise<boolean> {
  const now = await signatures(files.keys())
  for (const [path, before] of files) if (now.get(path) !== before) return false
  return true
}

/**
 * Reads until the set of files the configuration comes from is stable: each round stats the files
 * known so far *before* reading, so a file changed during a read is seen as changed on the next run.
 */
async function readNeutralised(
  location: GitLocation,
  read: ConfigReader,
  previous: Outcome<Neutralised> | undefined,
): Promise<Outcome<Neutralised>> {
  const known = new Set<string>([
    ...defaultConfigFiles(),
    join(location.root, '.git'),
    ...(location.gitDir !== undefined ? [join(location.gitDir, 'config')] : [join(location.root, '.git', 'config')]),
    ...(previous?.kind === 'ok' ? previous.result.files.keys() : []),
  ])
  for (let round = 0; round < 4; round++) {
    const before = await signatures(known)
    const entries = await readAll(location, read)
    if (entries.kind === 'error') return entries
    const files = new Set<string>()
    for (const entry of entries.result.entries) {
      const file = originFile(entry.origin, location.root)
      if (file) files.add(file)
    }
    for (const file of entries.result.includes) files.add(file)
    const grown = [...files].filter((file) => !known.has(file))
    if (grown.length === 0) {
      const overrides = [...fixedOverrides(), ...driverOverrides(entries.result.entries)]
      if (overrides.length > CONFIG_LIMITS.overrides) {
        return fail('UNAVAILABLE', `The git configuration names more than ${CONFIG_LIMITS.overrides} drivers.`, {
          limit: CONFIG_LIMITS.overrides,
          reason: 'config-too-large',
        })
      }
      return ok({ overrides, files: before })
    }
    for (const file of grown) known.add(file)
  }
  return fail('UNAVAILABLE', 'The git configuration kept changing while Retrace read it.', {
    reason: 'config-unstable',
  })
}

/** The whole configuration of the location, plus every file it could include, read without running anything. */
async function readAll(
  location: GitLocation,
  read: ConfigReader,
): Promise<Outcome<{ entries: ConfigEntry[]; includes: string[] }>> {
  const listed = await read(['--list', '-z', '--show-origin'], fixedOverrides())
  if (listed.kind === 'error') return listed
  const entries = parseConfigListing(listed.result)
  if (!entries.some((entry) => entry.key === SENTINEL_KEY && entry.origin.startsWith('command line'))) {
    return fail('UNAVAILABLE', 'This git is too old for Retrace: it needs git 2.31 or newer.', {
      reason: 'git-too-old',
    })
  }
  const listedFiles = new Set(entries.map((entry) => originFile(entry.origin, location.root)))
  const includes: string[] = []
  const queue = includeTargets(entries, location.root)
  while (queue.length > 0) {
    const file = queue.shift() as string
    if (includes.includes(file)) continue
    includes.push(file)
    if (includes.length > CONFIG_LIMITS.includedFiles) {
      return fail('UNAVAILABLE', `The git configuration includes more than ${CONFIG_LIMITS.includedFiles} files.`, {
        limit: CONFIG_LIMITS.includedFiles,
        reason: 'config-too-large',
      })
    }
    if (listedFiles.has(file) || (await signature(file)) === 'absent') continue
    const more = await read(['--list', '-z', '--show-origin', '--includes', '--file', file], fixedOverrides())
    // An unreadable file is one git cannot include either.
    if (more.kind === 'error') continue
    const found = parseConfigListing(more.result)
    entries.push(...found)
    for (const entry of found) listedFiles.add(originFile(entry.origin, location.root))
    queue.push(...includeTargets(found, location.root))
  }
  return ok({ entries, includes })
}
