// Runs the model's grep regex and glob patterns off the engine's event loop (issue 23): a pattern
// that backtracks catastrophically burns this thread, never the engine's, and the main side
// terminates it at its budget. Loaded by path as a worker: from the build
// (out/main/pattern-worker.js) or, under tests, from this source file (.mts: an ES module without guessing) with Node's type stripping —
// so it uses only erasable TypeScript and imports nothing from the project.
import { parentPort } from 'node:worker_threads'
import picomatch from 'picomatch'
import type { LineRange, PatternJob, PatternReply } from './pattern-protocol'

let regex: RegExp | undefined
/** The same regex with the `g` flag, to find every match on a line (content search's highlights). */
let everyMatch: RegExp | undefined
let glob: ((path: string) => boolean) | undefined

function reply(message: PatternReply): void {
  parentPort?.postMessage(message)
}

function compile(job: Extract<PatternJob, { kind: 'compile' }>): PatternReply {
  regex = undefined
  everyMatch = undefined
  glob = undefined
  if (job.regex !== undefined) {
    try {
      regex = new RegExp(job.regex)
      everyMatch = new RegExp(job.regex, 'g')
    } catch (error) {
      return { id: job.id, kind: 'invalid', what: 'regex', message: messageOf(error) }
    }
  }
  if (job.glob !== undefined) {
    try {
      // picomatch's `basename` spoils a pattern that has a slash: it applies per pattern here.
      const { pattern, basename } = job.glob
      const tests = (typeof pattern === 'string' ? [pattern] : pattern).map((one) =>
        picomatch(one, { dot: true, basename: basename && !one.includes('/') }),
      )
      glob = (subject) => tests.some((test) => test(subject))
    } catch (error) {
      return { id: job.id, kind: 'invalid', what: 'glob', message: messageOf(error) }
    }
  }
  return { id: job.id, kind: 'compiled' }
}

function filterPaths(job: Extract<PatternJob, { kind: 'paths' }>): PatternReply {
  const matched: number[] = []
  const test = glob
  if (test === undefined) return { id: job.id, kind: 'failed', message: 'no glob compiled' }
  job.subjects.forEach((subject, index) => {
    if (test(subject)) matched.push(index)
  })
  return { id: job.id, kind: 'paths', matched }
}

function matchLines(job: Extract<PatternJob, { kind: 'lines' }>): PatternReply {
  const pattern = regex
  if (pattern === undefined) return { id: job.id, kind: 'failed', message: 'no regex compiled' }
  const matches: Array<{ file: number; line: number; text: string; column?: number; ranges?: LineRange[] }> = []
  for (let file = 0; file < job.texts.length; file++) {
    // Announced before the file is matched, so a budget that runs out names the file it hit.
    reply({ id: job.id, kind: 'at', file })
    const lines = (job.texts[file] ?? '').split('\n')
    for (let line = 0; line < lines.length; line++) {
      const text = lines[line] ?? ''
      if (!pattern.test(text)) continue
      if (matches.length >= job.maxMatches) return { id: job.id, kind: 'lines', matches, more: true }
      if (job.ranges !== undefined) {
        matches.push({ file, line: line + 1, ...withRanges(text, job.maxLineChars, job.ranges) })
        continue
      }
      matches.push({
        file,
        line: line + 1,
        text: text.length > job.maxLineChars ? `${text.slice(0, job.maxLineChars)}…` : text,
      })
    }
  }
  return { id: job.id, kind: 'lines', matches, more: false }
}

/**
 * Every match on one line (at most `limits.max`), and the line cut to `maxLineChars` starting
 * `contextChars` before the first match. Same rule as `clipPreview` in content-search-rg.ts, which
 * cuts ripgrep's lines; kept here because this worker imports nothing from the project.
 */
function withRanges(
  text: string,
  maxLineChars: number,
  limits: { max: number; contextChars: number },
): { text: string; column: number; ranges: LineRange[] } {
  const all = everyMatch as RegExp
  all.lastIndex = 0
  const found: LineRange[] = []
  for (let match = all.exec(text); match !== null && found.length < limits.max; match = all.exec(text)) {
    found.push([match.index, match.index + match[0].length])
    if (match[0].length === 0) all.lastIndex++
  }
  const first = found[0]?.[0] ?? 0
  const from = first > limits.contextChars ? first - limits.contextChars : 0
  const to = Math.min(text.length, from + maxLineChars)
  const ranges = found
    .filter(([start]) => start < to)
    .map(([start, end]): LineRange => [start - from, Math.min(end, to) - from])
  return { text: text.slice(from, to), column: first + 1, ranges }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

parentPort?.on('message', (job: PatternJob) => {
  switch (job.kind) {
    case 'compile':
      reply(compile(job))
      return
    case 'paths':
      reply(filterPaths(job))
      return
    case 'lines':
      reply(matchLines(job))
      return
  }
})
