// Runs review diffs off the main thread (spec 07). Loaded by path as a worker: from the build
// (out/main/diff-worker.js) or, under tests, from this source file through tsx
// (`platform/job-worker.ts`); it imports nothing from the project.
import { parentPort } from 'node:worker_threads'
import { structuredPatch } from 'diff'

interface DiffJob {
  readonly id: number
  readonly before: string
  readonly after: string
  readonly budgetMs: number
  readonly context?: number
}

parentPort?.on('message', (job: DiffJob) => {
  const patch = structuredPatch('a', 'b', job.before, job.after, undefined, undefined, {
    context: job.context ?? 3,
    timeout: job.budgetMs,
  })
  parentPort?.postMessage(
    patch === undefined ? { id: job.id, kind: 'timeout' } : { id: job.id, kind: 'ok', hunks: patch.hunks },
  )
})
