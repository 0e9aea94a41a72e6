import type { Dirent } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { relative, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { isForbiddenSegment } from '../../../../shared/paths'
import { isJournalTempName } from '../../journal'
import { openChain, readPath } from '../../project-fs'
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
}

/** A read-only tool stopped by the person: never reported as a (partial) success. */
export const STOPPED = { kind: 'error', code: 'ABORTED', message: 'stopped before it finished' } as const

/**
 * The ignore rules in force inside one folder: every .gitignore from the root down, each rule
 * rewritten relative to the root, in order — so, as in git, the deepest matching rule decides
 * (a nested `!keep.gen` re-includes what the root's `*.gen` excluded).
 */
interface Rules {
  readonly patterns: readonly string[]
  readonly matcher: Ignore
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

/** A .gitignore larger than this is not a real ignore file; it is skipped. */
const MAX_IGNORE_BYTES = 1024 * 1024

async function rulesFor(root: string, base: string, parent: Rules | undefined): Promise<Rules | undefined> {
  const read = await readPath(root, base === '' ? '.gitignore' : `${base}/.gitignore`, MAX_IGNORE_BYTES)
  if (read.kind !== 'regular') return parent
  const text = read.bytes.toString('utf8')
  const own = text.split(/\r?\n/).flatMap((line) => rebase(line, base) ?? [])
  const patterns = [...(parent?.patterns ?? []), ...own]
  return { patterns, matcher: ignore({ ignorecase: false }).add(patterns) }
}

function ignored(rules: Rules | undefined, path: string, isDir: boolean): boolean {
  return rules !== undefined && rules.matcher.ignores(isDir ? `${path}/` : path)
}

/**
 * Breadth-first over the project, as git would see it: `.gitignore` files at every level apply to
 * their own subtree, `.git` and Retrace's data directory are never entered, symlinks are listed
 * but never followed. Bounded by entry count; stops when the turn is aborted.
 */
export async function walk(options: WalkOptions): Promise<{ entries: WalkEntry[]; truncated: boolean }> {
  const entries: WalkEntry[] = []
  const dataRel = relative(options.root, options.dataDir).split(sep).join('/')
  let startRules: Rules | undefined
  // Rules from the root down to the start folder apply inside it too.
  const segments = options.start === '' ? [] : options.start.split('/')
  for (let i = 0; i <= segments.length; i++) {
    startRules = await rulesFor(options.root, segments.slice(0, i).join('/'), startRules)
  }
  const queue: Array<{ dir: string; depth: number; rules: Rules | undefined }> = [
    { dir: options.start, depth: 0, rules: startRules },
  ]
  while (queue.length > 0) {
    if (options.signal.aborted) return { entries, truncated: true }
    const { dir, depth, rules } = queue.shift() as (typeof queue)[number]
    // Each folder is opened from the root without following links and read through that handle,
    // so a folder swapped for a link while we walk is skipped, never entered.
    const walked = openChain(options.root, dir === '' ? [] : dir.split('/'))
    if (walked.kind === 'failed') continue
    const folder = walked.chain
    try {
      if (folder.missing.length > 0) continue
      let children: Dirent[]
      try {
        children = await readdir(folder.deepest.self, { withFileTypes: true })
      } catch {
        continue
      }
      children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const child of children) {
        const path = dir === '' ? child.name : `${dir}/${child.name}`
        if (isForbiddenSegment(child.name) || path === dataRel || isJournalTempName(child.name)) continue
        const isDir = child.isDirectory()
        if (ignored(rules, path, isDir)) continue
        let size: number
        let mtimeMs: number
        try {
          const info = await lstat(folder.deepest.at(child.name))
          size = info.size
          mtimeMs = info.mtimeMs
        } catch {
          continue
        }
        entries.push({ path, kind: child.isSymbolicLink() ? 'symlink' : isDir ? 'dir' : 'file', size, mtimeMs })
        if (entries.length >= options.maxEntries) return { entries, truncated: true }
        if (isDir && (options.maxDepth === undefined || depth + 1 < options.maxDepth)) {
          queue.push({ dir: path, depth: depth + 1, rules: await rulesFor(options.root, path, rules) })
        }
      }
    } finally {
      folder.close()
    }
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
  const { entries, truncated } = await walk({
    root: context.root,
    dataDir: context.dataDir,
    start: start.result,
    signal: context.signal,
    maxEntries: limits.maxEntries,
    ...(limits.maxDepth !== undefined ? { maxDepth: limits.maxDepth } : {}),
  })
  if (context.signal.aborted) return { kind: 'answer', result: STOPPED }
  return { kind: 'walked', start: start.result, entries, truncated }
}
