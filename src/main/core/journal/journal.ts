import type { BlobStore, Database, IdempotencyStore, WorkspaceLock } from '../store'
import type { FaultHook } from './faults'
import { queryReceipts, type ReceiptQuery } from './receipts'
import { recoverPrepared, type RecoveryReport } from './recover'
import { createTransactionEngine, type TransactionEngine } from './transaction'
import type { JournalLimits, Receipt } from './types'

export interface Journal extends TransactionEngine {
  readonly limits: JournalLimits
  receipts(query: ReceiptQuery): Receipt[]
  /** Settles every `prepared` transaction left by a stopped process. Run before serving requests. */
  recover(rootOf: (workspaceId: string) => string | undefined): Promise<RecoveryReport>
}

export function createJournal(deps: {
  db: Database
  blobs: BlobStore
  lock: WorkspaceLock
  idempotency: IdempotencyStore
  limits: JournalLimits
  fault: FaultHook
  /** Real path of the data directory (never a write target, even inside a project). */
  dataDir: string
}): Journal {
  const engine = createTransactionEngine(deps)
  return {
    limits: deps.limits,
    mutate: (workspace, attribution, plan, options) => engine.mutate(workspace, attribution, plan, options),
    settlePending: () => engine.settlePending(),
    dispose: () => engine.dispose(),
    receipts: (query) => queryReceipts(deps.db, query),
    recover: (rootOf) =>
      recoverPrepared(deps.db, deps.blobs, deps.idempotency, rootOf, {
        maxBytes: deps.limits.maxFileBytes,
        dataDir: deps.dataDir,
      }),
  }
}
