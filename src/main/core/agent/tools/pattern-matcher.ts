import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { createFairLimiter } from '../../platform'
import type { ToolResult } from './define-tool'
import type { PatternJob, PatternReply } from './pattern-protocol'
import { STOPPED } from './walk'

/**
 * Matching time one grep or glob call may spend on the model's patterns (its files' reading and the
 * walk are not counted: they never block the engine). Ten seconds is far beyond what an ordinary
 * regex needs for the bytes grep reads; a pattern that needs more is catastrophic backtracking.
 */
export const DEFAULT_PATTERN_BUDGET_MS = 10_000

/** Longer patterns are refused before anything runs: no model needs a 1000-character glob or regex. */
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
}

/** The compiled patterns of one tool call, matched in a worker the call's budget can stop. */
export interface PatternMatcher {
  compile(spec: { regex?: string; glob?: { pattern: string; basename: boolean } }): Promise<MatchStep<void>>
  /** Indices of the subjects the compiled glob matches, in order. */
  filter(subjects: readonly string[]): Promise<MatchStep<number[]>>
  /** Matching lines of each text, in order, at most `maxMatches` (`more` when there were others). */
  lines(
    texts: readonly string[],
    limits: { maxMatches: number; maxLineChars: number },
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

/**
 * The model-facing answer of a step that did not succeed. A timeout says what to change: the usual
 * cause is nested or adjacent unbounded quantifiers, which a backtracking engine explores exponentially.
 */
export function matchFailure(
  step: Exclude<MatchStep<unknown>, { kind: 'ok' }>,
  call: { tool: 'grep' | 'glob'; pattern: string; kind: 'regex' | 'glob'; at?: string },
): ToolResult {
  const shown = call.pattern.length > 200 ? `${call.pattern.slice(0, 200)}…` : call.pattern
  switch (step.kind) {
    case 'invalid':
      return {
        kind: 'error',
        code: 'INVALID_REQUEST',
        message:
          step.what === 'regex'
            ? `Not a valid regular expression: ${step.message}`
            : `Not a valid glob pattern: ${step.message}`,
      }
    case 'timeout':
      return {
        kind: 'error',
        code: 'TIMEOUT',
        message: [
          `${call.tool} stopped: matching ${call.kind === 'regex' ? `/${shown}/` : `"${shown}"`} took longer than`,
          `${step.budgetMs / 1000} s${call.at !== undefined ? ` (while matching ${call.at})` : ''}, so nothing is`,
          'reported. The pattern most likely backtracks catastrophically — nested or repeated unbounded quantifiers such',
          'as (a+)+, (.*)* or *a*a*a*b; simplify it, or narrow path/include.',
        ].join(' '),
      }
    case 'stopped':
      return STOPPED
    case 'failed':
      return { kind: 'error', code: 'INTERNAL', message: `${call.tool} failed: ${step.message}` }
  }
}

/** The characters a pattern argument may have (bounded before anything runs). */
export function checkPatternLength(name: string, pattern: string): ToolResult | undefined {
  if (pattern.length <= MAX_PATTERN_CHARS) return undefined
  return {
    kind: 'error',
    code: 'TOO_LARGE',
    message: `${name} is ${pattern.length} characters long; at most ${MAX_PATTERN_CHARS} are accepted.`,
  }
}
