import { statement, type Database } from '../store'
import type { NodeKind, NodeStatus, Part } from './types'

/** The `nodes` table (the conversation DAG): every statement on it is in this file. */

/** One node of a predecessor chain. */
export interface ChainNode {
  readonly node_id: string
  readonly parent_node_id: string | null
  readonly kind: NodeKind
}

export interface NodeHeader extends ChainNode {
  readonly session_id: string
  readonly status: string
}

/** A node as stored: its parts are JSON. */
export interface NodeRow {
  readonly node_id: string
  readonly session_id: string
  readonly parent_node_id: string | null
  readonly kind: NodeKind
  readonly parts: string
  readonly status: NodeStatus
  readonly created_at_ms: number
}

export function insertNode(
  db: Database,
  node: {
    node_id: string
    session_id: string
    parent_node_id: string | null
    kind: NodeKind
    parts: readonly Part[]
    status: NodeStatus
    created_at_ms: number
  },
): void {
  statement(db, 'INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    node.node_id,
    node.session_id,
    node.parent_node_id,
    node.kind,
    JSON.stringify(node.parts),
    node.status,
    node.created_at_ms,
  )
}

export function getNode(db: Database, nodeId: string): NodeHeader | undefined {
  return statement(db, 'SELECT node_id, session_id, parent_node_id, kind, status FROM nodes WHERE node_id = ?').get(
    nodeId,
  ) as NodeHeader | undefined
}

/** The node's predecessor chain, ROOT first, the node itself last (one recursive query). */
export function chainOf(db: Database, nodeId: string): ChainNode[] {
  return statement(
    db,
    `WITH RECURSIVE chain(node_id, parent_node_id, kind, depth) AS (
       SELECT node_id, parent_node_id, kind, 0 FROM nodes WHERE node_id = ?
       UNION ALL
       SELECT n.node_id, n.parent_node_id, n.kind, c.depth + 1 FROM nodes n JOIN chain c ON n.node_id = c.parent_node_id
     )
     SELECT node_id, parent_node_id, kind FROM chain ORDER BY depth DESC`,
  ).all(nodeId) as unknown as ChainNode[]
}

/**
 * A turn's 1-based position in its conversation, as the chat and Review number it: its assistant
 * node among the assistant nodes of its own chain (so a branch's turns keep their numbers).
 * Undefined for an id that is no assistant node.
 */
export function turnNumberOf(db: Database, turnId: string): number | undefined {
  const chain = chainOf(db, turnId)
  if (chain[chain.length - 1]?.kind !== 'assistant') return undefined
  return chain.filter((node) => node.kind === 'assistant').length
}

/** The stored parts of a finished node (a running one keeps its parts in turn_parts). */
export function nodeParts(db: Database, nodeId: string): Part[] {
  const row = statement(db, 'SELECT parts FROM nodes WHERE node_id = ?').get(nodeId) as { parts: string } | undefined
  return row ? (JSON.parse(row.parts) as Part[]) : []
}

/** The text of a user node (its prompt). */
export function promptText(db: Database, userNodeId: string): string {
  const row = statement(db, 'SELECT parts FROM nodes WHERE node_id = ?').get(userNodeId) as
    { parts: string } | undefined
  if (!row) return ''
  return (JSON.parse(row.parts) as Array<{ type: string; text?: string }>)
    .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
    .join('\n')
}

/** A node's parts and creation time, as a copy of it needs them (a fork). */
export function nodeCopySource(db: Database, nodeId: string): { parts: Part[]; created_at_ms: number } | undefined {
  const row = statement(db, 'SELECT parts, created_at_ms FROM nodes WHERE node_id = ?').get(nodeId) as
    { parts: string; created_at_ms: number } | undefined
  return row ? { parts: JSON.parse(row.parts) as Part[], created_at_ms: row.created_at_ms } : undefined
}

/** Every node of a session, in creation order. */
export function sessionNodes(db: Database, sessionId: string): NodeRow[] {
  return statement(db, 'SELECT * FROM nodes WHERE session_id = ? ORDER BY created_at_ms, rowid').all(
    sessionId,
  ) as unknown as NodeRow[]
}

export function sessionNodeIds(db: Database, sessionId: string): string[] {
  return (
    statement(db, 'SELECT node_id FROM nodes WHERE session_id = ?').all(sessionId) as Array<{ node_id: string }>
  ).map((row) => row.node_id)
}

/** A node of the session still running (a user node is never running; an assistant one answers). */
export function runningNodeOf(db: Database, sessionId: string): string | null {
  const row = statement(db, "SELECT node_id FROM nodes WHERE session_id = ? AND status = 'running' LIMIT 1").get(
    sessionId,
  ) as { node_id: string } | undefined
  return row?.node_id ?? null
}

/** The assistant node now answering in this session, if any. */
export function runningTurnId(db: Database, sessionId: string): string | null {
  const row = statement(
    db,
    "SELECT node_id FROM nodes WHERE session_id = ? AND status = 'running' AND kind = 'assistant' LIMIT 1",
  ).get(sessionId) as { node_id: string } | undefined
  return row?.node_id ?? null
}

/** Assistant nodes left `running` (by a process that stopped), every session. */
export function runningAssistantNodes(
  db: Database,
): Array<{ node_id: string; parent_node_id: string; session_id: string }> {
  return statement(
    db,
    "SELECT node_id, parent_node_id, session_id FROM nodes WHERE status = 'running' AND kind = 'assistant'",
  ).all() as Array<{ node_id: string; parent_node_id: string; session_id: string }>
}

/** Whether `turnId` is an assistant turn of the session. */
export function isTurnOf(db: Database, sessionId: string, turnId: string): boolean {
  return (
    statement(db, "SELECT 1 FROM nodes WHERE node_id = ? AND session_id = ? AND kind = 'assistant'").get(
      turnId,
      sessionId,
    ) !== undefined
  )
}

/** An assistant node of the session: its status and its prompt. */
export function turnOf(
  db: Database,
  sessionId: string,
  turnId: string,
): { status: string; parent_node_id: string } | undefined {
  return statement(
    db,
    "SELECT status, parent_node_id FROM nodes WHERE node_id = ? AND kind = 'assistant' AND session_id = ?",
  ).get(turnId, sessionId) as { status: string; parent_node_id: string } | undefined
}

/** The assistant node answering a prompt. */
export function answerOf(db: Database, userNodeId: string): string | undefined {
  const row = statement(db, "SELECT node_id FROM nodes WHERE parent_node_id = ? AND kind = 'assistant' LIMIT 1").get(
    userNodeId,
  ) as { node_id: string } | undefined
  return row?.node_id
}

/** A turn's parts and status once it finished. */
export function finishNode(db: Database, nodeId: string, parts: readonly Part[], status: NodeStatus): void {
  statement(db, 'UPDATE nodes SET parts = ?, status = ? WHERE node_id = ?').run(JSON.stringify(parts), status, nodeId)
}

/**
 * Whether a turn's stored summary says its commands changed files — their own, or held ones the
 * person may name (issue 23) — by an index probe, not a parse of every part.
 */
export function turnSummaryNamesCommandFiles(db: Database, turnId: string): boolean {
  return (
    statement(
      db,
      `SELECT 1 FROM nodes n, json_each(n.parts) p WHERE n.node_id = ?
       AND json_extract(p.value, '$.type') = 'file-summary'
       AND (json_extract(p.value, '$.summary.command_files') > 0
            OR json_extract(p.value, '$.summary.command_held') IS NOT NULL)`,
    ).get(turnId) !== undefined
  )
}

export function deleteNodes(db: Database, nodeIds: readonly string[]): void {
  statement(db, 'DELETE FROM nodes WHERE node_id IN (SELECT value FROM json_each(?))').run(JSON.stringify(nodeIds))
}

export function deleteSessionNodes(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM nodes WHERE session_id = ?').run(sessionId)
}
