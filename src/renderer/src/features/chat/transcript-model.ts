import type { TurnSummaryData } from '../../../../shared/protocol'
import type { Translate } from '../../i18n'
import { textOf, type TranscriptData, type TranscriptNode } from '../session'

/** The prompt an assistant turn answered, for Retry. */
export function promptOf(nodes: readonly TranscriptNode[], turn: TranscriptNode): string | null {
  const parent = nodes.find((node) => node.node_id === turn.parent_node_id)
  if (parent?.kind !== 'user') return null
  const text = textOf(parent)
  return text.trim() === '' ? null : text
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
