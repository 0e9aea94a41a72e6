import { join } from 'node:path'
import type { StructuredPatchHunk } from 'diff'
import { createJobWorker, workerScript } from '../platform'

export type DiffOutcome = { kind: 'ok'; hunks: StructuredPatchHunk[] } | { kind: 'timeout' }

interface DiffJob {
  readonly before: string
  readonly after: string
  readonly budgetMs: number
  readonly context: number
}

/**
 * One long-lived diff worker, jobs one at a time. The budget is enforced twice: the diff library
 * gives up at it, and a job still running a little after it gets its worker terminated (and a
 * fresh one started) — the main thread never waits on a pathological pair.
 */
export function createDiffRunner() {
  const worker = createJobWorker<DiffJob, { id: number } & DiffOutcome>({
    script: () => workerScript('diff-worker.js', join(__dirname, 'diff-worker.ts')),
    name: 'diff worker',
  })
  return {
    async run(before: string, after: string, budgetMs: number, context = 3): Promise<DiffOutcome> {
      const end = await worker.run({ before, after, budgetMs, context }, [], budgetMs + 500)
      if (end.kind === 'stopped') return { kind: 'timeout' }
      const { id: _id, ...outcome } = end.reply
      return outcome
    },
    dispose: () => worker.dispose(),
  }
}

export type DiffRunner = ReturnType<typeof createDiffRunner>
