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
      const old = statement(
        db,
        `SELECT transaction_id FROM transactions
         WHERE session_id = ? AND workspace_id = ? AND workspace_sequence <= ? AND blobs_expired = 0 AND status != 'prepared'`,
      ).all(session.session_id, session.workspace_id, cutoff.journal_sequence) as Array<{ transaction_id: string }>
      for (const { transaction_id } of old) {
        // Keep the first baseline of every lineage this transaction opened.
        const baselines = statement(
          db,
          `SELECT f.before_state FROM transaction_files f
           WHERE f.transaction_id = ? AND NOT EXISTS (
             SELECT 1 FROM transaction_files e JOIN transactions t ON t.transaction_id = e.transaction_id
             WHERE e.file_lineage_id = f.file_lineage_id AND t.workspace_sequence < (SELECT workspace_sequence FROM transactions WHERE transaction_id = ?))`,
        ).all(transaction_id, transaction_id) as Array<{ before_state: string }>
        for (const row of baselines) {
          const before = JSON.parse(row.before_state) as { kind: string; blob_ref?: string | null }
          if (before.kind === 'regular' && before.blob_ref) {
            statement(db, "INSERT OR IGNORE INTO blob_refs VALUES (?, 'baseline', ?)").run(
              before.blob_ref,
              transaction_id,
            )
          }
        }
        statement(db, "DELETE FROM blob_refs WHERE owner_kind = 'transaction' AND owner_id = ?").run(transaction_id)
        statement(db, 'UPDATE transactions SET blobs_expired = 1 WHERE transaction_id = ?').run(transaction_id)
        expired += 1
      }
    }
    return { expired }
  })
}
