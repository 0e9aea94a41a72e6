import { activeLineage, summaryOf, textOf } from './transcript-model'
import type { TranscriptData } from './types'

/** A turn of the conversation shown that changed files (Review's "This turn" picks among them). */
export interface TurnWithChanges {
  readonly turnId: string
  /** 1-based position among the conversation's turns ("Turn 3"). */
  readonly number: number
  /** First line of the prompt the turn answered. */
  readonly prompt: string
  readonly files: number
}

/** The active branch's turns that changed files, oldest first. */
export function turnsWithChanges(data: TranscriptData): TurnWithChanges[] {
  const lineage = activeLineage(data)
  const byId = new Map(data.nodes.map((node) => [node.node_id, node]))
  const turns: TurnWithChanges[] = []
  let number = 0
  for (const node of lineage) {
    if (node.kind !== 'assistant') continue
    number += 1
    const summary = summaryOf(node)
    // A turn counts when it changed files, by its tools or by its commands (spec 06).
    const files = (summary?.files ?? 0) + (summary?.command_files ?? 0)
    if (files === 0) continue
    const parent = node.parent_node_id === null ? undefined : byId.get(node.parent_node_id)
    const prompt = parent ? (textOf(parent).trim().split('\n')[0] ?? '') : ''
    turns.push({ turnId: node.node_id, number, prompt, files })
  }
  return turns
}
