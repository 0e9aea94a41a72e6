import type { ResultOf } from '../../../../shared/protocol'

export type Session = ResultOf<'session.list'>['sessions'][number]
export type TranscriptData = ResultOf<'session.transcript'>
export type TranscriptNode = TranscriptData['nodes'][number]
export type RestoreOffers = TranscriptData['restore']
export type RestorePlan = ResultOf<'history.plan'>
export type RestoreOperation = RestorePlan['operation']
export type ApprovalDecision = 'approve' | 'reject' | 'always'
