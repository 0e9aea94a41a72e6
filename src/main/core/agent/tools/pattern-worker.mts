// Runs the model's grep regex and glob patterns off the engine's event loop (issue 23): a pattern
// that backtracks catastrophically burns this thread, never the engine's, and the main side
// terminates it at its budget. Loaded by path as a worker: from the build
// (out/main/pattern-worker.js) or, under tests, from this source file (.mts: an ES module without guessing) with Node's type stripping —
// so it uses only erasable TypeScript and imports nothing from the project.
import { parentPort } from 'node:worker_threads'
import picomatch from 'picomatch'
import type { PatternJob, PatternReply } from './pattern-protocol'

let regex: RegExp | undefined
let glob: ((path: string) => boolean) | undefined

function reply(message: PatternReply): void {
  parentPort?.postMessage(message)
}

function compile(job: Extract<PatternJob, { kind: 'compile' }>): PatternReply {
  regex = undefined
  glob = undefined
  if (job.regex !== undefined) {
    try {
      regex = new RegExp(job.regex)
    } catch (error) {
      return { id: job.id, kind: 'invalid', what: 'regex', message: messageOf(error) }
    }
  }
  if (job.glob !== undefined) {
    try {
      glob = picomatch(job.glob.pattern, { dot: true, basename: job.glob.basename })
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
  const matches: Array<{ file: number; line: number; text: string }> = []
  for (let file = 0; file < job.texts.length; file++) {
    // Announced before the file is matched, so a budget that runs out names the file it hit.
    reply({ id: job.id, kind: 'at', file })
    const lines = (job.texts[file] ?? '').split('\n')
    for (let line = 0; line < lines.length; line++) {
      const text = lines[line] ?? ''
      if (!pattern.test(text)) continue
      if (matches.length >= job.maxMatches) return { id: job.id, kind: 'lines', matches, more: true }
      matches.push({
        file,
        line: line + 1,
        text: text.length > job.maxLineChars ? `${text.slice(0, job.maxLineChars)}…` : text,
      })
    }
  }
  return { id: job.id, kind: 'lines', matches, more: false }
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
