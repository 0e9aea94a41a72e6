import { expireRecoveryBlobs } from '../journal'
import { inImmediateTransaction, type Database } from '../store'
import { nthNewestCheckpointSequence } from './checkpoints'
import { allSessions } from './sessions'

export interface RetentionPolicy {
  /** Checkpoints kept restorable per session, newest first (spec 03 default: 100). */
  readonly checkpointsPerSession: number
}

export const DEFAULT_RETENTION: RetentionPolicy = { checkpointsPerSession: 100 }

/**
 * Spec 03 retention: a session's transactions older than its newest N checkpoints release their
 * recovery blobs, except each file lineage's first baseline (its earliest before-blob), which is
 * kept for good. Human edits (no session) are never expired here. The blobs themselves go at the
 * next sweep; the receipts stay, marked `blobs_expired`.
 */
export function applyRetention(db: Database, policy: RetentionPolicy = DEFAULT_RETENTION): { expired: number } {
  return inImmediateTransaction(db, () => {
    let expired = 0
    for (const session of allSessions(db)) {
      const cutoff = nthNewestCheckpointSequence(db, session.session_id, policy.checkpointsPerSession)
      if (cutoff === undefined) continue
      expired += expireRecoveryBlobs(db, session, cutoff)
    }
    return { expired }
  })
}
