import type { BlobStore, Database, IdempotencyStore, WorkspaceLock } from '../store'
import type { FaultHook } from './faults'
import { queryReceipts, type ReceiptQuery } from './receipts'
import { recoverPrepared, type RecoveryReport } from './recover'
import { createTransactionEngine, type TransactionEngine } from './transaction'
import type { JournalLimits, Receipt } from './types'

export { planApplyPatch } from './apply-patch'
export { parsePatch, applyChunks, type PatchChunk, type PatchOperation } from './apply-patch-parse'
export {
  FAULT_PHASES,
  INTENT_FAULT_PHASE,
  ROLLBACK_FAULT_PHASE,
  faultHookFromEnv,
  type FaultHook,
  type FaultPhase,
} from './faults'
export { foldByLineage, queryReceipts, type NetChange, type ReceiptQuery } from './receipts'
export { ensureWorkspace, workspaceRevision } from './records'
export type { RecoveryReport } from './recover'
export {
  planCopy,
  planCreate,
  planDelete,
  planEdit,
  planRename,
  planWrite,
  type Baseline,
  type MutatorContext,
  type WriteSource,
} from './mutators'
export { JOURNAL_TEMP_PREFIX } from './transaction'
export type { MutateOptions, PlannedChange, TransactionEngine, Workspace } from './transaction'
export * from './types'

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
}): Journal {
  const engine = createTransactionEngine(deps)
  return {
    limits: deps.limits,
    mutate: (workspace, attribution, plan, options) => engine.mutate(workspace, attribution, plan, options),
    receipts: (query) => queryReceipts(deps.db, query),
    recover: (rootOf) => recoverPrepared(deps.db, deps.blobs, deps.idempotency, rootOf, deps.limits.maxFileBytes),
  }
}
