import { setImmediate as nextTurn } from 'node:timers/promises'
import type { ContentMatch } from '../../../shared/protocol'
import { readPath } from '../project-fs'
import type { ContentQuery, ContentSearchBounds, ContentSink } from './content-search-types'
import { outerIgnoreOf } from './outer-ignore'
import { withPatternMatcher, type MatchStep } from './pattern-matcher'
import { walkTree } from './walk'

/** Files the built-in walk lists at most for one search (the name search's index bound). */
const MAX_WALKED_FILES = 200_000
/** Texts sent to the matcher at once: small enough to keep memory flat, large enough to amortise a message. */
const BATCH_BYTES = 4 * 1024 * 1024
const BATCH_FILES = 256
/** Entries walked between two turns of the event loop: the walk itself is synchronous. */
const WALK_SLICE = 2_000

/** The JavaScript source of a query: the literal escaped, whole word and case as groups. */
export function regexSourceOf(query: Pick<ContentQuery, 'text' | 'regex' | 'wholeWord' | 'matchCase'>): string {
  let source = query.regex ? query.text : query.text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  if (query.wholeWord) source = `\\b(?:${source})\\b`
  // A modifier group rather than a flag: the pattern worker compiles sources, never flags.
  if (!query.matchCase) source = `(?i:${source})`
  return source
}

/** A path and every folder above it: an excluded folder excludes what is inside (as in ripgrep). */
function withAncestors(path: string): string[] {
  const parts = path.split('/')
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'))
}

/**
 * The search when no ripgrep runs here: the project walk (the explorer's access rules, `.gitignore`
 * at every level, `info/exclude` and the global excludes file), files read without following links,
 * and every pattern — the query's regex and the globs — matched in the pattern worker, whose time
 * budget stops a catastrophic regex without ever blocking the engine.
 */
export async function runWalkSearch(
  roots: { root: string; dataDir: string },
  query: ContentQuery,
  bounds: ContentSearchBounds,
  sink: ContentSink,
  signal: AbortSignal,
): Promise<void> {
  const outerIgnore = await outerIgnoreOf(roots.root)
  let files: string[] = []
  let walked = 0
  for (const entry of walkTree({ ...roots, start: '', ...(outerIgnore !== undefined ? { outerIgnore } : {}) })) {
    if (entry.kind === 'file') files.push(entry.path)
    if (files.length >= MAX_WALKED_FILES) break
    if (++walked % WALK_SLICE === 0) {
      await nextTurn()
      if (signal.aborted) return
    }
  }
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  await withPatternMatcher({ budgetMs: bounds.regexBudgetMs, signal }, async (matcher) => {
    const failed = (step: Exclude<MatchStep<unknown>, { kind: 'ok' }>) => {
      if (step.kind === 'invalid') sink.fail({ kind: 'invalid', what: step.what, message: step.message })
      else if (step.kind === 'timeout') sink.fail({ kind: 'too-slow', budgetMs: step.budgetMs })
      else if (step.kind === 'failed') sink.fail({ kind: 'failed', message: step.message })
    }
    if (query.include.length > 0) {
      const compiled = await matcher.compile({ glob: { pattern: query.include, basename: true } })
      if (compiled.kind !== 'ok') return failed(compiled)
      const kept = await matcher.filter(files)
      if (kept.kind !== 'ok') return failed(kept)
      files = kept.result.map((index) => files[index] as string)
    }
    if (query.exclude.length > 0) {
      const compiled = await matcher.compile({ glob: { pattern: query.exclude, basename: true } })
      if (compiled.kind !== 'ok') return failed(compiled)
      const subjects = files.map(withAncestors)
      const flat = subjects.flat()
      const hit = await matcher.filter(flat)
      if (hit.kind !== 'ok') return failed(hit)
      const excluded = new Set(hit.result.map((index) => flat[index]))
      files = files.filter((_, i) => !(subjects[i] ?? []).some((subject) => excluded.has(subject)))
    }
    const compiled = await matcher.compile({ regex: regexSourceOf(query) })
    if (compiled.kind !== 'ok') return failed(compiled)
    let next = 0
    let matchedLines = 0
    while (next < files.length && matchedLines < bounds.maxMatches) {
      const batch: Array<{ path: string; text: string }> = []
      let batchBytes = 0
      while (next < files.length && batch.length < BATCH_FILES && batchBytes < BATCH_BYTES) {
        if (signal.aborted) return
        const path = files[next++] as string
        const text = await readText(roots.root, path, bounds.maxFileBytes).catch(() => null)
        if (text === null) continue
        batch.push({ path, text })
        batchBytes += text.length
      }
      if (batch.length === 0) continue
      const matched = await matcher.lines(
        batch.map((file) => file.text),
        {
          maxMatches: bounds.maxMatches - matchedLines,
          maxLineChars: bounds.previewChars,
          ranges: { max: bounds.rangesPerLine, contextChars: bounds.previewContextChars },
        },
      )
      if (matched.kind !== 'ok') return failed(matched)
      const byFile = new Map<number, ContentMatch[]>()
      for (const match of matched.result.matches) {
        const column = match.column ?? 1
        const list = byFile.get(match.file) ?? []
        list.push({
          line: match.line,
          column,
          preview: match.text,
          preview_cut: (match.ranges?.[0]?.[0] ?? 0) < column - 1,
          ranges: (match.ranges ?? []).map(([start, end]): [number, number] => [start, end]),
        })
        byFile.set(match.file, list)
      }
      for (const [file, matches] of byFile) {
        matchedLines += matches.length
        sink.file({
          path: batch[file]?.path ?? '',
          matches: matches.slice(0, bounds.matchesPerFile),
          more: matches.length > bounds.matchesPerFile,
        })
      }
      if (matched.result.more) return
    }
  })
}

/** A file's text, or null (binary, too large, or not a regular file any more). */
async function readText(root: string, path: string, maxBytes: number): Promise<string | null> {
  const read = await readPath(root, path, maxBytes)
  if (read.kind !== 'regular') return null
  if (read.bytes.subarray(0, 8192).includes(0)) return null
  return read.bytes.toString('utf8')
}
