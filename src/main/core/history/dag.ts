import { statement, type Database } from '../store'
import type { NodeKind } from './types'

/** One node of a predecessor chain. */
export interface ChainNode {
  readonly node_id: string
  readonly parent_node_id: string | null
  readonly kind: NodeKind
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

/** The index in both chains of their deepest common node (chains share ROOT). */
export function commonAncestorIndex(a: readonly ChainNode[], b: readonly ChainNode[]): number {
  let index = -1
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]?.node_id !== b[i]?.node_id) break
    index = i
  }
  return index
}

/** Assistant nodes (turns) of a chain after an index, oldest first. */
export function turnsAfter(chain: readonly ChainNode[], index: number): string[] {
  return chain.slice(index + 1).flatMap((node) => (node.kind === 'assistant' ? [node.node_id] : []))
}

export function getNode(
  db: Database,
  nodeId: string,
): { node_id: string; session_id: string; parent_node_id: string | null; kind: NodeKind; status: string } | undefined {
  return statement(db, 'SELECT node_id, session_id, parent_node_id, kind, status FROM nodes WHERE node_id = ?').get(
    nodeId,
  ) as
    { node_id: string; session_id: string; parent_node_id: string | null; kind: NodeKind; status: string } | undefined
}

export interface CheckpointRow {
  readonly checkpoint_id: string
  readonly branch_id: string
  readonly boundary: string
  readonly user_node_id: string
  readonly assistant_node_id: string | null
  readonly journal_sequence: number
  readonly workspace_revision: number
}

/** A prompt's `before_turn` checkpoint, or a turn's `after_turn` one. */
export function checkpointAt(
  db: Database,
  userNodeId: string,
  boundary: 'before_turn' | 'after_turn',
): CheckpointRow | undefined {
  return statement(
    db,
    'SELECT checkpoint_id, branch_id, boundary, user_node_id, assistant_node_id, journal_sequence, workspace_revision FROM checkpoints WHERE user_node_id = ? AND boundary = ? ORDER BY created_at_ms DESC LIMIT 1',
  ).get(userNodeId, boundary) as CheckpointRow | undefined
}

export function checkpointById(db: Database, checkpointId: string): CheckpointRow | undefined {
  return statement(
    db,
    'SELECT checkpoint_id, branch_id, boundary, user_node_id, assistant_node_id, journal_sequence, workspace_revision FROM checkpoints WHERE checkpoint_id = ?',
  ).get(checkpointId) as CheckpointRow | undefined
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

/** Whether `ancestor` is on `chain` (equal counts). */
export function onChain(chain: readonly ChainNode[], nodeId: string): boolean {
  return chain.some((node) => node.node_id === nodeId)
}
