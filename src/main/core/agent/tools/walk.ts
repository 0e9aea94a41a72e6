import { lstat } from 'node:fs/promises'
import { walkTree } from '../../files'

export interface WalkEntry {
  /** Root-relative POSIX path. */
  readonly path: string
  readonly kind: 'file' | 'dir' | 'symlink'
  readonly size: number
  readonly mtimeMs: number
}

export interface WalkOptions {
  readonly root: string
  readonly dataDir: string
  /** Root-relative folder to start in ('' for the root). */
  readonly start: string
  readonly signal: AbortSignal
  /** Stop after this many entries. */
  readonly maxEntries: number
  /** Descend into sub-folders (list shows one level at a time deeper than this). */
  readonly maxDepth?: number
}

/** A read-only tool stopped by the person: never reported as a (partial) success. */
export const STOPPED = { kind: 'error', code: 'ABORTED', message: 'stopped before it finished' } as const

/**
 * The project walk (files/walk.ts: .gitignore at every level, `.git` and the data directory never
 * entered, links never followed) with each entry's size and mtime, for the agent's list, glob and
 * grep tools. Bounded by entry count; stops when the turn is aborted.
 */
export async function walk(options: WalkOptions): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = []
  const walker = walkTree({
    root: options.root,
    dataDir: options.dataDir,
    start: options.start,
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
  })
  for (const entry of walker) {
    if (options.signal.aborted) return { entries, truncated: true }
    let size: number
    let mtimeMs: number
    try {
      // Through the open folder that holds the entry (the walk is paused while we await).
      const info = await lstat(entry.folder.at(entry.name))
      size = info.size
      mtimeMs = info.mtimeMs
    } catch {
      continue
    }
    entries.push({ path: entry.path, kind: entry.kind, size, mtimeMs })
    if (entries.length >= options.maxEntries) return { entries, truncated: true }
  }
  return { entries, truncated: false }
}
