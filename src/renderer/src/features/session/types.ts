import type { ResultOf } from '../../../../shared/protocol'
import type { RequestOutcome } from '../../transport'

export type Session = ResultOf<'session.list'>['sessions'][number]
export type TranscriptData = ResultOf<'session.transcript'>
export type TranscriptNode = TranscriptData['nodes'][number]
/** What Undo and Redo may act on now (spec 04): read with the transcript, so both agree. */
export type RestoreOffers = TranscriptData['restore']
export type Branch = TranscriptData['branches'][number]
export type Alignment = Session['alignment']
/** A request that did not succeed, for the view to word. */
export type Failure = Exclude<RequestOutcome<unknown>, { kind: 'ok' }>
