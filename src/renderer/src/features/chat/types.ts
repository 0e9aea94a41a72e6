import type { ResultOf } from '../../../../shared/protocol'

export type RestorePlan = ResultOf<'history.plan'>
/** The single-turn restores a turn card offers. */
export type RestoreOperation = Extract<RestorePlan['operation'], 'undo' | 'redo' | 'revert' | 'reapply'>
export type ApprovalDecision = 'approve' | 'reject' | 'always'
