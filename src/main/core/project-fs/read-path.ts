import { readlinkSync } from 'node:fs'
import { readLeaf, statLeaf, type LeafRead, type LeafStat } from './leaf'
import { openChain, type OpenDir } from './pinned-dir'

export type PathRead = LeafRead | { kind: 'unreachable'; reason: string }

/**
 * Runs `use` with the folder holding root-relative `path` opened from the root without following
 * links (a link or non-folder on the way answers `unreachable`), then closes it.
 */
export async function withParent<T>(
  root: string,
  path: string,
  use: (dir: OpenDir, name: string) => Promise<T> | T,
): Promise<T | { kind: 'unreachable'; reason: string }> {
  const segments = path === '' ? [] : path.split('/')
  const name = segments.pop()
  if (name === undefined) return { kind: 'unreachable', reason: 'root' }
  const walked = openChain(root, segments)
  if (walked.kind === 'failed') return { kind: 'unreachable', reason: walked.reason }
  try {
    if (walked.chain.missing.length > 0) return { kind: 'unreachable', reason: 'absent' }
    return await use(walked.chain.deepest, name)
  } finally {
    walked.chain.close()
  }
}

/** Reads a project file by root-relative path, following no link anywhere on the way. */
export async function readPath(root: string, path: string, maxBytes: number): Promise<PathRead> {
  return withParent(root, path, (dir, name) => readLeaf(dir, name, maxBytes))
}

export type PathEntry = LeafStat | { kind: 'unreachable'; reason: string }

/** What is at a root-relative path (not following the leaf), reached without following links. */
export async function statPath(root: string, path: string): Promise<PathEntry> {
  return withParent(root, path, (dir, name) => statLeaf(dir, name))
}

/** The target text of a symlink at a root-relative path (what git stores for a link). */
export async function readLinkPath(root: string, path: string): Promise<string | undefined> {
  const found = await withParent(root, path, (dir, name) => {
    try {
      return { kind: 'link' as const, target: readlinkSync(dir.at(name)) }
    } catch {
      return { kind: 'unreachable' as const, reason: 'not-a-link' }
    }
  })
  return found.kind === 'link' ? found.target : undefined
}
