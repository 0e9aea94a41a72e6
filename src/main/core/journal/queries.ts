import { statement, type Database } from '../store'
import type { FileState, TransactionKind, TransactionStatus } from './types'

/**
 * Small questions other modules ask about the journal's tables. Only the journal reads or writes
 * `workspaces`, `transactions`, `transaction_files`, `transaction_folders`, `file_lineages` and
 * their `blob_refs`.
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

/**
 * The file lineages the committed transactions of these turns touched (as origin turn), for a
 * multi-turn restore: which files the suffix of a conversation changed.
 */
export function turnLineages(db: Database, workspaceId: string, turnIds: readonly string[]): Set<string> {
  return new Set(turnLineagePaths(db, workspaceId, turnIds).keys())
}

/** The same lineages, each with every path the turns' transactions gave it (old and new names). */
export function turnLineagePaths(
  db: Database,
  workspaceId: string,
  turnIds: readonly string[],
): Map<string, Set<string>> {
  const lineages = new Map<string, Set<string>>()
  const query = statement(
    db,
    `SELECT f.file_lineage_id, f.path, f.old_path FROM transactions t JOIN transaction_files f ON f.transaction_id = t.transaction_id
     WHERE t.workspace_id = ? AND t.origin_turn_id = ? AND t.status = 'committed'`,
  )
  for (const turnId of turnIds) {
    for (const row of query.all(workspaceId, turnId) as Array<{
      file_lineage_id: string
      path: string
      old_path: string | null
    }>) {
      const paths = lineages.get(row.file_lineage_id) ?? new Set<string>()
      paths.add(row.path)
      if (row.old_path !== null) paths.add(row.old_path)
      lineages.set(row.file_lineage_id, paths)
    }
  }
  return lineages
}

/** The committed transactions of these turns (as origin turn), oldest first: ids and sequences. */
export function turnTransactions(
  db: Database,
  workspaceId: string,
  turnIds: readonly string[],
): Array<{ transaction_id: string; origin_turn_id: string; workspace_sequence: number }> {
  const query = statement(
    db,
    "SELECT transaction_id, origin_turn_id, workspace_sequence FROM transactions WHERE workspace_id = ? AND origin_turn_id = ? AND status = 'committed'",
  )
  return turnIds
    .flatMap(
      (turnId) =>
        query.all(workspaceId, turnId) as Array<{
          transaction_id: string
          origin_turn_id: string
          workspace_sequence: number
        }>,
    )
    .sort((a, b) => a.workspace_sequence - b.workspace_sequence)
}

/** Every settled transaction recorded for a session (its turns' and its restores'). */
export function sessionTransactionIds(db: Database, sessionId: string): string[] {
  return (
    statement(db, "SELECT transaction_id FROM transactions WHERE session_id = ? AND status != 'prepared'").all(
      sessionId,
    ) as Array<{ transaction_id: string }>
  ).map((row) => row.transaction_id)
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
  return releaseRecoveryBlobs(
    db,
    old.map((row) => row.transaction_id),
  )
}

/**
 * Releases the recovery blobs of settled transactions (retention, or a purge), keeping each
 * lineage's first baseline for good: the blob-ref rows go (the content store frees a blob only
 * when no row of any owner names it) and the receipts stay, marked `blobs_expired`.
 */
export function releaseRecoveryBlobs(db: Database, transactionIds: readonly string[]): number {
  let released = 0
  for (const transaction_id of transactionIds) {
    const row = statement(db, 'SELECT status, blobs_expired FROM transactions WHERE transaction_id = ?').get(
      transaction_id,
    ) as { status: string; blobs_expired: number } | undefined
    if (!row || row.status === 'prepared' || row.blobs_expired === 1) continue
    const baselines = statement(
      db,
      `SELECT f.before_state FROM transaction_files f
       WHERE f.transaction_id = ? AND NOT EXISTS (
         SELECT 1 FROM transaction_files e JOIN transactions t ON t.transaction_id = e.transaction_id
         WHERE e.file_lineage_id = f.file_lineage_id AND t.workspace_sequence < (SELECT workspace_sequence FROM transactions WHERE transaction_id = ?))`,
    ).all(transaction_id, transaction_id) as Array<{ before_state: string }>
    for (const baseline of baselines) {
      const before = JSON.parse(baseline.before_state) as { kind: string; blob_ref?: string | null }
      if (before.kind === 'regular' && before.blob_ref) {
        statement(db, "INSERT OR IGNORE INTO blob_refs VALUES (?, 'baseline', ?)").run(before.blob_ref, transaction_id)
      }
    }
    statement(db, "DELETE FROM blob_refs WHERE owner_kind = 'transaction' AND owner_id = ?").run(transaction_id)
    statement(db, 'UPDATE transactions SET blobs_expired = 1 WHERE transaction_id = ?').run(transaction_id)
    released += 1
  }
  return released
}

/**
 * The lineage a path's File History follows: the file now at that path (renames keep it), or —
 * when nothing recorded sits there any more — the last one a committed transaction left there.
 */
export function lineageAtPath(db: Database, workspaceId: string, path: string): string | undefined {
  const current = statement(
    db,
    'SELECT file_lineage_id FROM file_lineages WHERE workspace_id = ? AND current_path = ?',
  ).get(workspaceId, path) as { file_lineage_id: string } | undefined
  if (current) return current.file_lineage_id
  const last = statement(
    db,
    `SELECT f.file_lineage_id FROM transaction_files f JOIN transactions t ON t.transaction_id = f.transaction_id
     WHERE t.workspace_id = ? AND f.path = ? AND t.status = 'committed' ORDER BY t.workspace_sequence DESC LIMIT 1`,
  ).get(workspaceId, path) as { file_lineage_id: string } | undefined
  return last?.file_lineage_id
}

/**
 * What a lineage's recorded history is right now, as one string: it changes exactly when the
 * lineage gains a committed change or retention releases one of its blobs (File History's paging
 * basis).
 */
export function lineageVersion(db: Database, lineageId: string): string {
  const counted = statement(
    db,
    `SELECT COUNT(*) AS n, MAX(t.workspace_sequence) AS last, SUM(t.blobs_expired) AS expired
     FROM transaction_files f JOIN transactions t ON t.transaction_id = f.transaction_id
     WHERE f.file_lineage_id = ? AND t.status = 'committed'`,
  ).get(lineageId) as { n: number; last: number | null; expired: number | null }
  return `${lineageId}:${counted.n}:${counted.last ?? 0}:${counted.expired ?? 0}`
}

/** One committed change of a lineage, with the transaction that made it. */
export interface LineageChange {
  readonly transaction_id: string
  readonly workspace_sequence: number
  readonly kind: TransactionKind
  readonly session_id: string | null
  readonly origin_turn_id: string | null
  readonly created_at_ms: number
  readonly settled_at_ms: number | null
  readonly blobs_expired: number
  readonly ordinal: number
  readonly path: string
  readonly before: FileState
  readonly after: FileState
}

/** Every committed change of a lineage, oldest first (File History lists its versions from them). */
export function lineageChanges(db: Database, lineageId: string): LineageChange[] {
  const rows = statement(
    db,
    `SELECT t.transaction_id, t.workspace_sequence, t.kind, t.session_id, t.origin_turn_id, t.created_at_ms,
            t.settled_at_ms, t.blobs_expired, f.ordinal, f.path, f.before_state, f.after_state
     FROM transaction_files f
     JOIN transactions t ON t.transaction_id = f.transaction_id
     WHERE f.file_lineage_id = ? AND t.status = 'committed'
     ORDER BY t.workspace_sequence, f.ordinal`,
  ).all(lineageId) as unknown as Array<
    Omit<LineageChange, 'before' | 'after'> & { before_state: string; after_state: string }
  >
  return rows.map(({ before_state, after_state, ...row }) => ({
    ...row,
    before: JSON.parse(before_state) as FileState,
    after: JSON.parse(after_state) as FileState,
  }))
}
