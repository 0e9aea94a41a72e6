import type { TurnPart, TurnSummaryData } from '../../../../shared/protocol'
import type { TranscriptData, TranscriptNode } from './types'

/** Parts announced by `turn.part` events, by index, for turns still running (holes not yet seen). */
export type LiveTurns = ReadonlyMap<string, ReadonlyArray<TurnPart | undefined>>

/**
 * The conversation the person is on: the active branch's head back to ROOT, oldest first, ROOT
 * left out. A transcript without a resolvable head (should not happen) shows every node in order.
 */
export function activeLineage(data: TranscriptData): TranscriptNode[] {
  const byId = new Map(data.nodes.map((node) => [node.node_id, node]))
  const branch = data.branches.find((b) => b.branch_id === data.session.active_branch_id)
  const head = branch ? byId.get(branch.head_node_id) : undefined
  if (!head) return data.nodes.filter((node) => node.kind !== 'root')
  const lineage: TranscriptNode[] = []
  const seen = new Set<string>()
  for (let node: TranscriptNode | undefined = head; node && !seen.has(node.node_id);) {
    seen.add(node.node_id)
    if (node.kind !== 'root') lineage.push(node)
    node = node.parent_node_id === null ? undefined : byId.get(node.parent_node_id)
  }
  return lineage.reverse()
}

/**
 * A running turn's parts with the live ones laid over them: an event carries the whole part at its
 * index and is never older than what a transcript read returned, so it wins. Finished turns are
 * read from the transcript only.
 */
export function withLiveParts(node: TranscriptNode, live: ReadonlyArray<TurnPart | undefined> | undefined) {
  if (node.status !== 'running' || !live || live.length === 0) return node
  const length = Math.max(node.parts.length, live.length)
  const parts: TurnPart[] = []
  for (let index = 0; index < length; index += 1) {
    const part = live[index] ?? node.parts[index]
    if (part) parts.push(part)
  }
  return { ...node, parts }
}

/**
 * Live entries worth keeping after a transcript read: a turn the read shows finished is read from
 * the transcript from now on; one the read does not know yet (it began while the read was on its
 * way) keeps its parts.
 */
export function pruneLiveTurns(live: LiveTurns, data: TranscriptData): LiveTurns {
  const finished = new Set(data.nodes.filter((n) => n.status !== 'running').map((n) => n.node_id))
  const kept = new Map([...live].filter(([turnId]) => !finished.has(turnId)))
  return kept.size === live.size ? live : kept
}

export function withLivePart(live: LiveTurns, turnId: string, index: number, part: TurnPart): LiveTurns {
  const parts = [...(live.get(turnId) ?? [])]
  parts[index] = part
  return new Map(live).set(turnId, parts)
}

export function textOf(node: TranscriptNode): string {
  return node.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
}

/**
 * The persisted summary, else the turn's own file-summary part (a turn finalized a moment ago).
 * The part also carries the files changed by commands, which the per-actor change set does not.
 */
export function summaryOf(node: TranscriptNode): TurnSummaryData | null {
  const part = node.parts.find((p) => p.type === 'file-summary')
  const stored = part?.type === 'file-summary' ? part.summary : null
  if (node.summary) {
    // The per-actor change set holds the journal's counts; what commands did rides on the part.
    if (!stored) return node.summary
    const { command_files, command_held, command_excluded, command_unrecorded } = stored
    return {
      ...node.summary,
      ...(command_files ? { command_files } : {}),
      ...(command_held ? { command_held } : {}),
      ...(command_excluded ? { command_excluded } : {}),
      ...(command_unrecorded ? { command_unrecorded } : {}),
    }
  }
  return stored
}
