// The Office inspection worker (spec 01: the engine's event loop never waits on parsing a file it
// was handed). Loaded by path: from the build (out/main/office-inspect-worker.js) or, under tests,
// from this source through tsx. Inflating, decoding and scanning a crafted package all happen
// here; the runner ends this thread when a job outlives its time budget.
import { parentPort } from 'node:worker_threads'
import { inspectWithinLimits } from './inspect'
import type { InspectJob, InspectReply } from './inspect-runner'

parentPort?.on('message', (job: InspectJob) => {
  void inspectWithinLimits(job.name, Buffer.from(job.bytes), job.limits).then(
    (outcome): void => parentPort?.postMessage({ id: job.id, kind: 'done', outcome } satisfies InspectReply),
    (error: unknown): void =>
      parentPort?.postMessage({ id: job.id, kind: 'failed', message: String(error) } satisfies InspectReply),
  )
})
