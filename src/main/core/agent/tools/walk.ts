import type { Dirent } from 'node:fs'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { isForbiddenSegment } from '../../../../shared/paths'

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

interface Rules {
  /** The folder (root-relative, '' for the root) whose .gitignore these are. */
  readonly base: string
  readonly matcher: Ignore
}

async function rulesFor(root: string, base: string): Promise<Rules | undefined> {
  try {
    const text = await readFile(join(root, base, '.gitignore'), 'utf8')
    return { base, matcher: ignore().add(text) }
  } catch {
    return undefined
  }
}

function ignored(rules: readonly Rules[], path: string, isDir: boolean): boolean {
  for (const rule of rules) {
    const rel = rule.base === '' ? path : path.slice(rule.base.length + 1)
    if (rel === '' || rel.startsWith('..')) continue
    if (rule.matcher.ignores(isDir ? `${rel}/` : rel)) return true
  }
  return false
}

/**
 * Breadth-first over the project, as git would see it: `.gitignore` files at every level apply to
 * their own subtree, `.git` and Retrace's data directory are never entered, symlinks are listed
 * but never followed. Bounded by entry count; stops when the turn is aborted.
 */
export async function walk(options: WalkOptions): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = []
  const dataRel = relative(options.root, options.dataDir).split(sep).join('/')
  const startRules: Rules[] = []
  // Rules from the root down to the start folder apply inside it too.
  const segments = options.start === '' ? [] : options.start.split('/')
  for (let i = 0; i <= segments.length; i++) {
    const rules = await rulesFor(options.root, segments.slice(0, i).join('/'))
    if (rules) startRules.push(rules)
  }
  const queue: Array<{ dir: string; depth: number; rules: Rules[] }> = [
    { dir: options.start, depth: 0, rules: startRules },
  ]
  while (queue.length > 0) {
    if (options.signal.aborted) return { entries, truncated: true }
    const { dir, depth, rules } = queue.shift() as (typeof queue)[number]
    let children: Dirent[]
    try {
      children = await readdir(join(options.root, dir), { withFileTypes: true })
    } catch {
      continue
    }
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const child of children) {
      const path = dir === '' ? child.name : `${dir}/${child.name}`
      if (isForbiddenSegment(child.name) || path === dataRel) continue
      const isDir = child.isDirectory()
      if (ignored(rules, path, isDir)) continue
      let size: number
      let mtimeMs: number
      try {
        const info = await lstat(join(options.root, path))
        size = info.size
        mtimeMs = info.mtimeMs
      } catch {
        continue
      }
      entries.push({ path, kind: child.isSymbolicLink() ? 'symlink' : isDir ? 'dir' : 'file', size, mtimeMs })
      if (entries.length >= options.maxEntries) return { entries, truncated: true }
      if (isDir && (options.maxDepth === undefined || depth + 1 < options.maxDepth)) {
        const own = await rulesFor(options.root, path)
        queue.push({ dir: path, depth: depth + 1, rules: own ? [...rules, own] : rules })
      }
    }
  }
  return { entries, truncated: false }
}
