import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs'
import { relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { isForbiddenSegment } from '../../../shared/paths'
import { isJournalTempName } from '../journal'
import { closeDir, openChain, openChild, type OpenDir } from '../project-fs'

/**
 * The one walk over a project (agent tools, project search): breadth-first, as git sees it —
 * `.gitignore` files at every level apply to their own subtree, `.git` and Retrace's data directory
 * are never entered, the journal's temp files are never listed, symlinks are listed but never
 * followed. Every folder is opened `O_DIRECTORY | O_NOFOLLOW` relative to its already-open parent
 * (or from the root), so a folder swapped for a link while we walk is skipped, never entered.
 *
 * Synchronous on purpose: callers on the main thread consume it a folder at a time between awaits;
 * the project search runs it in a worker thread, where blocking calls are the fast path.
 */
export interface WalkedEntry {
  /** Root-relative POSIX path. */
  readonly path: string
  readonly name: string
  readonly kind: 'file' | 'dir' | 'symlink'
  /** The folder holding the entry, open until the walk moves on (for an `lstat` through it). */
  readonly folder: OpenDir
}

export interface TreeWalkOptions {
  readonly root: string
  readonly dataDir: string
  /** Root-relative folder to start in ('' for the root). */
  readonly start: string
  /** Descend this many levels below `start` at most (1 = its direct children only). */
  readonly maxDepth?: number
  /** Called with every folder as it is read (the project search records each folder's version). */
  readonly onFolder?: (path: string, folder: OpenDir) => void
  /**
   * Ignore patterns relative to the root that apply below every `.gitignore` (a git work tree's
   * global excludes file and `.git/info/exclude`, lowest precedence first).
   */
  readonly outerIgnore?: string
}

/** A .gitignore larger than this is not a real ignore file; it is skipped. */
const MAX_IGNORE_BYTES = 1024 * 1024
/**
 * Sub-folders kept open while they wait in the queue (one open per folder instead of re-opening
 * the chain from the root); past this, a queued folder is re-opened from the root when its turn
 * comes, so a wide tree never exhausts file descriptors.
 */
const MAX_QUEUED_HANDLES = 256

/**
 * The ignore rules in force inside one folder: every .gitignore from the root down, each rule
 * rewritten relative to the root, in order — so, as in git, the deepest matching rule decides
 * (a nested `!keep.gen` re-includes what the root's `*.gen` excluded).
 */
interface Rules {
  readonly patterns: readonly string[]
  readonly matcher: Ignore
  /**
   * Set while every rule so far is unanchored (no `/` but a trailing one): such a rule matches a
   * name at any depth below its file, so the entry's name alone decides — and names repeat across
   * folders, so the matcher's cache answers most of them. `undefined` once a rule needs the path.
   */
  readonly byName: { readonly patterns: readonly string[]; readonly matcher: Ignore } | undefined
}

function rebase(line: string, base: string): string | undefined {
  const trimmed = line.replace(/\s+$/, '')
  if (trimmed === '' || trimmed.startsWith('#')) return undefined
  const negated = trimmed.startsWith('!')
  let pattern = negated ? trimmed.slice(1) : trimmed
  if (base !== '') {
    const anchored = pattern.replace(/\/$/, '').includes('/')
    pattern = anchored ? `${base}/${pattern.replace(/^\//, '')}` : `${base}/**/${pattern}`
  }
  return negated ? `!${pattern}` : pattern
}

/** Reads `.gitignore` inside an open folder: never through a link, never blocking on a FIFO. */
function readIgnoreFile(folder: OpenDir): string | undefined {
  let fd: number
  try {
    fd = openSync(folder.at('.gitignore'), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.size > MAX_IGNORE_BYTES) return undefined
    const buffer = Buffer.allocUnsafe(info.size)
    let total = 0
    while (total < buffer.length) {
      const n = readSync(fd, buffer, total, buffer.length - total, total)
      if (n === 0) break
      total += n
    }
    return buffer.toString('utf8', 0, total)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

function rulesFor(folder: OpenDir, base: string, parent: Rules | undefined): Rules | undefined {
  const text = readIgnoreFile(folder)
  return text === undefined ? parent : withRules(text, base, parent)
}

function withRules(text: string, base: string, parent: Rules | undefined): Rules | undefined {
  const lines = text.split(/\r?\n/)
  const own = lines.flatMap((line) => rebase(line, base) ?? [])
  if (own.length === 0) return parent
  const patterns = [...(parent?.patterns ?? []), ...own]
  const plain = lines.flatMap((line) => rebase(line, '') ?? [])
  const unanchored = plain.every((line) => !line.replace(/^!/, '').replace(/\/$/, '').includes('/'))
  const byNamePatterns = parent === undefined || parent.byName ? [...(parent?.byName?.patterns ?? []), ...plain] : []
  return {
    patterns,
    matcher: ignore({ ignorecase: false }).add(patterns),
    byName:
      unanchored && (parent === undefined || parent.byName)
        ? { patterns: byNamePatterns, matcher: ignore({ ignorecase: false }).add(byNamePatterns) }
        : undefined,
  }
}

function ignored(rules: Rules | undefined, path: string, name: string, isDir: boolean): boolean {
  if (rules === undefined) return false
  if (rules.byName) return rules.byName.matcher.ignores(isDir ? `${name}/` : name)
  return rules.matcher.ignores(isDir ? `${path}/` : path)
}

/**
 * Names never listed: `.git` (and its case/8.3 spellings), the journal's temp files. All start with
 * a dot or are `GIT~1`; testing that first spares two string checks per ordinary entry.
 */
function unlisted(name: string): boolean {
  const special = name.charCodeAt(0) === 46 || (name.length === 5 && name.charCodeAt(3) === 126)
  return special && (isForbiddenSegment(name) || isJournalTempName(name))
}

/** The data directory relative to the root, as the walk compares paths with it. */
export function dataDirPath(root: string, dataDir: string): string {
  return relative(root, dataDir).split(sep).join('/')
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * A folder's entries sorted by code units, without names that are not UTF-8: such a name cannot
 * round-trip through the protocol's string paths (the listing leaves them out the same way).
 */
function readFolder(folder: OpenDir): Array<{ name: string; dirent: Dirent }> {
  const dirents = readdirSync(folder.self, { withFileTypes: true })
  let entries = dirents.map((dirent) => ({ name: dirent.name, dirent }))
  if (entries.some((entry) => entry.name.includes('\uFFFD'))) {
    const raw = readdirSync(folder.self, { withFileTypes: true, encoding: 'buffer' })
    entries = []
    for (const dirent of raw) {
      try {
        const name = utf8.decode(dirent.name)
        entries.push({ name, dirent: dirent as unknown as Dirent })
      } catch {
        // not UTF-8: left out
      }
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

interface Queued {
  readonly path: string
  readonly depth: number
  /** The rules of its parent; its own `.gitignore` (if it lists one) is added when it is read. */
  readonly rules: Rules | undefined
  /** Already open (from its parent), or undefined to be opened from the root. */
  readonly handle: OpenDir | undefined
}

/**
 * Yields every entry below `start` breadth-first (each folder's children sorted by name). The
 * caller may stop early (`break`/`return`); open folders are closed either way.
 */
export function* walkTree(options: TreeWalkOptions): Generator<WalkedEntry, void, undefined> {
  const dataRel = dataDirPath(options.root, options.dataDir)
  const queue: Queued[] = []
  let queuedHandles = 0
  try {
    const segments = options.start === '' ? [] : options.start.split('/')
    // Rules from the root down to the start folder apply inside it too.
    const chain = openChain(options.root, segments)
    if (chain.kind === 'failed') return
    if (chain.chain.missing.length > 0) {
      chain.chain.close()
      return
    }
    let startRules = options.outerIgnore === undefined ? undefined : withRules(options.outerIgnore, '', undefined)
    chain.chain.dirs.slice(0, -1).forEach((dir, i) => {
      startRules = rulesFor(dir, segments.slice(0, i).join('/'), startRules)
    })
    // The start folder stays open for the walk; the folders above it close now.
    const startHandle = chain.chain.deepest
    chain.chain.dirs.slice(0, -1).forEach(closeDir)
    queue.push({ path: options.start, depth: 0, rules: startRules, handle: startHandle })
    queuedHandles += 1

    while (queue.length > 0) {
      const next = queue.shift() as Queued
      let folder: OpenDir | undefined = next.handle
      if (folder) {
        queuedHandles -= 1
      } else {
        const walked = openChain(options.root, next.path === '' ? [] : next.path.split('/'))
        if (walked.kind === 'failed') continue
        if (walked.chain.missing.length > 0) {
          walked.chain.close()
          continue
        }
        folder = walked.chain.deepest
        walked.chain.dirs.slice(0, -1).forEach(closeDir)
      }
      try {
        options.onFolder?.(next.path, folder)
        let children: Array<{ name: string; dirent: Dirent }>
        try {
          children = readFolder(folder)
        } catch {
          continue
        }
        // Only a folder that lists a .gitignore gets its own rules (no failed open per folder).
        const rules = children.some((child) => child.name === '.gitignore')
          ? rulesFor(folder, next.path, next.rules)
          : next.rules
        const descend = options.maxDepth === undefined || next.depth + 1 < options.maxDepth
        for (const { name, dirent } of children) {
          const path = next.path === '' ? name : `${next.path}/${name}`
          if (unlisted(name) || path === dataRel) continue
          const isDir = dirent.isDirectory()
          if (ignored(rules, path, name, isDir)) continue
          yield { path, name, kind: dirent.isSymbolicLink() ? 'symlink' : isDir ? 'dir' : 'file', folder }
          if (isDir && descend) {
            let handle: OpenDir | undefined
            if (queuedHandles < MAX_QUEUED_HANDLES) {
              const opened = openChild(folder, name)
              if (opened.kind !== 'ok') continue
              handle = opened.dir
              queuedHandles += 1
            }
            queue.push({ path, depth: next.depth + 1, rules, handle })
          }
        }
      } finally {
        closeDir(folder)
      }
    }
  } finally {
    for (const queued of queue) if (queued.handle) closeDir(queued.handle)
  }
}

export type WalkedKind = WalkedEntry['kind']

/**
 * For a path list that did not come from the walk (git's): the index of the first segment of `path`
 * the walk would never list or enter (`.git`, a journal temp name, the data directory, an empty
 * one, or one holding U+FFFD — what a name that is not UTF-8 decodes to; a real U+FFFD in a name is
 * left to the walk), or -1 when there is none.
 */
export function unlistedSegment(path: string, dataRel: string): number {
  const underData =
    dataRel !== '' &&
    path.startsWith(dataRel) &&
    (path.length === dataRel.length || path.charCodeAt(dataRel.length) === 47)
  // Most paths have no segment starting with a dot, no `~`, nothing that is not UTF-8.
  if (
    !underData &&
    path !== '' &&
    path.charCodeAt(0) !== 46 &&
    !path.includes('/.') &&
    !path.includes('~') &&
    !path.includes('\uFFFD') &&
    !path.includes('//') &&
    !path.endsWith('/')
  ) {
    return -1
  }
  const segments = path.split('/')
  const dataAt = underData ? dataRel.split('/').length - 1 : -1
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i] as string
    if (i === dataAt || name === '' || name.includes('\uFFFD') || unlisted(name)) return i
  }
  return -1
}

/**
 * What the walk would list at each of a few root-relative paths — its kind, or `undefined` when the
 * walk would not list it (absent, below a link or a non-folder, ignored at any level, never
 * listed). Folders are opened from the root through their pinned parents exactly as the walk opens
 * them; a search answered from git's listing checks the entries it shows with this.
 */
export function walkVerdicts(
  options: Pick<TreeWalkOptions, 'root' | 'dataDir' | 'outerIgnore'>,
  paths: readonly string[],
): Array<WalkedKind | undefined> {
  const dataRel = dataDirPath(options.root, options.dataDir)
  const folders = new Map<string, { dir: OpenDir; rules: Rules | undefined } | null>()
  const folderAt = (path: string): { dir: OpenDir; rules: Rules | undefined } | null => {
    const known = folders.get(path)
    if (known !== undefined) return known
    let found: { dir: OpenDir; rules: Rules | undefined } | null = null
    if (path === '') {
      const chain = openChain(options.root, [])
      if (chain.kind === 'ok') {
        const outer = options.outerIgnore === undefined ? undefined : withRules(options.outerIgnore, '', undefined)
        found = { dir: chain.chain.deepest, rules: rulesFor(chain.chain.deepest, '', outer) }
      }
    } else {
      const cut = path.lastIndexOf('/')
      const parent = folderAt(cut < 0 ? '' : path.slice(0, cut))
      const name = path.slice(cut + 1)
      if (parent && !unlisted(name) && path !== dataRel && !ignored(parent.rules, path, name, true)) {
        const opened = openChild(parent.dir, name)
        if (opened.kind === 'ok') found = { dir: opened.dir, rules: rulesFor(opened.dir, path, parent.rules) }
      }
    }
    folders.set(path, found)
    return found
  }
  try {
    return paths.map((path) => {
      const cut = path.lastIndexOf('/')
      const name = path.slice(cut + 1)
      const parent = folderAt(cut < 0 ? '' : path.slice(0, cut))
      if (!parent || name === '' || unlisted(name) || path === dataRel) return undefined
      let kind: WalkedKind
      try {
        const info = lstatSync(parent.dir.at(name))
        kind = info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'dir' : 'file'
      } catch {
        return undefined
      }
      return ignored(parent.rules, path, name, kind === 'dir') ? undefined : kind
    })
  } finally {
    for (const folder of folders.values()) if (folder) closeDir(folder.dir)
  }
}
