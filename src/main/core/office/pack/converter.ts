import { fork, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, extname, join } from 'node:path'
import type { Converter } from '../libreoffice/converter'
import type { ConversionFailure, ConversionJob, ConversionOutcome, ConversionPhase } from '../libreoffice/types'
import type { PackReply, PackRequest } from './messages'

export interface PackConverterOptions {
  /** The installed pack's `package/` folder. */
  readonly packageDir: string
  /** Worker RSS above this ends it (the WASM heaps live outside V8's old space). Measured ~1.8 GB. */
  readonly maxRssBytes?: number
  /** V8 heap of the worker's own JavaScript (`--max-old-space-size`). */
  readonly maxOldSpaceMb?: number
  /** The worker is stopped after this long without work; it holds ~1.8 GB. */
  readonly idleMs?: number
  /** Loading the pack (~2.6 s measured; much more on a busy machine). */
  readonly startTimeoutMs?: number
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
}

export const PACK_DEFAULTS = {
  maxRssBytes: 3 * 1024 * 1024 * 1024,
  maxOldSpaceMb: 1024,
  idleMs: 2 * 60_000,
  startTimeoutMs: 120_000,
} as const

/** The worker script: next to the bundle in a build, the TypeScript source (through tsx) under tests. */
function workerScript(): { file: string; execArgv: string[] } {
  for (const candidate of [join(__dirname, 'office-pack-worker.js'), join(__dirname, '..', 'office-pack-worker.js')]) {
    if (existsSync(candidate)) return { file: candidate, execArgv: [] }
  }
  const source = join(__dirname, 'worker.ts')
  if (existsSync(source)) return { file: source, execArgv: ['--import', 'tsx'] }
  throw new Error('office-pack-worker script not found')
}

/** The folder holding the engine's own `zod`, lent to the pack (its only dependency). */
function zodModulesDir(): string {
  const resolved = createRequire(join(__dirname, 'noop.js')).resolve('zod/package.json')
  return dirname(dirname(resolved))
}

interface Worker {
  readonly child: ChildProcess
  readonly ready: Promise<{ ok: true } | { ok: false; message: string }>
  /** Why it ended, once it has: the first cause wins (memory cap, timeout, exit). */
  endReason?: string
  readonly ended: Promise<void>
}

type Attempt = ConversionOutcome | { kind: 'worker-died'; message: string }

/**
 * The pack tier: one worker process, jobs one at a time (as the native listener). A worker that
 * dies on a document — crash, memory cap — is replaced and the document tried once more; a
 * second death is a precise failure. A job past its time budget ends the worker (the WASM cannot
 * be interrupted otherwise) and is not retried: the same document would take as long again.
 */
export function createPackConverter(options: PackConverterOptions): Converter {
  const settings = { ...PACK_DEFAULTS, ...stripUndefined(options) }
  const stats = { starts: 0, resident: 0, oneShot: 0, restarts: 0, fallbacks: 0 }
  let worker: Worker | undefined
  let queue: Promise<unknown> = Promise.resolve()
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  let nextId = 0
  let disposed = false
  const replies = new Set<(reply: PackReply) => void>()

  function start(): Worker {
    const script = workerScript()
    const child = fork(script.file, [], {
      execArgv: [...script.execArgv, `--max-old-space-size=${settings.maxOldSpaceMb}`],
      env: {
        ...workerEnvironment(process.env),
        // Electron runs the script as plain Node; Node ignores the variable.
        ELECTRON_RUN_AS_NODE: '1',
        NODE_PATH: zodModulesDir(),
        RETRACE_OFFICE_PACK_DIR: options.packageDir,
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000)
    })
    const created: Worker = {
      child,
      ready: new Promise((resolve) => {
        const timer = setTimeout(() => {
          end(created, `the pack did not load within ${settings.startTimeoutMs} ms`)
          resolve({ ok: false, message: created.endReason ?? '' })
        }, settings.startTimeoutMs)
        child.on('message', (reply: PackReply) => {
          if (reply.type === 'ready') {
            clearTimeout(timer)
            resolve({ ok: true })
          } else if (reply.type === 'failed-start') {
            clearTimeout(timer)
            created.endReason ??= `the pack could not load (${reply.message})`
            resolve({ ok: false, message: created.endReason })
          }
        })
        child.on('exit', () => {
          clearTimeout(timer)
          resolve({ ok: false, message: created.endReason ?? `the pack worker exited while loading${tailOf(stderr)}` })
        })
      }),
      ended: new Promise((resolve) => child.on('exit', () => resolve())),
    }
    child.on('message', (reply: PackReply) => {
      if (reply.type === 'rss' && reply.rss > settings.maxRssBytes) {
        end(
          created,
          `it used ${Math.round(reply.rss / 1048576)} MB, over the ${Math.round(settings.maxRssBytes / 1048576)} MB cap`,
        )
        return
      }
      for (const listener of replies) listener(reply)
    })
    child.on('exit', (code, signal) => {
      created.endReason ??= `the pack worker exited (${signal ?? `code ${code}`})${tailOf(stderr)}`
      if (worker === created) worker = undefined
    })
    child.on('error', () => undefined)
    stats.starts++
    return created
  }

  function armIdle() {
    clearTimeout(idleTimer)
    idleTimer = setTimeout(() => stop(), settings.idleMs)
    idleTimer.unref()
  }

  function stop() {
    if (worker) end(worker, 'stopped')
  }

  /** Ends `target` now; the next job starts a fresh worker without waiting for this one's exit. */
  function end(target: Worker, reason: string) {
    if (worker === target) worker = undefined
    target.endReason ??= reason
    if (target.child.exitCode === null && target.child.signalCode === null) target.child.kill('SIGKILL')
  }

  async function attempt(job: ConversionJob, onPhase?: (phase: ConversionPhase) => void): Promise<Attempt> {
    if (!worker) onPhase?.('starting-engine')
    const current = (worker ??= start())
    const loaded = await current.ready
    if (!loaded.ok) return { kind: 'worker-died', message: loaded.message }
    onPhase?.('converting')
    const id = ++nextId
    const request: PackRequest = {
      type: 'convert',
      id,
      input: job.input,
      output: job.output,
      inputFormat: extname(job.input).slice(1).toLowerCase(),
      outputFormat: job.target,
    }
    return new Promise<Attempt>((resolve) => {
      let settled = false
      const finish = (outcome: Attempt) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        replies.delete(listener)
        job.signal?.removeEventListener('abort', abort)
        resolve(outcome)
      }
      const listener = (reply: PackReply) => {
        if (reply.type !== 'done' || reply.id !== id) return
        finish(
          reply.ok
            ? { kind: 'ok', engine: 'wasm' }
            : { kind: 'failed', reason: failureOf(reply.code), message: reply.message },
        )
      }
      const timer = setTimeout(() => {
        end(current, 'timeout')
        finish({
          kind: 'failed',
          reason: 'timeout',
          message: `The LibreOffice pack did not finish within ${Math.round(job.timeoutMs / 1000)} s.`,
        })
      }, job.timeoutMs)
      const abort = () => {
        end(current, 'aborted')
        finish({ kind: 'failed', reason: 'aborted', message: 'The conversion was cancelled.' })
      }
      job.signal?.addEventListener('abort', abort, { once: true })
      replies.add(listener)
      void current.ended.then(() =>
        finish({ kind: 'worker-died', message: current.endReason ?? 'the pack worker exited' }),
      )
      current.child.send(request, (error) => {
        if (error) finish({ kind: 'worker-died', message: `the pack worker could not be reached (${error.message})` })
      })
    })
  }

  async function run(job: ConversionJob, onPhase?: (phase: ConversionPhase) => void): Promise<ConversionOutcome> {
    if (disposed) return { kind: 'failed', reason: 'aborted', message: 'The LibreOffice pack was shut down.' }
    clearTimeout(idleTimer)
    try {
      const first = await attempt(job, onPhase)
      if (first.kind !== 'worker-died') {
        if (first.kind === 'ok') stats.resident++
        return first
      }
      // One more try in a fresh worker: a WASM crash is often the state a previous document left.
      stats.restarts++
      stats.fallbacks++
      options.log?.('warn', 'The LibreOffice pack worker died on a document; trying it once more', {
        reason: first.message,
      })
      await rm(job.output, { force: true })
      if (disposed || job.signal?.aborted)
        return { kind: 'failed', reason: 'aborted', message: 'The conversion was cancelled.' }
      const second = await attempt(job, onPhase)
      if (second.kind !== 'worker-died') {
        if (second.kind === 'ok') stats.resident++
        return second
      }
      await rm(job.output, { force: true })
      return {
        kind: 'failed',
        reason: 'crashed',
        message: `The LibreOffice pack failed twice on this document: ${second.message}.`,
      }
    } finally {
      if (!disposed) armIdle()
    }
  }

  return {
    stats,
    residentPid: () => worker?.child.pid,
    convert(job, onPhase) {
      onPhase?.('queued')
      const result = queue.then(() => run(job, onPhase))
      queue = result.catch(() => undefined)
      return result
    },
    dispose() {
      disposed = true
      clearTimeout(idleTimer)
      stop()
    },
  }
}

function failureOf(code: string): ConversionFailure {
  switch (code) {
    case 'PASSWORD_REQUIRED':
      return 'password'
    case 'LOAD_FAILED':
    case 'CORRUPTED_DOCUMENT':
    case 'INVALID_INPUT':
      return 'load-failed'
    case 'UNSUPPORTED_FORMAT':
      return 'wrong-family'
    default:
      return 'failed'
  }
}

/**
 * What the pack's process may see of the engine's environment: where temp files and the system
 * live, nothing else — no provider keys or tokens reach third-party code that only converts.
 */
const WORKER_ENV_KEYS = ['PATH', 'TMPDIR', 'TMP', 'TEMP', 'HOME', 'USERPROFILE', 'SystemRoot', 'LANG', 'LC_ALL']

function workerEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const key of WORKER_ENV_KEYS) {
    const value = env[key]
    if (value !== undefined) kept[key] = value
  }
  return kept
}

function tailOf(stderr: string): string {
  const last = stderr.trim().split('\n').slice(-2).join(' ').slice(-300)
  return last === '' ? '' : `: ${last}`
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
