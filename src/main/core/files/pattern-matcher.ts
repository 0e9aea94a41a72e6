import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { createFairLimiter } from '../platform'
import type { LineRange, PatternJob, PatternReply } from './pattern-protocol'

/**
 * Matching time one grep or glob call (or one content search) may spend on a hostile pattern (its
 * files' reading and the walk are not counted: they never block the engine). Ten seconds is far
 * beyond what an ordinary regex needs for the bytes grep reads; a pattern that needs more is
 * catastrophic backtracking.
 */
export const DEFAULT_PATTERN_BUDGET_MS = 10_000

/** Longer patterns are refused before anything runs: nobody needs a 1000-character glob or regex. */
export const MAX_PATTERN_CHARS = 1_000

/**
 * Pattern workers alive at once across the engine: parallel tool calls queue behind them, so a
 * burst of pathological patterns keeps at most this many threads busy on a small machine. The
 * queue is fair between turns (keyed by the turn's stop signal, which its sub-agents share): a
 * model that asks for thirty catastrophic patterns at once makes another session's grep wait for
 * one budget at most, not thirty (issue 23 review).
 */
const MAX_WORKERS = 2

/** A worker's heap: texts arrive in batches of a few MiB, a regex needs little more. */
const WORKER_HEAP_MB = 256

const limitWorkers = createFairLimiter(MAX_WORKERS)

/** One step of matching: its answer, or why there is none. */
export type MatchStep<T> =
  | { readonly kind: 'ok'; readonly result: T }
  | { readonly kind: 'invalid'; readonly what: 'regex' | 'glob'; readonly message: string }
  /** The call's budget ran out; `file` is the text of a `lines` step being matched then. */
  | { readonly kind: 'timeout'; readonly budgetMs: number; readonly file?: number }
  | { readonly kind: 'stopped' }
  | { readonly kind: 'failed'; readonly message: string }

export interface LineMatch {
  readonly file: number
  readonly line: number
  readonly text: string
  /** With `ranges` asked for: the 1-based column of the first match in the whole line… */
  readonly column?: number
  /** …and the matches' [start, end) within `text` (which then starts a little before the first). */
  readonly ranges?: readonly LineRange[]
}

/** The compiled patterns of one tool call, matched in a worker the call's budget can stop. */
export interface PatternMatcher {
  compile(spec: {
    regex?: string
    glob?: { pattern: string | readonly string[]; basename: boolean }
  }): Promise<MatchStep<void>>
  /** Indices of the subjects the compiled glob matches, in order. */
  filter(subjects: readonly string[]): Promise<MatchStep<number[]>>
  /** Matching lines of each text, in order, at most `maxMatches` (`more` when there were others). */
  lines(
    texts: readonly string[],
    limits: {
      maxMatches: number
      maxLineChars: number
      /** Also answer each line's match ranges (content search's highlights), at most `max` a line. */
      ranges?: { max: number; contextChars: number }
    },
  ): Promise<MatchStep<{ matches: readonly LineMatch[]; more: boolean }>>
}

/** The worker script: next to the bundle in a build, the TypeScript source under tests. */
function workerScript(): string {
  for (const candidate of [
    join(__dirname, 'pattern-worker.js'),
    join(__dirname, '..', 'pattern-worker.js'),
    join(__dirname, 'pattern-worker.mts'),
  ]) {
    if (existsSync(candidate)) return candidate
  }
  throw new Error('pattern-worker script not found')
}

/**
 * Runs `use` with a matcher whose worker lives exactly as long as the call. Time spent inside the
 * worker adds up against `budgetMs`; when it runs out (or the turn is stopped) the worker is
 * terminated mid-match and every later step answers the same way, so the engine's event loop never
 * runs a model-chosen pattern and never waits for one.
 */
export function withPatternMatcher<T>(
  options: { budgetMs: number; signal: AbortSignal },
  use: (matcher: PatternMatcher) => Promise<T>,
): Promise<T> {
  return limitWorkers(options.signal, async () => {
    const worker = new Worker(workerScript(), { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } })
    worker.unref()
    let ended: MatchStep<never> | undefined
    let spentMs = 0
    let nextId = 0
    let pending: ((step: MatchStep<never> | PatternReply) => void) | undefined
    const end = (step: MatchStep<never>) => {
      ended ??= step
      void worker.terminate()
      pending?.(step)
    }
    const onAbort = () => end({ kind: 'stopped' })
    options.signal.addEventListener('abort', onAbort, { once: true })
    worker.on('error', (error) => end({ kind: 'failed', message: error.message }))
    worker.on('exit', () => end({ kind: 'failed', message: 'the pattern worker stopped' }))
    if (options.signal.aborted) onAbort()

    /** Sends one job and waits for its answer within what is left of the budget. */
    function ask(job: PatternJob): Promise<MatchStep<never> | PatternReply> {
      if (ended) return Promise.resolve(ended)
      return new Promise((resolve) => {
        const started = performance.now()
        let file: number | undefined
        const settle = (answer: MatchStep<never> | PatternReply) => {
          clearTimeout(deadline)
          worker.off('message', onMessage)
          pending = undefined
          spentMs += performance.now() - started
          resolve(answer)
        }
        const onMessage = (reply: PatternReply) => {
          if (reply.id !== job.id) return
          if (reply.kind === 'at') {
            file = reply.file
            return
          }
          settle(reply)
        }
        const deadline = setTimeout(
          () => end({ kind: 'timeout', budgetMs: options.budgetMs, ...(file !== undefined ? { file } : {}) }),
          Math.max(0, options.budgetMs - spentMs),
        )
        pending = settle
        worker.on('message', onMessage)
        worker.postMessage(job)
      })
    }

    const matcher: PatternMatcher = {
      async compile(spec) {
        const answer = await ask({ id: ++nextId, kind: 'compile', ...spec })
        if (answer.kind === 'compiled') return { kind: 'ok', result: undefined }
        if (answer.kind === 'invalid') return answer
        return unexpected(answer)
      },
      async filter(subjects) {
        const answer = await ask({ id: ++nextId, kind: 'paths', subjects })
        return answer.kind === 'paths' ? { kind: 'ok', result: [...answer.matched] } : unexpected(answer)
      },
      async lines(texts, limits) {
        const answer = await ask({ id: ++nextId, kind: 'lines', texts, ...limits })
        return answer.kind === 'lines'
          ? { kind: 'ok', result: { matches: answer.matches, more: answer.more } }
          : unexpected(answer)
      },
    }
    try {
      return await use(matcher)
    } finally {
      options.signal.removeEventListener('abort', onAbort)
      ended ??= { kind: 'stopped' }
      await worker.terminate()
    }
  })
}

function unexpected(answer: MatchStep<never> | PatternReply): MatchStep<never> {
  switch (answer.kind) {
    case 'timeout':
    case 'stopped':
    case 'failed':
      return answer
    default:
      return { kind: 'failed', message: `unexpected answer "${answer.kind}" from the pattern worker` }
  }
}
