import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Disposable } from '../../../shared/disposable'
import { INSPECT_LIMITS, type InspectionOutcome, type InspectLimits } from './inspect'

export interface InspectJob {
  readonly id: number
  readonly name: string
  /** A copy of the file's bytes, transferred to the worker. */
  readonly bytes: ArrayBuffer
  readonly limits: InspectLimits
}

export type InspectReply =
  { id: number; kind: 'done'; outcome: InspectionOutcome } | { id: number; kind: 'failed'; message: string }

/** The worker script: next to the bundle in a build, the TypeScript source (through tsx) under tests. */
function workerScript(): { file: string; execArgv?: string[] } {
  for (const candidate of [
    join(__dirname, 'office-inspect-worker.js'),
    join(__dirname, '..', 'office-inspect-worker.js'),
  ]) {
    if (existsSync(candidate)) return { file: candidate }
  }
  const source = join(__dirname, 'inspect-worker.ts')
  if (existsSync(source)) return { file: source, execArgv: ['--import', 'tsx'] }
  throw new Error('office-inspect-worker script not found')
}

export interface InspectRunner extends Disposable {
  /** Inspects `bytes` off the main thread; a bomb comes back as `refused` with the bound it crossed. */
  inspect(name: string, bytes: Buffer): Promise<InspectionOutcome>
}

/**
 * One long-lived inspection worker, jobs one at a time (an inspection is short; a crafted file is
 * stopped by the package bounds within a second or so). The time budget is enforced from outside:
 * a job still running at it gets its worker terminated — whatever it was doing, synchronous or
 * not — and the next job starts a fresh one. The worker's heap is capped too, so a file that
 * slips past the byte bounds ends that worker, not the engine.
 */
export function createInspectRunner(limits: InspectLimits = INSPECT_LIMITS): InspectRunner {
  let worker: Worker | undefined
  let nextId = 0
  let queue: Promise<unknown> = Promise.resolve()
  const start = () => {
    const script = workerScript()
    const created = new Worker(script.file, {
      ...(script.execArgv ? { execArgv: script.execArgv } : {}),
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    })
    created.unref()
    return created
  }
  function run(name: string, bytes: Buffer): Promise<InspectionOutcome> {
    const job = queue.then(
      () =>
        new Promise<InspectionOutcome>((resolve, reject) => {
          worker ??= start()
          const current = worker
          const id = ++nextId
          const settle = (outcome: InspectionOutcome | Error) => {
            clearTimeout(hardStop)
            current.off('message', onMessage)
            current.off('error', onError)
            current.off('exit', onExit)
            if (outcome instanceof Error) reject(outcome)
            else resolve(outcome)
          }
          const retire = () => {
            if (worker === current) worker = undefined
            void current.terminate()
          }
          const onMessage = (reply: InspectReply) => {
            if (reply.id !== id) return
            settle(reply.kind === 'done' ? reply.outcome : new Error(reply.message))
          }
          const onError = (error: Error & { code?: string }) => {
            retire()
            settle(
              error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? {
                    kind: 'refused',
                    limit: 'memory',
                    value: limits.heapMb,
                    message: `Inspecting the document needed more than ${limits.heapMb} MiB of memory.`,
                  }
                : error,
            )
          }
          const onExit = (code: number) => {
            retire()
            settle(new Error(`The inspection worker exited (code ${code}).`))
          }
          const hardStop = setTimeout(() => {
            retire()
            settle({
              kind: 'refused',
              limit: 'time',
              value: limits.timeMs,
              message: `Inspecting the document took longer than ${Math.round(limits.timeMs / 1000)} s and was stopped.`,
            })
          }, limits.timeMs)
          current.on('message', onMessage)
          current.on('error', onError)
          current.on('exit', onExit)
          const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
          current.postMessage({ id, name, bytes: copy, limits } satisfies InspectJob, [copy])
        }),
    )
    queue = job.catch(() => undefined)
    return job
  }
  return {
    inspect: run,
    dispose() {
      void worker?.terminate()
      worker = undefined
    },
  }
}
