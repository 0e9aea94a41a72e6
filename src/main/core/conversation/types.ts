export type NodeKind = 'root' | 'user' | 'assistant'
export type NodeStatus = 'complete' | 'running' | 'aborted' | 'error'

import type { PermissionMode, TurnPart, TurnSummaryData } from '../../../shared/protocol'

/** A persisted part of a node (spec 05 "Loop"); user nodes hold one text part. */
export type Part = TurnPart

export interface SessionRecord {
  readonly session_id: string
  readonly project_id: string
  readonly workspace_id: string
  readonly title: string
  readonly root_node_id: string
  readonly active_branch_id: string
  readonly state: 'active' | 'archived'
  readonly permission_mode: PermissionMode
  readonly created_at_ms: number
  readonly updated_at_ms: number
  /** 0 while the title is the creation placeholder (the first prompt then names the session). */
  readonly titled: number
  /** The node whose code the workspace holds when it is not the active head (null: aligned). */
  readonly files_node_id: string | null
  readonly alignment: Alignment
  /** The checkpoint a code-only rewind went to (its banner names it). */
  readonly alignment_checkpoint_id: string | null
}

/**
 * Spec 04 alignment between the active branch and the files: `mismatch` (after a
 * conversation-only rewind or a switch whose code differs) holds the next turn until the person
 * keeps the files or restores the branch's code; `code_rewound` (after a code-only rewind) is a
 * banner only.
 */
export type Alignment = 'aligned' | 'mismatch' | 'code_rewound'

export interface BranchRecord {
  readonly branch_id: string
  readonly session_id: string
  readonly parent_branch_id: string | null
  readonly fork_checkpoint_id: string | null
  readonly head_node_id: string
  readonly head_version: number
  readonly writer_epoch: number
  readonly archived: boolean
  /** Where this branch left its parent (its first head); null for a session's first branch. */
  readonly fork_node_id: string | null
  /** The workspace sequence at which the files last held this branch's head (see branches.ts). */
  readonly left_sequence: number | null
  readonly created_at_ms: number
}

/** What a turn card shows, stored when the turn finishes so transcripts never query receipts. */
export interface TurnSummary {
  /** Lineages whose first-before differs from their last-after. */
  readonly files: number
  /** Net line counts over the turn, or null when any file's count is not exact (binary, too big). */
  readonly added: number | null
  readonly removed: number | null
  readonly first_files: string[]
  readonly transactions: number
  /** Breaks in a file's recorded chain inside the turn (writes outside Retrace); absent when none. */
  readonly outside_changes?: number
  /** Files changed by commands (spec 06: a step's patch with no receipt in that step); Undo restores them only when the person includes them. */
  readonly command_files?: number
  /** Issue 23: command changes not recorded, or not restored by default, with why (see TurnSummarySchema). */
  readonly command_held?: TurnSummaryData['command_held']
  readonly command_excluded?: TurnSummaryData['command_excluded']
  readonly command_unrecorded?: TurnSummaryData['command_unrecorded']
}

export interface NodeRecord {
  readonly node_id: string
  readonly session_id: string
  readonly parent_node_id: string | null
  readonly kind: NodeKind
  readonly parts: Part[]
  readonly status: NodeStatus
  readonly created_at_ms: number
  /** On finished assistant nodes that changed files. */
  readonly summary?: TurnSummary
}

export interface CheckpointRecord {
  readonly checkpoint_id: string
  readonly boundary: 'before_turn' | 'after_turn'
  readonly user_node_id: string
  readonly assistant_node_id: string | null
  readonly branch_id: string
  readonly journal_sequence: number
  readonly workspace_revision: number
}
