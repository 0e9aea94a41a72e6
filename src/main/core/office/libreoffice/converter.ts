import { mkdir } from 'node:fs/promises'
import type { Disposable } from '../../../../shared/disposable'
import { convertOneShot } from './one-shot'
import { removeStaleProfiles, sofficeEnvironment } from './profile'
import { startResident, type ResidentListener } from './resident'
import type { LibreOfficeInstall } from './detect'
import type { ConversionJob, ConversionOutcome, ConversionPhase } from './types'

/**
 * The LibreOffice tier's single entry point. Conversions run one at a time (LibreOffice is
 * single-threaded per process and the machine may have two cores). Each goes to the resident
 * listener when it can be had; when the listener crashes, times out or cannot start, that document
 * is converted again by the one-shot CLI — the person still gets the result — and the listener is
 * restarted for the next one. A listener that keeps crashing is rested for a while (one-shot only).
 */
export interface Converter extends Disposable {
  convert(job: ConversionJob, onPhase?: (phase: ConversionPhase) => void): Promise<ConversionOutcome>
  /** Which path served recent conversions; for tests and status. */
  readonly stats: { starts: number; resident: number; oneShot: number; restarts: number; fallbacks: number }
  /** The resident listener's soffice pid, if running (tests kill it to prove the supervisor). */
  residentPid(): number | undefined
}

export interface ConverterOptions {
  readonly install: LibreOfficeInstall
  readonly workDir: string
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly startTimeoutMs?: number
  /** Stop the listener after this long without work (it holds ~200 MB). */
  readonly idleMs?: number
  /** Crashes within `crashWindowMs` after which the listener rests for `restMs`. */
  readonly maxCrashes?: number
  readonly crashWindowMs?: number
  readonly restMs?: number
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
}

export function createConverter(options: ConverterOptions): Converter {
  const env = sofficeEnvironment(options.env ?? process.env)
  const stats = { starts: 0, resident: 0, oneShot: 0, restarts: 0, fallbacks: 0 }
  let listener: ResidentListener | undefined
  let starting: Promise<ResidentListener | undefined> | undefined
  let queue: Promise<unknown> = Promise.resolve()
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  let crashes: number[] = []
  let restingUntil = 0
  let disposed = false

  void removeStaleProfiles().catch(() => undefined)
  const residentPossible = () => options.install.python !== null && Date.now() >= restingUntil && !disposed

  async function ensureListener(): Promise<ResidentListener | undefined> {
    if (listener) return listener
    starting ??= (async () => {
      try {
        await mkdir(options.workDir, { recursive: true, mode: 0o700 })
        const started = await startResident({
          soffice: options.install.soffice,
          python: options.install.python ?? '',
          workDir: options.workDir,
          env,
          startTimeoutMs: options.startTimeoutMs ?? 60_000,
        })
        if (disposed) {
          started.dispose()
          return undefined
        }
        listener = started
        stats.starts++
        void started.ended.then(() => {
          if (listener === started) listener = undefined
        })
        return started
      } catch (error) {
        noteCrash()
        options.log?.('warn', 'The LibreOffice listener could not start; converting one document at a time', {
          error: String(error),
        })
        return undefined
      } finally {
        starting = undefined
      }
    })()
    return starting
  }

  function noteCrash() {
    const now = Date.now()
    crashes = [...crashes.filter((t) => now - t < (options.crashWindowMs ?? 10 * 60_000)), now]
    if (crashes.length >= (options.maxCrashes ?? 3)) {
      restingUntil = now + (options.restMs ?? 5 * 60_000)
      crashes = []
    }
  }

  function armIdle() {
    clearTimeout(idleTimer)
    idleTimer = setTimeout(
      () => {
        listener?.dispose()
        listener = undefined
      },
      options.idleMs ?? 10 * 60_000,
    )
    idleTimer.unref()
  }

  async function run(job: ConversionJob, onPhase?: (phase: ConversionPhase) => void): Promise<ConversionOutcome> {
    await mkdir(options.workDir, { recursive: true, mode: 0o700 })
    if (residentPossible()) {
      if (!listener) onPhase?.('starting-engine')
      const resident = await ensureListener()
      if (resident) {
        onPhase?.('converting')
        const outcome = await resident.convert(job)
        armIdle()
        if (outcome.kind === 'ok') {
          stats.resident++
          return outcome
        }
        if (outcome.reason !== 'crashed' && outcome.reason !== 'timeout' && outcome.reason !== 'failed') return outcome
        // The listener died or hung on this document: it is restarted for the next one, and this
        // one is tried once more the slow, independent way.
        stats.fallbacks++
        stats.restarts++
        noteCrash()
        resident.dispose()
        await resident.ended
        options.log?.('warn', 'The LibreOffice listener failed on a document; converting it one-shot', {
          reason: outcome.reason,
        })
        if (job.signal?.aborted || disposed) return outcome
      }
    }
    if (disposed) return { kind: 'failed', reason: 'aborted', message: 'LibreOffice was shut down.' }
    onPhase?.('converting')
    const outcome = await convertOneShot(options.install.soffice, options.workDir, job, env)
    if (outcome.kind === 'ok') stats.oneShot++
    return outcome
  }

  return {
    stats,
    residentPid: () => listener?.pid,
    convert(job, onPhase) {
      onPhase?.('queued')
      const result = queue.then(() => run(job, onPhase))
      queue = result.catch(() => undefined)
      return result
    },
    dispose() {
      disposed = true
      clearTimeout(idleTimer)
      listener?.dispose()
      listener = undefined
    },
  }
}
