import { statement, type Database } from '../store'
import type { TransactionKind, TransactionStatus } from './types'

/**
 * Small questions other modules ask about the journal's tables. Only the journal reads or writes
 * `workspaces`, `transactions`, `transaction_files`, `file_lineages` and their `blob_refs`.
 */

/** The workspace's last sequence and revision right now (a checkpoint is bound to them). */
export function workspaceCounters(db: Database, workspaceId: string): { sequence: number; revision: number } {
  const row = statement(db, 'SELECT last_sequence, revision FROM workspaces WHERE workspace_id = ?').get(
    workspaceId,
  ) as { last_sequence: number; revision: number } | undefined
  return { sequence: row?.last_sequence ?? 0, revision: row?.revision ?? 0 }
}

/** Every workspace the journal knows, with its root (start-up recovery needs them). */
export function workspaceRoots(db: Database): Array<{ workspace_id: string; root: string }> {
  return statement(db, 'SELECT workspace_id, root FROM workspaces').all() as Array<{
    workspace_id: string
    root: string
  }>
}

/** Whether a turn committed any file change (an index probe, not a receipt load). */
export function turnCommittedChanges(db: Database, workspaceId: string, turnId: string): boolean {
  return (
    statement(
      db,
      "SELECT 1 FROM transactions WHERE workspace_id = ? AND origin_turn_id = ? AND status = 'committed' LIMIT 1",
    ).get(workspaceId, turnId) !== undefined
  )
}

/** Committed transactions of a lineage after a sequence: what kind and which turn each was. */
export function laterLineageChanges(
  db: Database,
  lineageId: string,
  workspaceId: string,
  afterSequence: number,
): Array<{ kind: TransactionKind; origin_turn_id: string | null }> {
  return statement(
    db,
    `SELECT t.kind, t.origin_turn_id FROM transaction_files f JOIN transactions t ON t.transaction_id = f.transaction_id
     WHERE f.file_lineage_id = ? AND t.workspace_id = ? AND t.status = 'committed' AND t.workspace_sequence > ?`,
  ).all(lineageId, workspaceId, afterSequence) as Array<{ kind: TransactionKind; origin_turn_id: string | null }>
}

export function transactionStatus(db: Database, transactionId: string): TransactionStatus | undefined {
  const row = statement(db, 'SELECT status FROM transactions WHERE transaction_id = ?').get(transactionId) as
    { status: TransactionStatus } | undefined
  return row?.status
}

/** The paths one transaction touched (for `workspace.changed`). */
export function transactionPaths(db: Database, transactionId: string): string[] {
  return (
    statement(db, 'SELECT path FROM transaction_files WHERE transaction_id = ?').all(transactionId) as Array<{
      path: string
    }>
  ).map((row) => row.path)
}

/**
 * A scope's own committed transactions (a turn's, or a branch's): their count and last sequence,
 * which change exactly when the scope gains a transaction — Review's paging basis.
 */
export function scopeVersion(
  db: Database,
  workspaceId: string,
  scope: { origin_turn_id: string } | { branch_id: string },
): { count: number; last: number } {
  const [column, value] =
    'origin_turn_id' in scope ? ['origin_turn_id', scope.origin_turn_id] : ['branch_id', scope.branch_id]
  const row = statement(
    db,
    `SELECT COUNT(*) AS n, MAX(workspace_sequence) AS last FROM transactions WHERE workspace_id = ? AND ${column} = ? AND status = 'committed'`,
  ).get(workspaceId, value) as { n: number; last: number | null }
  return { count: row.n, last: row.last ?? 0 }
}

/**
 * Spec 03 retention, the journal's half: a session's settled transactions up to a sequence release
 * their recovery blobs, except each lineage's first baseline (its earliest before-blob), kept for
 * good. Receipts stay, marked `blobs_expired`. Returns how many transactions expired.
 */
export function expireRecoveryBlobs(
  db: Database,
  session: { session_id: string; workspace_id: string },
  upToSequence: number,
): number {
  const old = statement(
    db,
    `SELECT transaction_id FROM transactions
     WHERE session_id = ? AND workspace_id = ? AND workspace_sequence <= ? AND blobs_expired = 0 AND status != 'prepared'`,
  ).all(session.session_id, session.workspace_id, upToSequence) as Array<{ transaction_id: string }>
  for (const { transaction_id } of old) {
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
        statement(db, "INSERT OR IGNORE INTO blob_refs VALUES (?, 'baseline', ?)").run(before.blob_ref, transaction_id)
      }
    }
    statement(db, "DELETE FROM blob_refs WHERE owner_kind = 'transaction' AND owner_id = ?").run(transaction_id)
    statement(db, 'UPDATE transactions SET blobs_expired = 1 WHERE transaction_id = ?').run(transaction_id)
  }
  return old.length
}
