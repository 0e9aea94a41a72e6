import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { StructuredPatchHunk } from 'diff'

export type DiffOutcome = { kind: 'ok'; hunks: StructuredPatchHunk[] } | { kind: 'timeout' }

/** The worker script: next to the bundle in a build, the TypeScript source under tests. */
function workerScript(): string {
  for (const candidate of [
    join(__dirname, 'diff-worker.js'),
    join(__dirname, '..', 'diff-worker.js'),
    join(__dirname, 'diff-worker.ts'),
  ]) {
    if (existsSync(candidate)) return candidate
  }
  throw new Error('diff-worker script not found')
}

/**
 * One long-lived diff worker, jobs one at a time. The budget is enforced twice: the diff library
 * gives up at it, and a job still running a little after it gets its worker terminated (and a
 * fresh one started) — the main thread never waits on a pathological pair.
 */
export function createDiffRunner() {
  let worker: Worker | undefined
  let nextId = 0
  let queue = Promise.resolve()
  const start = () => {
    const created = new Worker(workerScript())
    created.unref()
    return created
  }
  function run(before: string, after: string, budgetMs: number, context = 3): Promise<DiffOutcome> {
    const job = queue.then(
      () =>
        new Promise<DiffOutcome>((resolve, reject) => {
          worker ??= start()
          const current = worker
          const id = ++nextId
          const settle = (outcome: DiffOutcome | Error) => {
            clearTimeout(hardStop)
            current.off('message', onMessage)
            current.off('error', onError)
            if (outcome instanceof Error) reject(outcome)
            else resolve(outcome)
          }
          const onMessage = (message: { id: number } & DiffOutcome) => {
            if (message.id === id) settle(message)
          }
          const onError = (error: Error) => {
            worker = undefined
            settle(error)
          }
          const hardStop = setTimeout(() => {
            worker = undefined
            void current.terminate()
            settle({ kind: 'timeout' })
          }, budgetMs + 500)
          current.on('message', onMessage)
          current.on('error', onError)
          current.postMessage({ id, before, after, budgetMs, context })
        }),
    )
    queue = job.then(
      () => undefined,
      () => undefined,
    )
    return job
  }
  return {
    run,
    dispose: () => {
      void worker?.terminate()
      worker = undefined
    },
  }
}

export type DiffRunner = ReturnType<typeof createDiffRunner>
