import { join } from 'node:path'
import type { Disposable } from '../../../shared/disposable'
import { createJobWorker, workerScript } from '../platform'
import type { DocumentReply, DocumentTask } from './worker-protocol'

export interface DocumentLimits {
  /** Wall time of one job, from the moment it is handed to the worker. */
  readonly timeMs: number
  /** The worker's V8 heap: inflated parts and parsed XML live there. */
  readonly heapMb: number
  /** The largest document (each side of a diff) handed to the worker. */
  readonly maxInputBytes: number
  /** The largest document an edit may produce. */
  readonly maxOutputBytes: number
  /** Converting an ODF or legacy document for `read` (LibreOffice): wall time, waiting behind a preview included. */
  readonly convertTimeMs: number
  /** The largest ODF or legacy document converted for `read`. */
  readonly convertMaxInputBytes: number
}

/**
 * Decision: a document the agent edits is read whole into memory, like `read`'s 64 MiB bound;
 * an edit never grows it past that either. 20 s covers a many-hundred-page report on a slow
 * machine; a crafted package is stopped by the patchers' own part bounds well before.
 */
export const DOCUMENT_LIMITS: DocumentLimits = {
  timeMs: 20_000,
  heapMb: 512,
  maxInputBytes: 64 * 1024 * 1024,
  maxOutputBytes: 64 * 1024 * 1024,
  // Decision: a minute covers a long legacy report on a cold LibreOffice start; 32 MiB of ODF or
  // DOC source already converts to more than a model can page through usefully.
  convertTimeMs: 60_000,
  convertMaxInputBytes: 32 * 1024 * 1024,
}

export type DocumentLimitKind = 'time' | 'memory' | 'input-bytes' | 'output-bytes'

export type DocumentRunOutcome =
  DocumentReply | { kind: 'limit'; limit: DocumentLimitKind; value: number; message: string }

const sizeOf = (task: DocumentTask) =>
  task.op === 'diff' ? Math.max(task.before?.byteLength ?? 0, task.after?.byteLength ?? 0) : task.bytes.byteLength

const transferList = (task: DocumentTask): ArrayBuffer[] =>
  task.op === 'diff' ? [task.before, task.after].filter((b): b is ArrayBuffer => b !== null) : [task.bytes]

export interface DocumentRunner extends Disposable {
  /** Runs `task` off the main thread within `budgetMs`, never longer than the limits' time. */
  run(task: DocumentTask, budgetMs?: number): Promise<DocumentRunOutcome>
}

/**
 * One long-lived worker, jobs one at a time (as the Office inspection runner). The time budget is
 * enforced from outside: a job still running at it gets its worker terminated — whatever it was
 * doing, synchronous or not — and the next job starts a fresh one. The heap is capped, so a
 * document that slips past the patchers' bounds ends that worker, not the engine.
 */
export function createDocumentRunner(limits: DocumentLimits = DOCUMENT_LIMITS): DocumentRunner {
  const worker = createJobWorker<DocumentTask, DocumentReply>({
    script: () => workerScript('documents-worker.js', join(__dirname, 'document-worker.ts')),
    heapMb: limits.heapMb,
    name: 'documents worker',
  })
  const mib = (bytes: number) => Math.round(bytes / (1024 * 1024))
  return {
    async run(task, requestedMs = limits.timeMs) {
      const budgetMs = Math.min(requestedMs, limits.timeMs)
      if (sizeOf(task) > limits.maxInputBytes) {
        return {
          kind: 'limit',
          limit: 'input-bytes',
          value: limits.maxInputBytes,
          message: `The document is larger than ${mib(limits.maxInputBytes)} MiB.`,
        }
      }
      const end = await worker.run(task, transferList(task), budgetMs)
      if (end.kind === 'stopped') {
        return end.reason === 'memory'
          ? {
              kind: 'limit',
              limit: 'memory',
              value: limits.heapMb,
              message: `Working on the document needed more than ${limits.heapMb} MiB of memory and was stopped.`,
            }
          : {
              kind: 'limit',
              limit: 'time',
              value: budgetMs,
              message: `Working on the document took longer than ${Math.max(1, Math.round(budgetMs / 1000))} s and was stopped.`,
            }
      }
      const reply = end.reply
      if (reply.kind === 'done' && reply.value.op === 'edit' && reply.value.bytes.length > limits.maxOutputBytes) {
        return {
          kind: 'limit',
          limit: 'output-bytes',
          value: limits.maxOutputBytes,
          message: `The edited document would be larger than ${mib(limits.maxOutputBytes)} MiB.`,
        }
      }
      return reply
    },
    dispose: () => worker.dispose(),
  }
}
