import { lstat } from 'node:fs/promises'
import { outerIgnoreOf, walkTree } from '../../files'
import type { ToolContext, ToolResult } from './define-tool'
import { folderArg } from './folder-arg'
import { toolError } from './tool-paths'

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
  /** git's other ignore sources (global excludes file, `info/exclude`), below every `.gitignore`. */
  readonly outerIgnore?: string
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
    ...(options.outerIgnore !== undefined ? { outerIgnore: options.outerIgnore } : {}),
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

/**
 * The start of every read-only walking tool (list, glob, grep): the optional `path` argument
 * resolved as a folder like a read, then the walk from it. A refusal or a stop comes back as the
 * tool's answer, so each tool only handles what it found.
 */
export async function walkFromArg(
  context: Pick<ToolContext, 'root' | 'dataDir' | 'signal'>,
  path: string | undefined,
  limits: { maxEntries: number; maxDepth?: number },
): Promise<
  { kind: 'walked'; start: string; entries: WalkEntry[]; truncated: boolean } | { kind: 'answer'; result: ToolResult }
> {
  const start = await folderArg(context.root, context.dataDir, path)
  if (start.kind === 'error') return { kind: 'answer', result: toolError(start) }
  // What git ignores beyond .gitignore, as the explorer and quick open see it (outside a git work
  // tree git answers nothing, and only .gitignore files apply).
  const outerIgnore = await outerIgnoreOf(context.root)
  const { entries, truncated } = await walk({
    root: context.root,
    dataDir: context.dataDir,
    start: start.result,
    signal: context.signal,
    maxEntries: limits.maxEntries,
    ...(limits.maxDepth !== undefined ? { maxDepth: limits.maxDepth } : {}),
    ...(outerIgnore !== undefined ? { outerIgnore } : {}),
  })
  if (context.signal.aborted) return { kind: 'answer', result: STOPPED }
  return { kind: 'walked', start: start.result, entries, truncated }
}
