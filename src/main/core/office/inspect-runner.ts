import { join } from 'node:path'
import type { Disposable } from '../../../shared/disposable'
import { createJobWorker, workerScript } from '../platform'
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
  const worker = createJobWorker<Omit<InspectJob, 'id'>, InspectReply>({
    script: () => workerScript('office-inspect-worker.js', join(__dirname, 'inspect-worker.ts')),
    heapMb: limits.heapMb,
    name: 'inspection worker',
  })
  return {
    async inspect(name, bytes) {
      const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
      const end = await worker.run({ name, bytes: copy, limits }, [copy], limits.timeMs)
      if (end.kind === 'reply') {
        if (end.reply.kind === 'failed') throw new Error(end.reply.message)
        return end.reply.outcome
      }
      return end.reason === 'memory'
        ? {
            kind: 'refused',
            limit: 'memory',
            value: limits.heapMb,
            message: `Inspecting the document needed more than ${limits.heapMb} MiB of memory.`,
          }
        : {
            kind: 'refused',
            limit: 'time',
            value: limits.timeMs,
            message: `Inspecting the document took longer than ${Math.round(limits.timeMs / 1000)} s and was stopped.`,
          }
    },
    dispose: () => worker.dispose(),
  }
}
