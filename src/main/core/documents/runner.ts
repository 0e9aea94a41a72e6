import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { Disposable } from '../../../shared/disposable'
import type { DocumentJob, DocumentReply, DocumentTask } from './worker-protocol'

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

/** The worker script: next to the bundle in a build, the TypeScript source (through tsx) under tests. */
function workerScript(): { file: string; execArgv?: string[] } {
  for (const candidate of [join(__dirname, 'documents-worker.js'), join(__dirname, '..', 'documents-worker.js')]) {
    if (existsSync(candidate)) return { file: candidate }
  }
  const source = join(__dirname, 'document-worker.ts')
  if (existsSync(source)) return { file: source, execArgv: ['--import', 'tsx'] }
  throw new Error('documents-worker script not found')
}

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
  function run(task: DocumentTask, requestedMs = limits.timeMs): Promise<DocumentRunOutcome> {
    const budgetMs = Math.min(requestedMs, limits.timeMs)
    if (sizeOf(task) > limits.maxInputBytes) {
      return Promise.resolve({
        kind: 'limit',
        limit: 'input-bytes',
        value: limits.maxInputBytes,
        message: `The document is larger than ${Math.round(limits.maxInputBytes / (1024 * 1024))} MiB.`,
      })
    }
    const job = queue.then(
      () =>
        new Promise<DocumentRunOutcome>((resolve, reject) => {
          worker ??= start()
          const current = worker
          const id = ++nextId
          const settle = (outcome: DocumentRunOutcome | Error) => {
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
          const onMessage = (reply: DocumentReply) => {
            if (reply.id !== id) return
            if (
              reply.kind === 'done' &&
              reply.value.op === 'edit' &&
              reply.value.bytes.length > limits.maxOutputBytes
            ) {
              settle({
                kind: 'limit',
                limit: 'output-bytes',
                value: limits.maxOutputBytes,
                message: `The edited document would be larger than ${Math.round(limits.maxOutputBytes / (1024 * 1024))} MiB.`,
              })
              return
            }
            settle(reply)
          }
          const onError = (error: Error & { code?: string }) => {
            retire()
            settle(
              error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? {
                    kind: 'limit',
                    limit: 'memory',
                    value: limits.heapMb,
                    message: `Working on the document needed more than ${limits.heapMb} MiB of memory and was stopped.`,
                  }
                : error,
            )
          }
          const onExit = (code: number) => {
            retire()
            settle(new Error(`The documents worker exited (code ${code}).`))
          }
          const hardStop = setTimeout(() => {
            retire()
            settle({
              kind: 'limit',
              limit: 'time',
              value: budgetMs,
              message: `Working on the document took longer than ${Math.max(1, Math.round(budgetMs / 1000))} s and was stopped.`,
            })
          }, budgetMs)
          current.on('message', onMessage)
          current.on('error', onError)
          current.on('exit', onExit)
          current.postMessage({ ...task, id } satisfies DocumentJob, transferList(task))
        }),
    )
    queue = job.catch(() => undefined)
    return job
  }
  return {
    run,
    dispose() {
      void worker?.terminate()
      worker = undefined
    },
  }
}
