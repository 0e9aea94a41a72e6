import { fstatSync, lstatSync } from 'node:fs'
import { createHash } from 'node:crypto'
import type { Prepared } from 'fuzzysort'
import { walkTree } from './walk'

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
  readonly names: string[]
  readonly kinds: Array<'file' | 'dir' | 'symlink'>
  /** Lower-cased paths for the cheap subsequence filter in front of the scorer. */
  readonly lowerPaths: string[]
  /** Folder path → `ino:mtime:ctime` when it was read. */
  readonly folders: Map<string, string>
  /** `.gitignore` path → its identity when it was read (an in-place edit changes no folder). */
  readonly ignoreFiles: Map<string, string>
  /** Changes exactly when the list of entries changes (digest of every path and kind). */
  readonly generation: string
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

export function buildIndex(root: string, dataDir: string, limits: IndexLimits = DEFAULT_INDEX_LIMITS): ProjectIndex {
  const started = performance.now()
  const paths: string[] = []
  const names: string[] = []
  const kinds: Array<'file' | 'dir' | 'symlink'> = []
  const folders = new Map<string, string>()
  const ignoreFiles = new Map<string, string>()
  let truncated = false
  const walker = walkTree({
    root,
    dataDir,
    start: '',
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
    names.push(entry.name)
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
  const hash = createHash('sha256')
  for (let i = 0; i < paths.length; i++) hash.update(`${kinds[i]}\u0000${paths[i]}\u0000`)
  return {
    root,
    dataDir,
    paths,
    names,
    kinds,
    lowerPaths: paths.map((path) => path.toLowerCase()),
    folders,
    ignoreFiles,
    generation: `${hash.digest('hex').slice(0, 32)}${truncated ? ':partial' : ''}`,
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
  return true
}

/**
 * The index to answer from: the same one while its tree holds; otherwise a fresh walk — which keeps
 * the old generation if the entries turn out identical (a save replaces a file through a rename,
 * which touches its folder's version but not the list of names).
 */
export function refreshIndex(index: ProjectIndex, limits?: IndexLimits): ProjectIndex {
  if (stillFresh(index)) return index
  const rebuilt = buildIndex(index.root, index.dataDir, limits)
  if (rebuilt.generation !== index.generation) return rebuilt
  // Same entries: keep the prepared targets, take the new versions.
  return { ...index, folders: rebuilt.folders, ignoreFiles: rebuilt.ignoreFiles }
}
