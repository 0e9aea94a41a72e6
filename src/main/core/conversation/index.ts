export * from './types'
export { createSession } from './session-create'
export { getSession, listSessions, permissionModeOf, projectOfSession, sessionRow, type FilesState } from './sessions'
export {
  answerOf,
  chainOf,
  getNode,
  isTurnOf,
  nodeParts,
  promptText,
  runningNodeOf,
  runningTurnId,
  turnNumberOf,
  turnSummaryNamesCommandFiles,
  type ChainNode,
} from './nodes'
export { commonAncestorIndex, lastTurn, onChain, turnsAfter } from './dag'
export { bumpWriterEpoch, getBranch, leftSequenceAt } from './branches'
export { checkpointAt, checkpointById, type CheckpointRow } from './checkpoints'
export { changeSetIndex } from './change-sets'
export { runningParts, writeRunningPart } from './turn-parts'
export { transcript } from './transcript'
export { beginTurn, finalizeTurn, interruptedTurns, writerEpochCurrent, type RestoreApplying, type Turn } from './turns'
export { activeBranch, filesNodeOf, keepFiles, alignmentOf, type CodeDiffers } from './branching'
export { applyEffects, NEW_BRANCH, StaleEffects, withBranchId, type BranchEffects } from './effects'
export { DEFAULT_RETENTION, type RetentionPolicy } from './retention'
export {
  createConversationModule,
  type CodePort,
  type ConversationModule,
  type RestoreOffers,
  type TurnApi,
} from './module'
export {
  classifyTurnChanges,
  heldTurnChanges,
  patchFilesFrom,
  turnCommandNotes,
  type CommandPathChange,
  type TurnCommandChanges,
  type PatchFiles,
} from './turn-changes'
