// The session store (spec 01, renderer): sessions, transcripts, turns and restore offers, read by
// Chat and Review alike. It sits below both; neither imports the other.
export { sessionStoreFor, KEPT_TRANSCRIPTS, type SessionChanges, type SessionsState } from './session-store'
export { useSessions, useTranscript, useTurnsWithChanges } from './use-session'
export { turnsWithChanges, type TurnWithChanges } from './turns'
export {
  activeLineage,
  pruneLiveTurns,
  summaryOf,
  textOf,
  withLivePart,
  withLiveParts,
  type LiveTurns,
} from './transcript-model'
export { heldReasonText } from './held-reason'
export type { Alignment, Branch, Failure, RestoreOffers, Session, TranscriptData, TranscriptNode } from './types'
