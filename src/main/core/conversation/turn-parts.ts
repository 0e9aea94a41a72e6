import { statement, type Database } from '../store'
import type { Part } from './types'

/**
 * The `turn_parts` table: every statement on it is in this file. A running turn's parts, one row
 * each, rewritten on every transition (spec 05); finalize moves them into the node.
 */

/** The persisted parts of a running turn, in order. */
export function runningParts(db: Database, nodeId: string): Part[] {
  return (
    statement(db, 'SELECT body FROM turn_parts WHERE node_id = ? ORDER BY idx').all(nodeId) as Array<{ body: string }>
  ).map((row) => JSON.parse(row.body) as Part)
}

/** Writes one part of a running turn (the transition is durable before it is announced). */
export function writeRunningPart(db: Database, nodeId: string, index: number, part: Part): void {
  statement(db, 'INSERT OR REPLACE INTO turn_parts (node_id, idx, body) VALUES (?, ?, ?)').run(
    nodeId,
    index,
    JSON.stringify(part),
  )
}

export function deleteTurnParts(db: Database, nodeIds: readonly string[]): void {
  statement(db, 'DELETE FROM turn_parts WHERE node_id IN (SELECT value FROM json_each(?))').run(JSON.stringify(nodeIds))
}
