import { expireRecoveryBlobs } from '../journal'
import { inImmediateTransaction, statement, type Database } from '../store'

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
    const sessions = statement(db, 'SELECT session_id, workspace_id FROM sessions').all() as Array<{
      session_id: string
      workspace_id: string
    }>
    for (const session of sessions) {
      const cutoff = statement(
        db,
        'SELECT journal_sequence FROM checkpoints WHERE session_id = ? ORDER BY created_at_ms DESC, rowid DESC LIMIT 1 OFFSET ?',
      ).get(session.session_id, policy.checkpointsPerSession - 1) as { journal_sequence: number } | undefined
      if (!cutoff) continue
      expired += expireRecoveryBlobs(db, session, cutoff.journal_sequence)
    }
    return { expired }
  })
}
