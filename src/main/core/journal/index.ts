export { createJournal, type Journal } from './journal'
export { planApplyPatch } from './apply-patch'
export { parsePatch, applyChunks, type PatchChunk, type PatchOperation } from './apply-patch-parse'
export {
  FAULT_PHASES,
  INTENT_FAULT_PHASE,
  ROLLBACK_FAULT_PHASE,
  SimulatedCrash,
  faultHookFromEnv,
  type FaultHook,
  type FaultPhase,
} from './faults'
export { queryAllReceipts, queryReceipts, receiptOf, type ReceiptQuery } from './receipts'
export { lineStats } from './line-stats'
export { createdFoldersOf, ensureWorkspace, projectOfWorkspace, workspaceRevision } from './records'
export { deepestFirst, folderContents, outermostFirst, type FolderContents } from './folders'
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
export { JOURNAL_TEMP_PREFIX, isJournalTempName } from './temp-names'
export { readWriteTarget, parentWritable, type DiskState } from './target'
export type { MutateOptions, PlannedChange, TransactionEngine, Workspace } from './transaction'
export * from './types'
export { openJournalStore, type JournalStore } from './open'
export {
  expireRecoveryBlobs,
  laterLineageChanges,
  lineageAtPath,
  lineageChanges,
  lineageVersion,
  releaseRecoveryBlobs,
  sessionTransactionIds,
  turnLineages,
  turnLineagePaths,
  turnTransactions,
  scopeVersion,
  transactionPaths,
  transactionStatus,
  turnCommittedChanges,
  workspaceCounters,
  workspaceRoots,
  type LineageChange,
} from './queries'
export { createJournalModule, type JournalModule } from './module'
