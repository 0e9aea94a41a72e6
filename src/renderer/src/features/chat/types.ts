import type { ResultOf } from '../../../../shared/protocol'

export type Session = ResultOf<'session.list'>['sessions'][number]
export type TranscriptData = ResultOf<'session.transcript'>
export type TranscriptNode = TranscriptData['nodes'][number]
export type RestoreOffers = TranscriptData['restore']
export type RestorePlan = ResultOf<'history.plan'>
/** The single-turn restores a turn card offers. */
export type RestoreOperation = Extract<RestorePlan['operation'], 'undo' | 'redo' | 'revert' | 'reapply'>
export type Branch = TranscriptData['branches'][number]
export type Alignment = Session['alignment']
export type ApprovalDecision = 'approve' | 'reject' | 'always'
