import { statement, type Database } from '../store'
import type { TurnSummary } from './types'

/** The `change_sets` table: every statement on it is in this file. */

export function insertChangeSet(
  db: Database,
  changeSet: {
    change_set_id: string
    session_id: string
    branch_id: string
    producer_turn_id: string
    origin_turn_id: string
    actor_id: string
    transaction_ids: readonly string[]
    summary: TurnSummary | undefined
    created_at_ms: number
  },
): void {
  statement(db, 'INSERT INTO change_sets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    changeSet.change_set_id,
    changeSet.session_id,
    changeSet.branch_id,
    changeSet.producer_turn_id,
    changeSet.origin_turn_id,
    changeSet.actor_id,
    JSON.stringify(changeSet.transaction_ids),
    JSON.stringify(changeSet.summary),
    changeSet.created_at_ms,
  )
}

/** Transaction → change set of one session, for the attribution of review rows. */
export function changeSetIndex(db: Database, sessionId: string): Map<string, string> {
  const index = new Map<string, string>()
  for (const row of statement(db, 'SELECT change_set_id, transaction_ids FROM change_sets WHERE session_id = ?').all(
    sessionId,
  ) as Array<{ change_set_id: string; transaction_ids: string }>) {
    for (const id of JSON.parse(row.transaction_ids) as string[]) index.set(id, row.change_set_id)
  }
  return index
}

/** Each finished turn's stored summary, by producer turn. */
export function sessionSummaries(db: Database, sessionId: string): Map<string, TurnSummary> {
  const summaries = new Map<string, TurnSummary>()
  for (const row of statement(db, 'SELECT producer_turn_id, summary FROM change_sets WHERE session_id = ?').all(
    sessionId,
  ) as Array<{ producer_turn_id: string; summary: string }>) {
    summaries.set(row.producer_turn_id, JSON.parse(row.summary) as TurnSummary)
  }
  return summaries
}

export function deleteTurnChangeSets(db: Database, turnIds: readonly string[]): void {
  statement(db, 'DELETE FROM change_sets WHERE producer_turn_id IN (SELECT value FROM json_each(?))').run(
    JSON.stringify(turnIds),
  )
}

export function deleteSessionChangeSets(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM change_sets WHERE session_id = ?').run(sessionId)
}
