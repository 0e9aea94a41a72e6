import { statement, type Database } from '../store'

/** The `checkpoints` table: every statement on it is in this file. */

export type Boundary = 'before_turn' | 'after_turn' | 'adopt_workspace'

export interface CheckpointRow {
  readonly checkpoint_id: string
  readonly branch_id: string
  readonly boundary: string
  readonly user_node_id: string
  readonly assistant_node_id: string | null
  readonly journal_sequence: number
  readonly workspace_revision: number
}

/** A checkpoint is bound to the journal sequence and workspace revision of its moment. */
export function insertCheckpoint(
  db: Database,
  checkpoint: {
    checkpoint_id: string
    session_id: string
    branch_id: string
    boundary: Boundary
    user_node_id: string
    assistant_node_id: string | null
    journal_sequence: number
    workspace_revision: number
    created_at_ms: number
  },
): void {
  statement(db, 'INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    checkpoint.checkpoint_id,
    checkpoint.session_id,
    checkpoint.branch_id,
    checkpoint.boundary,
    checkpoint.user_node_id,
    checkpoint.assistant_node_id,
    checkpoint.journal_sequence,
    checkpoint.workspace_revision,
    checkpoint.created_at_ms,
  )
}

const COLUMNS =
  'checkpoint_id, branch_id, boundary, user_node_id, assistant_node_id, journal_sequence, workspace_revision'

/** A prompt's `before_turn` checkpoint, or a turn's `after_turn` one. */
export function checkpointAt(
  db: Database,
  userNodeId: string,
  boundary: 'before_turn' | 'after_turn',
): CheckpointRow | undefined {
  return statement(
    db,
    `SELECT ${COLUMNS} FROM checkpoints WHERE user_node_id = ? AND boundary = ? ORDER BY created_at_ms DESC LIMIT 1`,
  ).get(userNodeId, boundary) as CheckpointRow | undefined
}

export function checkpointById(db: Database, checkpointId: string): CheckpointRow | undefined {
  return statement(db, `SELECT ${COLUMNS} FROM checkpoints WHERE checkpoint_id = ?`).get(checkpointId) as
    CheckpointRow | undefined
}

/** The journal sequence of the session's `n`-th newest checkpoint (retention keeps what is newer). */
export function nthNewestCheckpointSequence(db: Database, sessionId: string, n: number): number | undefined {
  const row = statement(
    db,
    'SELECT journal_sequence FROM checkpoints WHERE session_id = ? ORDER BY created_at_ms DESC, rowid DESC LIMIT 1 OFFSET ?',
  ).get(sessionId, n - 1) as { journal_sequence: number } | undefined
  return row?.journal_sequence
}

export function deleteNodeCheckpoints(db: Database, nodeIds: readonly string[]): void {
  const list = JSON.stringify(nodeIds)
  statement(
    db,
    'DELETE FROM checkpoints WHERE user_node_id IN (SELECT value FROM json_each(?)) OR assistant_node_id IN (SELECT value FROM json_each(?))',
  ).run(list, list)
}

export function deleteSessionCheckpoints(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM checkpoints WHERE session_id = ?').run(sessionId)
}
