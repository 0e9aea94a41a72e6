import { statement, type Database } from '../store'

/** When one step's commands ran on a shadow repository, and the trees around them. */
export interface CommandWindow {
  readonly turnId: string
  readonly step: number
  readonly gitDir: string
  readonly sessionId: string
  /** The tree just before the commands were let run; null when that capture failed. */
  readonly fromHash: string | null
  /** The workspace sequence before that capture began: receipts after it fell in the window. */
  readonly fromSequence: number
  readonly startedAtMs: number
  /** The tree once the step's tools finished; null while they run or when that capture failed. */
  readonly toHash: string | null
  readonly endedAtMs: number | null
}

interface WindowRow {
  turn_id: string
  step: number
  git_dir: string
  session_id: string
  from_hash: string | null
  from_sequence: number
  started_at_ms: number
  to_hash: string | null
  ended_at_ms: number | null
}

const fromRow = (row: WindowRow): CommandWindow => ({
  turnId: row.turn_id,
  step: row.step,
  gitDir: row.git_dir,
  sessionId: row.session_id,
  fromHash: row.from_hash,
  fromSequence: row.from_sequence,
  startedAtMs: row.started_at_ms,
  toHash: row.to_hash,
  endedAtMs: row.ended_at_ms,
})

/** Written before the step's commands may run, so a concurrent session sees the window at once. */
export function openCommandWindow(db: Database, window: Omit<CommandWindow, 'toHash' | 'endedAtMs'>): void {
  statement(
    db,
    `INSERT OR REPLACE INTO snapshot_command_windows
       (turn_id, step, git_dir, session_id, from_hash, from_sequence, started_at_ms, to_hash, ended_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
  ).run(
    window.turnId,
    window.step,
    window.gitDir,
    window.sessionId,
    window.fromHash,
    window.fromSequence,
    window.startedAtMs,
  )
}

export function closeCommandWindow(
  db: Database,
  turnId: string,
  step: number,
  toHash: string | null,
  endedAtMs: number,
): CommandWindow | null {
  statement(db, 'UPDATE snapshot_command_windows SET to_hash = ?, ended_at_ms = ? WHERE turn_id = ? AND step = ?').run(
    toHash,
    endedAtMs,
    turnId,
    step,
  )
  return commandWindow(db, turnId, step)
}

export function commandWindow(db: Database, turnId: string, step: number): CommandWindow | null {
  const row = statement(db, 'SELECT * FROM snapshot_command_windows WHERE turn_id = ? AND step = ?').get(
    turnId,
    step,
  ) as WindowRow | undefined
  return row ? fromRow(row) : null
}

/**
 * Windows of turns a stopped process left open: they end now (when they really ended is unknown,
 * so they are taken to have lasted until the engine came back — the conservative bound).
 */
export function closeAbandonedWindows(db: Database, turnIds: readonly string[], nowMs: number): void {
  for (const turnId of turnIds) {
    statement(db, 'UPDATE snapshot_command_windows SET ended_at_ms = ? WHERE turn_id = ? AND ended_at_ms IS NULL').run(
      nowMs,
      turnId,
    )
  }
}

/** Other sessions' command windows on the same shadow repository that overlap this one in time. */
export function overlappingWindows(db: Database, window: CommandWindow, endedAtMs: number): CommandWindow[] {
  const rows = statement(
    db,
    `SELECT * FROM snapshot_command_windows
      WHERE git_dir = ? AND session_id <> ? AND started_at_ms <= ?
        AND (ended_at_ms IS NULL OR ended_at_ms >= ?)
      ORDER BY started_at_ms`,
  ).all(window.gitDir, window.sessionId, endedAtMs, window.startedAtMs) as unknown as WindowRow[]
  return rows.map(fromRow)
}
