import { randomUUID } from 'node:crypto'
import { inImmediateTransaction, inLazyTransaction, statement, type Database } from '../store'
import type { PlannedChange } from './plan'
import type { Attribution, PublishState, Receipt, ReceiptFile, TransactionStatus } from './types'

export interface StoredFile {
  readonly file: ReceiptFile
  readonly change: PlannedChange
}

/** The project a workspace belongs to (events carry it). */
export function projectOfWorkspace(db: Database, workspaceId: string): string {
  const row = statement(db, 'SELECT project_id FROM workspaces WHERE workspace_id = ?').get(workspaceId) as
    { project_id: string } | undefined
  if (!row) throw new Error(`unknown workspace ${workspaceId}`)
  return row.project_id
}

/** The one main workspace of a project (git worktrees for forked tasks add more later). */
export function ensureWorkspace(db: Database, projectId: string, root: string): string {
  const found = db
    .prepare('SELECT workspace_id FROM workspaces WHERE project_id = ? AND root = ?')
    .get(projectId, root) as { workspace_id: string } | undefined
  if (found) return found.workspace_id
  const workspaceId = `ws_${randomUUID()}`
  statement(db, 'INSERT INTO workspaces (workspace_id, project_id, root) VALUES (?, ?, ?)').run(
    workspaceId,
    projectId,
    root,
  )
  return workspaceId
}

export function workspaceRevision(db: Database, workspaceId: string): number {
  const row = statement(db, 'SELECT revision FROM workspaces WHERE workspace_id = ?').get(workspaceId) as
    { revision: number } | undefined
  return row?.revision ?? 0
}

/**
 * Step 4: claim the next workspace_sequence and write the transaction as `prepared`, with its
 * files, lineages and blob references, in one durable SQLite transaction.
 */
export function insertPrepared(
  db: Database,
  input: {
    transaction_id: string
    workspace_id: string
    attribution: Attribution
    files: readonly StoredFile[]
    /** Root-relative folders the publish creates (see foldersCreatedBy). */
    createdFolders: readonly string[]
    onPrepared: ((receipt: Receipt) => void) | undefined
  },
): Receipt {
  return inImmediateTransaction(db, () => {
    statement(db, 'UPDATE workspaces SET last_sequence = last_sequence + 1 WHERE workspace_id = ?').run(
      input.workspace_id,
    )
    const { last_sequence: sequence } = statement(
      db,
      'SELECT last_sequence FROM workspaces WHERE workspace_id = ?',
    ).get(input.workspace_id) as { last_sequence: number }
    const now = Date.now()
    const a = input.attribution
    statement(
      db,
      `INSERT INTO transactions (transaction_id, workspace_id, workspace_sequence, session_id, branch_id, producer_turn_id,
         origin_turn_id, actor_id, job_id, worktree_id, kind, status, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'prepared', ?)`,
    ).run(
      input.transaction_id,
      input.workspace_id,
      sequence,
      a.session_id ?? null,
      a.branch_id ?? null,
      a.producer_turn_id ?? null,
      a.origin_turn_id ?? null,
      a.actor_id ?? null,
      a.job_id ?? null,
      a.worktree_id ?? null,
      a.kind,
      now,
    )
    const findLineage = statement(
      db,
      'SELECT file_lineage_id FROM file_lineages WHERE workspace_id = ? AND current_path = ?',
    )
    const newLineage = statement(
      db,
      'INSERT INTO file_lineages (file_lineage_id, workspace_id, current_path, created_at_ms) VALUES (?, ?, NULL, ?)',
    )
    const insertFile = statement(
      db,
      `INSERT INTO transaction_files (transaction_id, ordinal, file_lineage_id, path, old_path, operation, before_state,
         after_state, stats, diff_state, recoverability, unavailable_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const insertRef = statement(
      db,
      "INSERT OR IGNORE INTO blob_refs (digest, owner_kind, owner_id) VALUES (?, 'transaction', ?)",
    )
    const files: ReceiptFile[] = []
    for (const [ordinal, { file }] of input.files.entries()) {
      const lookupPath = file.operation === 'create' ? null : (file.old_path ?? file.path)
      const existing =
        lookupPath === null
          ? undefined
          : (findLineage.get(input.workspace_id, lookupPath) as { file_lineage_id: string } | undefined)
      const lineage = existing?.file_lineage_id ?? `file_${randomUUID()}`
      if (!existing) newLineage.run(lineage, input.workspace_id, now)
      const withLineage: ReceiptFile = { ...file, file_lineage_id: lineage }
      files.push(withLineage)
      insertFile.run(
        input.transaction_id,
        ordinal,
        lineage,
        file.path,
        file.old_path,
        file.operation,
        JSON.stringify(file.before),
        JSON.stringify(file.after),
        JSON.stringify(file.stats),
        file.diff_state,
        file.recoverability,
        file.unavailable_reason,
      )
      for (const state of [file.before, file.after]) {
        if (state.kind === 'regular' && state.blob_ref) insertRef.run(state.blob_ref, input.transaction_id)
      }
    }
    const insertFolder = statement(db, 'INSERT INTO transaction_folders (transaction_id, path) VALUES (?, ?)')
    for (const folder of input.createdFolders) insertFolder.run(input.transaction_id, folder)
    const receipt: Receipt = {
      transaction_id: input.transaction_id,
      workspace_id: input.workspace_id,
      workspace_sequence: sequence,
      session_id: a.session_id ?? null,
      branch_id: a.branch_id ?? null,
      producer_turn_id: a.producer_turn_id ?? null,
      origin_turn_id: a.origin_turn_id ?? null,
      actor_id: a.actor_id ?? null,
      job_id: a.job_id ?? null,
      worktree_id: a.worktree_id ?? null,
      kind: a.kind,
      status: 'prepared',
      created_at_ms: now,
      settled_at_ms: null,
      recovery_detail: null,
      files,
    }
    input.onPrepared?.(receipt)
    return receipt
  })
}

/**
 * The folders a publish of `changes` creates, as planned under the lock: the missing parents of
 * every file it writes and every directory it makes. Exact for a committed transaction, because a
 * publish refuses (`folder-appeared`) when one of them exists by then and this run did not make it.
 */
export function foldersCreatedBy(changes: readonly PlannedChange[]): string[] {
  const folders = new Set<string>()
  for (const change of changes) {
    const place =
      change.operation === 'rename' && change.destination
        ? change.destination.place
        : change.operation === 'delete'
          ? undefined
          : change.before.place
    if (place) {
      const existing = place.parents.length - 1
      for (let depth = existing + 1; depth <= existing + place.missing.length; depth++)
        folders.add(place.parentSegments.slice(0, depth).join('/'))
    }
    if (change.before.kind === 'absent' && change.after.kind === 'directory') folders.add(change.path)
  }
  return [...folders].sort()
}

/** The folders these transactions created (recorded when each was prepared), without repeats. */
export function createdFoldersOf(db: Database, transactionIds: readonly string[]): string[] {
  if (transactionIds.length === 0) return []
  const rows = statement(
    db,
    'SELECT DISTINCT path FROM transaction_folders WHERE transaction_id IN (SELECT value FROM json_each(?)) ORDER BY path',
  ).all(JSON.stringify(transactionIds)) as Array<{ path: string }>
  return rows.map((row) => row.path)
}

/**
 * Moves a prepared transaction to its terminal status; `committed` also bumps the revision. The
 * commit is lazy (no fsync of its own): if a crash loses it, start-up recovery settles the still
 * `prepared` transaction from the bytes on disk to the same status.
 */
export function markSettled(
  db: Database,
  receipt: Receipt,
  status: Exclude<TransactionStatus, 'prepared'>,
  detail: string | null,
  onSettled?: (settled: Receipt) => void,
): Receipt {
  return inLazyTransaction(db, () => {
    const now = Date.now()
    statement(
      db,
      'UPDATE transactions SET status = ?, settled_at_ms = ?, recovery_detail = ? WHERE transaction_id = ?',
    ).run(status, now, detail, receipt.transaction_id)
    if (status === 'committed') {
      statement(db, "UPDATE transaction_files SET publish_state = 'verified' WHERE transaction_id = ?").run(
        receipt.transaction_id,
      )
      statement(db, 'UPDATE workspaces SET revision = revision + 1 WHERE workspace_id = ?').run(receipt.workspace_id)
      const release = statement(
        db,
        'UPDATE file_lineages SET current_path = NULL WHERE workspace_id = ? AND current_path = ?',
      )
      const place = statement(db, 'UPDATE file_lineages SET current_path = ? WHERE file_lineage_id = ?')
      for (const file of receipt.files) {
        if (file.operation === 'delete') {
          place.run(null, file.file_lineage_id)
          continue
        }
        release.run(receipt.workspace_id, file.path)
        place.run(file.path, file.file_lineage_id)
      }
    }
    const settled: Receipt = { ...receipt, status, settled_at_ms: now, recovery_detail: detail }
    onSettled?.(settled)
    return settled
  })
}

interface TransactionRow {
  transaction_id: string
  workspace_id: string
  workspace_sequence: number
  session_id: string | null
  branch_id: string | null
  producer_turn_id: string | null
  origin_turn_id: string | null
  actor_id: string | null
  job_id: string | null
  worktree_id: string | null
  kind: Receipt['kind']
  status: TransactionStatus
  created_at_ms: number
  settled_at_ms: number | null
  recovery_detail: string | null
}

interface FileRow {
  transaction_id: string
  file_lineage_id: string
  path: string
  old_path: string | null
  operation: ReceiptFile['operation']
  before_state: string
  after_state: string
  stats: string
  diff_state: ReceiptFile['diff_state']
  recoverability: ReceiptFile['recoverability']
  unavailable_reason: string | null
  publish_state: PublishState
}

export function receiptsFromRows(db: Database, rows: readonly TransactionRow[]): Receipt[] {
  if (rows.length === 0) return []
  const ids = rows.map((row) => row.transaction_id)
  const files = db
    .prepare(
      `SELECT * FROM transaction_files WHERE transaction_id IN (${ids.map(() => '?').join(',')}) ORDER BY transaction_id, ordinal`,
    )
    .all(...ids) as unknown as FileRow[]
  const byTransaction = new Map<string, ReceiptFile[]>()
  for (const row of files) {
    const list = byTransaction.get(row.transaction_id) ?? []
    list.push({
      file_lineage_id: row.file_lineage_id,
      path: row.path,
      operation: row.operation,
      old_path: row.old_path,
      before: JSON.parse(row.before_state) as ReceiptFile['before'],
      after: JSON.parse(row.after_state) as ReceiptFile['after'],
      stats: JSON.parse(row.stats) as ReceiptFile['stats'],
      diff_state: row.diff_state,
      recoverability: row.recoverability,
      unavailable_reason: row.unavailable_reason,
      publish_state: row.publish_state,
    })
    byTransaction.set(row.transaction_id, list)
  }
  return rows.map((row) => ({ ...row, files: byTransaction.get(row.transaction_id) ?? [] }))
}

/**
 * Records one file's publish step (applied with its digest, or rolled back). Lazy: if a crash loses
 * it, recovery still compares the recorded before/after digests; the record makes the stricter
 * decisions possible (a file marked applied that now holds its before bytes was changed by someone).
 */
export function markPublishState(
  db: Database,
  transactionId: string,
  ordinal: number,
  state: 'applied' | 'rolled_back',
  appliedDigest: string | null,
): void {
  inLazyTransaction(db, () => {
    statement(
      db,
      'UPDATE transaction_files SET publish_state = ?, applied_digest = ? WHERE transaction_id = ? AND ordinal = ?',
    ).run(state, appliedDigest, transactionId, ordinal)
  })
}
