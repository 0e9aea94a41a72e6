import { fstatSync, lstatSync, statSync } from 'node:fs'
import { createHash, randomUUID } from 'node:crypto'
import type { Prepared } from 'fuzzysort'
import { dataDirPath, unlistedSegment, walkTree } from './walk'
import { readSmallRegularFile } from '../platform'

/**
 * A project's file index for search (spec 08 "Project search"): every entry the walk sees, with
 * each folder's version and each `.gitignore`'s identity so that a later search can tell cheaply
 * (one `lstat` per folder) whether the tree it was built from still holds. Lives in the search
 * worker; pure functions so a unit test can drive it in-process.
 */
export interface ProjectIndex {
  readonly root: string
  readonly dataDir: string
  readonly paths: string[]
  readonly kinds: Array<'file' | 'dir' | 'symlink'>
  /**
   * Lower-cased paths for the cheap subsequence filter in front of the scorer; `undefined` when
   * every path is ASCII (the filter then folds case itself).
   */
  readonly lowerPaths: string[] | undefined
  /** Folder path → `ino:mtime:ctime` when it was read. */
  readonly folders: Map<string, string>
  /** `.gitignore` path → its identity when it was read (an in-place edit changes no folder). */
  readonly ignoreFiles: Map<string, string>
  /** A git work tree's other ignore files (global excludes, `info/exclude`): absolute paths. */
  readonly excludeFiles: readonly string[]
  /** Each exclude file's identity when it was read ('absent' when it did not exist). */
  readonly excludeVersions: readonly string[]
  /** Changes exactly when the list of entries changes (digest of every path and kind). */
  readonly generation: string
  /**
   * Earlier generations that named exactly these entries: a first page answered from git's listing
   * before the walk (its cursors stay valid when the walk finds the same entries).
   */
  readonly aliases: readonly string[]
  /** The walk stopped at the entry or time bound: results cover part of the project. */
  readonly truncated: boolean
  /** Prepared fuzzysort targets, made on first use and kept. */
  readonly preparedPaths: Array<Prepared | undefined>
  readonly preparedNames: Array<Prepared | undefined>
}

export interface IndexLimits {
  /** Entries indexed at most (memory bound); past it the index is `truncated`. */
  readonly maxEntries: number
  /** Wall time a walk may take (time bound); past it the index is `truncated`. */
  readonly maxWalkMs: number
}

export const DEFAULT_INDEX_LIMITS: IndexLimits = { maxEntries: 500_000, maxWalkMs: 20_000 }

function versionOf(info: { ino: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${info.ino}:${info.mtimeNs}:${info.ctimeNs}`
}

/** Exclude files larger than this are not real ignore files; they are skipped, as `.gitignore`s are. */
const MAX_EXCLUDE_BYTES = 1024 * 1024

function excludeVersion(path: string): string {
  try {
    return versionOf(statSync(path, { bigint: true }))
  } catch {
    return 'absent'
  }
}

/** The exclude files' patterns, lowest precedence first (outside the project: read as git reads them). */
export function readExcludes(paths: readonly string[]): string | undefined {
  const texts: string[] = []
  for (const path of paths) {
    // A repository names these files (`core.excludesFile`): never a FIFO or a device, whose read
    // would block or never end (issue 23 review). Absent or unreadable: git skips it too.
    const text = readSmallRegularFile(path, { maxBytes: MAX_EXCLUDE_BYTES, followLinks: true })
    if (text !== undefined) texts.push(text)
  }
  return texts.length === 0 ? undefined : texts.join('\n')
}

/**
 * The digest of a list of entries, whatever order they were found in (sorted by path), so an
 * index seeded from git's listing and one walked from the same tree get the same generation.
 */
function generationOf(paths: readonly string[], kinds: readonly string[], truncated: boolean): string {
  const keys = new Array<string>(paths.length)
  for (let i = 0; i < paths.length; i++) keys[i] = `${paths[i]}\u0000${kinds[i]}`
  keys.sort()
  const digest = createHash('sha256').update(keys.join('\u0000')).digest('hex')
  return `${digest.slice(0, 32)}${truncated ? ':partial' : ''}`
}

export function buildIndex(
  root: string,
  dataDir: string,
  limits: IndexLimits = DEFAULT_INDEX_LIMITS,
  excludeFiles: readonly string[] = [],
): ProjectIndex {
  const started = performance.now()
  // Identities first: an edit while we read is then seen by the next freshness check.
  const excludeVersions = excludeFiles.map(excludeVersion)
  const outerIgnore = readExcludes(excludeFiles)
  const paths: string[] = []
  const kinds: Array<'file' | 'dir' | 'symlink'> = []
  const folders = new Map<string, string>()
  const ignoreFiles = new Map<string, string>()
  let truncated = false
  const walker = walkTree({
    root,
    dataDir,
    start: '',
    ...(outerIgnore !== undefined ? { outerIgnore } : {}),
    onFolder: (path, folder) => folders.set(path, versionOf(fstatSync(folder.fd, { bigint: true }))),
  })
  for (const entry of walker) {
    if (entry.name === '.gitignore' && entry.kind === 'file') {
      try {
        ignoreFiles.set(entry.path, versionOf(lstatSync(entry.folder.at(entry.name), { bigint: true })))
      } catch {
        // gone again: the folder's version tells
      }
    }
    paths.push(entry.path)
    kinds.push(entry.kind)
    // Time is checked every 1024 entries: performance.now() per entry would cost more than the walk.
    if (
      paths.length >= limits.maxEntries ||
      ((paths.length & 1023) === 0 && performance.now() - started > limits.maxWalkMs)
    ) {
      truncated = true
      break
    }
  }
  return {
    root,
    dataDir,
    paths,
    kinds,
    lowerPaths: paths.map((path) => path.toLowerCase()),
    folders,
    ignoreFiles,
    excludeFiles,
    excludeVersions,
    generation: generationOf(paths, kinds, truncated),
    aliases: [],
    truncated,
    preparedPaths: new Array(paths.length),
    preparedNames: new Array(paths.length),
  }
}

/** True while every folder and `.gitignore` the index was built from is as it was. */
export function stillFresh(index: ProjectIndex): boolean {
  const at = (path: string) => (path === '' ? index.root : `${index.root}/${path}`)
  for (const [path, version] of index.folders) {
    try {
      if (versionOf(lstatSync(at(path), { bigint: true })) !== version) return false
    } catch {
      return false
    }
  }
  for (const [path, version] of index.ignoreFiles) {
    try {
      if (versionOf(lstatSync(at(path), { bigint: true })) !== version) return false
    } catch {
      return false
    }
  }
  return index.excludeFiles.every((path, i) => excludeVersion(path) === index.excludeVersions[i])
}

/**
 * The index to answer from: the same one while its tree holds; otherwise a fresh walk — which keeps
 * the old generation if the entries turn out identical (a save replaces a file through a rename,
 * which touches its folder's version but not the list of names).
 */
export function refreshIndex(index: ProjectIndex, limits?: IndexLimits): ProjectIndex {
  if (stillFresh(index)) return index
  return adoptIfSame(index, buildIndex(index.root, index.dataDir, limits, index.excludeFiles))
}

/** `walked` — or, when it holds the very same entries, `known`'s prepared targets with its versions. */
function adoptIfSame(known: ProjectIndex, walked: ProjectIndex): ProjectIndex {
  if (walked.generation !== known.generation) return walked
  return {
    ...known,
    folders: walked.folders,
    ignoreFiles: walked.ignoreFiles,
    excludeFiles: walked.excludeFiles,
    excludeVersions: walked.excludeVersions,
  }
}

/**
 * The records (by number) of a NUL-separated listing that may hold a segment the walk never lists:
 * one that starts with a dot or holds `~` (`.git`, `GIT~1`, journal temp names), an undecodable
 * name, an empty segment (`nested/`), or the data directory. One scan of the whole listing instead
 * of a test per path.
 */
function suspectRecords(text: string, dataRel: string): Set<number> {
  const suspects = new Set<number>()
  const data = dataRel === '' || dataRel.startsWith('..') ? '' : `|(?:^|\u0000)${escapeRegExp(dataRel)}(?=/|\u0000|$)`
  const pattern = new RegExp(`(?:^|[\u0000/])\\.|~|\uFFFD|//|/(?=\u0000|$)${data}`, 'g')
  let record = 0
  let nextNul = text.indexOf('\u0000')
  for (const match of text.matchAll(pattern)) {
    // A match that starts with a separator belongs to the record after it.
    const at = match[0].startsWith('\u0000') ? match.index + 1 : match.index
    while (nextNul !== -1 && nextNul < at) {
      record += 1
      nextNul = text.indexOf('\u0000', nextNul + 1)
    }
    suspects.add(record)
  }
  return suspects
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The walked index that replaces a seeded one: when the walk found exactly the seed's entries, it
 * keeps the seed's prepared targets and answers to the seed's generation too (so the cursors of the
 * seeded first page stay valid); otherwise the seed's cursors are `STALE_SNAPSHOT`.
 */
export function replaceSeed(seed: ProjectIndex, walked: ProjectIndex): ProjectIndex {
  if (generationOf(seed.paths, seed.kinds, seed.truncated) !== walked.generation) return walked
  return adoptIfSame({ ...seed, generation: walked.generation, aliases: [seed.generation] }, walked)
}

/**
 * An index of a git work tree from git's listings — `git ls-files --cached -z` and `git ls-files
 * --others --exclude-standard -z` (run at its top level), fed as each arrives — for the first query
 * while the walk has not run yet: the same exclusions as the walk (`.git`, the data directory,
 * journal temp names, names that are not UTF-8), and every folder the listed paths pass through,
 * as the walk would list it. Kinds are git's guess — a listed path is a file; the entries a search
 * shows are then checked against the disk (`walkVerdicts`).
 *
 * It has no folder versions, so it is never kept and never checked for freshness: the walk replaces
 * it right after the answer ({@link replaceSeed}). Its generation is a token of its own, so that the
 * digest of its entries is made after the answer, not before.
 */
export interface SeedBuilder {
  /** One NUL-separated listing; false once the entries are more than the index may hold. */
  add(listing: Buffer): boolean
  finish(): ProjectIndex
}

export function seedBuilder(root: string, dataDir: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): SeedBuilder {
  const dataRel = dataDirPath(root, dataDir)
  const paths: string[] = []
  const kinds: Array<'file' | 'dir' | 'symlink'> = []
  // Made only once some path is not ASCII (the rank's filter folds ASCII case itself).
  let lowerPaths: string[] | undefined
  const dirs = new Set<string>()
  const addFolders = (path: string, end: number) => {
    for (let cut = end; cut > 0; cut = path.lastIndexOf('/', cut - 1)) {
      const folder = path.slice(0, cut)
      if (dirs.has(folder)) break
      dirs.add(folder)
    }
  }
  return {
    add(listing) {
      const text = listing.toString('utf8')
      const records = text.split('\u0000')
      // Lower-cased in one piece (the same strings as lower-casing each path: NUL and `/` end
      // words), and only when some path is not ASCII.
      let lowerRecords: string[] | undefined
      if (lowerPaths !== undefined || /[\u0080-\uffff]/.test(text)) {
        lowerPaths ??= paths.map((path) => path.toLowerCase())
        lowerRecords = text.toLowerCase().split('\u0000')
        if (lowerRecords.length !== records.length) lowerRecords = records.map((path) => path.toLowerCase())
      }
      const suspects = suspectRecords(text, dataRel)
      let previous = ''
      // Git lists paths sorted: most share the previous one's folder, known already.
      let previousFolder = ''
      for (let r = 0; r < records.length; r++) {
        const path = records[r] as string
        // A tracked file with conflicts is listed once per stage, next to each other.
        if (path === '' || path === previous) continue
        previous = path
        const unlisted = suspects.has(r) ? unlistedSegment(path, dataRel) : -1
        if (unlisted === -1) {
          paths.push(path)
          lowerPaths?.push(lowerRecords?.[r] as string)
          kinds.push('file')
          const cut = path.lastIndexOf('/')
          if (cut > 0 && !(cut === previousFolder.length && path.startsWith(previousFolder))) {
            previousFolder = path.slice(0, cut)
            addFolders(path, cut)
          }
        } else if (unlisted > 0) {
          // An untracked nested repository comes as `nested/`; the walk lists the folder itself.
          let end = -1
          for (let i = 0; i < unlisted; i++) end = path.indexOf('/', end + 1)
          addFolders(path, end)
        }
        if (paths.length + dirs.size > limits.maxEntries) return false
      }
      return true
    },
    finish() {
      for (const folder of dirs) {
        paths.push(folder)
        lowerPaths?.push(folder.toLowerCase())
        kinds.push('dir')
      }
      return {
        root,
        dataDir,
        paths,
        kinds,
        lowerPaths,
        folders: new Map(),
        ignoreFiles: new Map(),
        excludeFiles: [],
        excludeVersions: [],
        generation: `git-${randomUUID()}`,
        aliases: [],
        truncated: false,
        preparedPaths: new Array(paths.length),
        preparedNames: new Array(paths.length),
      }
    },
  }
}
