import type { BranchEffects } from '../conversation'
import { statement, type Database } from '../store'

/**
 * The `restore_intents` table: every statement on it is in this file. An intent is written before
 * any file is touched (spec 04 step 2) and settled from its journal transaction.
 */

export type IntentStatus = 'applying' | 'committed' | 'rolled_back' | 'recovery_required'

/** A single-turn restore's intent, `applying` until its transaction settles. */
export function insertTurnIntent(
  db: Database,
  intent: { intent_id: string; session_id: string; turn_id: string; operation: string; plan_hash: string },
): void {
  statement(
    db,
    "INSERT INTO restore_intents (intent_id, session_id, turn_id, operation, plan_hash, transaction_id, status, created_at_ms) VALUES (?, ?, ?, ?, ?, NULL, 'applying', ?)",
  ).run(intent.intent_id, intent.session_id, intent.turn_id, intent.operation, intent.plan_hash, Date.now())
}

/** A multi-turn restore's intent with the branch effects it applies once its files commit. */
export function insertRewindIntent(
  db: Database,
  intent: {
    intent_id: string
    session_id: string
    turn_id: string
    operation: string
    plan_hash: string
    status: 'applying' | 'committed'
    mode: string
    effects: BranchEffects
  },
): void {
  const now = Date.now()
  const committed = intent.status === 'committed'
  statement(
    db,
    `INSERT INTO restore_intents (intent_id, session_id, turn_id, operation, plan_hash, transaction_id, status, created_at_ms, settled_at_ms, mode, source_branch_id, target_branch_id, effects, effects_applied)
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    intent.intent_id,
    intent.session_id,
    intent.turn_id,
    intent.operation,
    intent.plan_hash,
    intent.status,
    now,
    committed ? now : null,
    intent.mode,
    intent.effects.source_branch_id,
    intent.effects.create?.branch_id ?? intent.effects.activate ?? null,
    JSON.stringify(intent.effects),
    committed ? 1 : 0,
  )
}

export function setIntentTransaction(db: Database, intentId: string, transactionId: string): void {
  statement(db, 'UPDATE restore_intents SET transaction_id = ? WHERE intent_id = ?').run(transactionId, intentId)
}

export function settleIntent(db: Database, intentId: string, status: IntentStatus, transactionId: string | null): void {
  statement(
    db,
    'UPDATE restore_intents SET status = ?, transaction_id = coalesce(?, transaction_id), settled_at_ms = ? WHERE intent_id = ?',
  ).run(status, transactionId, Date.now(), intentId)
}

export function markEffectsApplied(db: Database, intentId: string): void {
  statement(db, 'UPDATE restore_intents SET effects_applied = 1 WHERE intent_id = ?').run(intentId)
}

/** Whether a restore of the session is being applied (a second one, a turn, a switch wait). */
export function restoreApplying(db: Database, sessionId: string): boolean {
  return (
    statement(db, "SELECT 1 FROM restore_intents WHERE session_id = ? AND status = 'applying' LIMIT 1").get(
      sessionId,
    ) !== undefined
  )
}

/** Intents a stopped process left `applying`. */
export function openIntents(
  db: Database,
): Array<{ intent_id: string; session_id: string; transaction_id: string | null; effects: string | null }> {
  return statement(
    db,
    "SELECT intent_id, session_id, transaction_id, effects FROM restore_intents WHERE status = 'applying'",
  ).all() as Array<{ intent_id: string; session_id: string; transaction_id: string | null; effects: string | null }>
}

/** The session's last committed restore, whatever its kind (spec 04: Redo follows it). */
export interface LastRestore {
  readonly intent_id: string
  readonly turn_id: string
  readonly operation: string
  readonly transaction_id: string | null
  readonly mode: string | null
  /** A multi-turn restore's branch effects, as recorded before it touched any file. */
  readonly effects: BranchEffects | null
}

export function lastRestore(db: Database, sessionId: string): LastRestore | undefined {
  const row = statement(
    db,
    `SELECT intent_id, turn_id, operation, transaction_id, mode, effects FROM restore_intents
     WHERE session_id = ? AND status = 'committed' ORDER BY created_at_ms DESC, rowid DESC LIMIT 1`,
  ).get(sessionId) as (Omit<LastRestore, 'effects'> & { effects: string | null }) | undefined
  if (!row) return undefined
  return { ...row, effects: row.effects === null ? null : (JSON.parse(row.effects) as BranchEffects) }
}

/** The operation of the turn's latest committed restore, if any. */
export function latestTurnRestore(db: Database, turnId: string): string | undefined {
  const row = statement(
    db,
    "SELECT operation FROM restore_intents WHERE turn_id = ? AND status = 'committed' ORDER BY created_at_ms DESC, rowid DESC LIMIT 1",
  ).get(turnId) as { operation: string } | undefined
  return row?.operation
}

export function deleteSessionIntents(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM restore_intents WHERE session_id = ?').run(sessionId)
}
