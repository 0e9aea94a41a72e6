import { readPath } from '../../project-fs'
import { z } from 'zod'
import { boundOutput, defineTool } from './define-tool'
import {
  checkPatternLength,
  DEFAULT_PATTERN_BUDGET_MS,
  matchFailure,
  withPatternMatcher,
  type LineMatch,
} from './pattern-matcher'
import { STOPPED, walkFromArg, type WalkEntry } from './walk'

const MAX_MATCHES = 100
const MAX_FILE_BYTES = 2 * 1024 * 1024
const MAX_LINE_CHARS = 500
const MAX_SCANNED = 50_000
/** Bytes of text one call searches at most; the answer says when it stopped short. */
const MAX_SCANNED_BYTES = 256 * 1024 * 1024
/** Texts sent to the matcher at once: small enough to keep memory flat, large enough to amortise a message. */
const BATCH_BYTES = 4 * 1024 * 1024
const BATCH_FILES = 256

/** A file's text for searching, or null (binary, too large, or not a regular file any more). */
async function readText(root: string, path: string): Promise<{ text: string; size: number } | null> {
  const read = await readPath(root, path, MAX_FILE_BYTES)
  if (read.kind !== 'regular') return null
  if (read.bytes.subarray(0, 8192).includes(0)) return null
  return { text: read.bytes.toString('utf8'), size: read.bytes.length }
}

export const grepTool = defineTool({
  name: 'grep',
  kind: 'read',
  description: [
    'Searches file contents with a JavaScript regular expression under path (default: the project root),',
    'honouring .gitignore; include is an optional glob on file paths (e.g. "*.ts" or "src/**/*.py").',
    `Answers "path:line: text" grouped by file, at most ${MAX_MATCHES} matches, lines cut at ${MAX_LINE_CHARS}`,
    'characters; binary files and files over 2 MiB are skipped. A pattern that takes too long (catastrophic',
    'backtracking) is stopped with a TIMEOUT error.',
  ].join(' '),
  input: z.object({ pattern: z.string().min(1), path: z.string().optional(), include: z.string().optional() }),
  async execute(input, context) {
    const tooLong = checkPatternLength('pattern', input.pattern) ?? checkPatternLength('include', input.include ?? '')
    if (tooLong) return tooLong
    const walked = await walkFromArg(context, input.path, { maxEntries: MAX_SCANNED })
    if (walked.kind === 'answer') return walked.result
    // Path order, not walk order: the same search answers the same way.
    const files = walked.entries
      .filter((entry) => entry.kind === 'file')
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const budgetMs = context.patternBudgetMs ?? DEFAULT_PATTERN_BUDGET_MS
    return withPatternMatcher({ budgetMs, signal: context.signal }, async (matcher) => {
      const include = input.include
      const compiled = await matcher.compile({
        regex: input.pattern,
        ...(include ? { glob: { pattern: include, basename: !include.includes('/') } } : {}),
      })
      if (compiled.kind !== 'ok') return matchFailure(compiled, { tool: 'grep', pattern: input.pattern, kind: 'regex' })
      let candidates: WalkEntry[] = files
      if (include) {
        const kept = await matcher.filter(files.map((entry) => entry.path))
        if (kept.kind !== 'ok') return matchFailure(kept, { tool: 'grep', pattern: include, kind: 'glob' })
        candidates = kept.result.map((index) => files[index] as WalkEntry)
      }
      const found: Array<{ path: string; match: LineMatch }> = []
      let more = false
      let scannedBytes = 0
      let next = 0
      while (next < candidates.length && !more && scannedBytes < MAX_SCANNED_BYTES) {
        const batch: Array<{ path: string; text: string }> = []
        let batchBytes = 0
        while (next < candidates.length && batch.length < BATCH_FILES && batchBytes < BATCH_BYTES) {
          if (context.signal.aborted) return STOPPED
          const entry = candidates[next++] as WalkEntry
          let read: { text: string; size: number } | null
          try {
            read = await readText(context.root, entry.path)
          } catch {
            continue
          }
          if (read === null) continue
          batch.push({ path: entry.path, text: read.text })
          batchBytes += read.size
        }
        scannedBytes += batchBytes
        if (batch.length === 0) continue
        const matched = await matcher.lines(
          batch.map((file) => file.text),
          { maxMatches: MAX_MATCHES - found.length, maxLineChars: MAX_LINE_CHARS },
        )
        if (matched.kind !== 'ok') {
          const at = matched.kind === 'timeout' && matched.file !== undefined ? batch[matched.file]?.path : undefined
          return matchFailure(matched, {
            tool: 'grep',
            pattern: input.pattern,
            kind: 'regex',
            ...(at !== undefined ? { at } : {}),
          })
        }
        for (const match of matched.result.matches) found.push({ path: batch[match.file]?.path ?? '', match })
        more = matched.result.more
      }
      if (context.signal.aborted) return STOPPED
      const stoppedShort = !more && next < candidates.length
      if (found.length === 0) {
        return {
          kind: 'ok',
          output: `No matches for /${input.pattern}/.${stoppedShort ? ` ${scanNote(scannedBytes)}` : ''}`,
        }
      }
      const lines: string[] = []
      let previous: string | undefined
      for (const { path, match } of found) {
        if (path !== previous && previous !== undefined) lines.push('')
        previous = path
        lines.push(`${path}:${match.line}: ${match.text}`)
      }
      const note = more
        ? `\n… more than ${MAX_MATCHES} matches; narrow the pattern or the path.`
        : stoppedShort
          ? `\n… ${scanNote(scannedBytes)}`
          : ''
      return { kind: 'ok', output: boundOutput(`${lines.join('\n')}${note}`) }
    })
  },
})

function scanNote(scannedBytes: number): string {
  return `(stopped after searching ${Math.round(scannedBytes / (1024 * 1024))} MiB of text; narrow the path or include.)`
}
