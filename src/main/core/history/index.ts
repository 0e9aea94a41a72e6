export {
  createSession,
  getSession,
  listSessions,
  transcript,
  getBranch,
  updateSession,
  runningTurnId,
  changeSetIndex,
  interruptedTurns,
  isTurnOf,
  permissionModeOf,
  runningParts,
  writeRunningPart,
} from './sessions'
export { beginTurn, finalizeTurn, writerEpochCurrent, type Turn } from './turns'
export * from './types'
export { createRestoreService, type IntentStatus, type RestoreService } from './apply-restore'
export {
  planRestore,
  restoreOffers,
  turnUndone,
  type Conflict,
  type RestoreAction,
  type RestoreOperation,
  type RestorePlan,
} from './plan-restore'
export { applyRetention, DEFAULT_RETENTION, type RetentionPolicy } from './retention'
export { turnCommandChanges, turnParts, type CommandSnapshots } from './plan-commands'
export { conflictDiff } from './conflict-diff'
export { createHistoryModule, type HistoryModule, type TurnApi } from './module'
