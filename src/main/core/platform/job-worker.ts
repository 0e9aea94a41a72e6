import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Disposable } from '../../../shared/disposable'

export interface WorkerScript {
  readonly file: string
  readonly execArgv?: string[]
}

/**
 * A worker's script: the bundled file next to the main bundle in a build (`out/main`, or one level
 * up from `out/main/chunks`), else its TypeScript source through tsx under tests.
 */
export function workerScript(bundled: string, source: string): WorkerScript {
  for (const candidate of [join(__dirname, bundled), join(__dirname, '..', bundled)]) {
    if (existsSync(candidate)) return { file: candidate }
  }
  if (existsSync(source)) return { file: source, execArgv: ['--import', 'tsx'] }
  throw new Error(`${bundled}: worker script not found`)
}

/** How a job ended: the worker's reply, or the worker stopped from outside at a bound. */
export type JobEnd<Reply> = { kind: 'reply'; reply: Reply } | { kind: 'stopped'; reason: 'time' | 'memory' }

export interface JobWorker<Job, Reply> extends Disposable {
  /**
   * Runs `job` (posted with a fresh `id`, `transfer` moved, not copied). A job still running at
   * `budgetMs` gets its worker terminated — whatever it was doing, synchronous or not — and the
   * next job starts a fresh one; so does a job that runs the worker out of its heap. A worker that
   * crashes otherwise rejects the job.
   */
  run(job: Job, transfer: readonly ArrayBuffer[], budgetMs: number): Promise<JobEnd<Reply>>
}

/**
 * One long-lived worker, jobs one at a time: the engine's bounded workers (Office inspection,
 * documents, Review's diffs) share this, each mapping a stop to its own outcome.
 */
export function createJobWorker<Job extends object, Reply extends { readonly id: number }>(options: {
  script: () => WorkerScript
  /** The worker's V8 heap cap, when it parses hostile input. */
  heapMb?: number
  /** For the crash message ("The documents worker exited …"). */
  name: string
}): JobWorker<Job, Reply> {
  let worker: Worker | undefined
  let nextId = 0
  let queue: Promise<unknown> = Promise.resolve()
  const start = () => {
    const script = options.script()
    const created = new Worker(script.file, {
      ...(script.execArgv ? { execArgv: script.execArgv } : {}),
      ...(options.heapMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } } : {}),
    })
    created.unref()
    return created
  }
  function run(job: Job, transfer: readonly ArrayBuffer[], budgetMs: number): Promise<JobEnd<Reply>> {
    const ran = queue.then(
      () =>
        new Promise<JobEnd<Reply>>((resolve, reject) => {
          worker ??= start()
          const current = worker
          const id = ++nextId
          const settle = (end: JobEnd<Reply> | Error) => {
            clearTimeout(hardStop)
            current.off('message', onMessage)
            current.off('error', onError)
            current.off('exit', onExit)
            if (end instanceof Error) reject(end)
            else resolve(end)
          }
          const retire = () => {
            if (worker === current) worker = undefined
            void current.terminate()
          }
          const onMessage = (reply: Reply) => {
            if (reply.id === id) settle({ kind: 'reply', reply })
          }
          const onError = (error: Error & { code?: string }) => {
            retire()
            settle(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'stopped', reason: 'memory' } : error)
          }
          const onExit = (code: number) => {
            retire()
            settle(new Error(`The ${options.name} exited (code ${code}).`))
          }
          const hardStop = setTimeout(() => {
            retire()
            settle({ kind: 'stopped', reason: 'time' })
          }, budgetMs)
          current.on('message', onMessage)
          current.on('error', onError)
          current.on('exit', onExit)
          current.postMessage({ ...job, id }, [...transfer])
        }),
    )
    queue = ran.catch(() => undefined)
    return ran
  }
  return {
    run,
    dispose() {
      void worker?.terminate()
      worker = undefined
    },
  }
}
