import type { TurnPart, TurnSummaryData } from '../../../../shared/protocol'
import type { TranscriptData, TranscriptNode } from './types'
import type { Translate } from '../../i18n'

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

/** The prompt an assistant turn answered, for Retry. */
export function promptOf(nodes: readonly TranscriptNode[], turn: TranscriptNode): string | null {
  const parent = nodes.find((node) => node.node_id === turn.parent_node_id)
  if (parent?.kind !== 'user') return null
  const text = textOf(parent)
  return text.trim() === '' ? null : text
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

/**
 * Why a turn whose commands ran has no step snapshots (spec 06: say so): the first reason any of
 * its steps recorded. Null when snapshots were taken or no command ran.
 */
export function snapshotNoteOf(node: TranscriptNode): { reason: string; message: string } | null {
  const ranCommand = node.parts.some((p) => p.type === 'tool' && p.tool === 'bash' && p.started_at_ms !== undefined)
  if (!ranCommand) return null
  for (const part of node.parts) {
    if ((part.type === 'step-start' || part.type === 'step-finish') && part.snapshot_note) return part.snapshot_note
  }
  return null
}

/** The prompt that leads to a node: an assistant turn's prompt, a prompt's own text; null at ROOT. */
export function promptBefore(nodes: readonly TranscriptNode[], nodeId: string): string | null {
  const node = nodes.find((n) => n.node_id === nodeId)
  if (!node || node.kind === 'root') return null
  if (node.kind === 'user') return textOf(node)
  const parent = nodes.find((n) => n.node_id === node.parent_node_id)
  return parent ? textOf(parent) : null
}

/** The prompts of the active branch, oldest first, each with the turn that answers it. */
export function lineagePrompts(
  lineage: readonly TranscriptNode[],
): Array<{ prompt: TranscriptNode; turn: TranscriptNode }> {
  const prompts: Array<{ prompt: TranscriptNode; turn: TranscriptNode }> = []
  lineage.forEach((node, index) => {
    const next = lineage[index + 1]
    if (node.kind === 'user' && next?.kind === 'assistant') prompts.push({ prompt: node, turn: next })
  })
  return prompts
}

type Branch = TranscriptData['branches'][number]

/** "Main" for the session's first branch, "Branch n" for the others in creation order. */
export function branchLabels(branches: readonly Branch[]): Map<string, { main: boolean; n: number }> {
  const ordered = [...branches].sort((a, b) => a.created_at_ms - b.created_at_ms)
  return new Map(ordered.map((branch, index) => [branch.branch_id, { main: index === 0, n: index + 1 }]))
}

/**
 * Where branches leave the conversation shown: the active branch's own fork point (where it left
 * its parent) and every other live branch whose fork point lies on the active lineage, by node.
 */
export function forkMarkers(data: TranscriptData, lineage: readonly TranscriptNode[]) {
  const onLineage = new Set(lineage.map((n) => n.node_id))
  onLineage.add(data.session.root_node_id)
  const markers = new Map<string, Array<{ branch: Branch; own: boolean }>>()
  for (const branch of data.branches) {
    if (branch.fork_node_id === null || !onLineage.has(branch.fork_node_id)) continue
    const own = branch.branch_id === data.session.active_branch_id
    if (!own && branch.archived) continue
    // A sibling that still shares the whole active lineage to its head has not left it.
    if (!own && onLineage.has(branch.head_node_id) && branch.head_node_id !== branch.fork_node_id) continue
    const list = markers.get(branch.fork_node_id) ?? []
    list.push({ branch, own })
    markers.set(branch.fork_node_id, list)
  }
  return markers
}

/**
 * Issue 23: what commands changed that was not recorded, or that Undo leaves alone unless asked —
 * one line each, said rather than silently dropped.
 */
export function commandNotes(summary: TurnSummaryData, t: Translate): Array<{ key: string; text: string }> {
  const notes: Array<{ key: string; text: string }> = []
  if (summary.command_unrecorded) {
    notes.push({
      key: `unrecorded-${summary.command_unrecorded.reason}`,
      text: t('turnCard.unrecorded', { reason: summary.command_unrecorded.message }),
    })
  }
  for (const entry of summary.command_excluded ?? []) {
    notes.push({
      key: `excluded-${entry.reason}`,
      text: t(`turnCard.excluded.${entry.reason}`, { count: entry.files }),
    })
  }
  for (const entry of summary.command_held ?? []) {
    notes.push({ key: `held-${entry.reason}`, text: t(`turnCard.held.${entry.reason}`, { count: entry.files }) })
  }
  return notes
}
