import { randomUUID } from 'node:crypto'
import type { Database } from '../store'
import { bumpWriterEpoch, getBranch, insertBranch, moveHead, setArchived, setLeftSequence } from './branches'
import { sessionRow, setActiveBranch, setFiles, type FilesState } from './sessions'

/**
 * What a multi-turn restore does to the conversation once its files verify (spec 04 "Restore
 * transaction" step 4): branch refs created or moved by compare-and-set, the active branch, what
 * the files hold afterwards, and writer epochs bumped. Stored with the restore intent before any
 * file is touched, applied in the SQLite transaction that commits the files (or, after a crash,
 * by start-up recovery once the journal says they were committed).
 */
export interface BranchEffects {
  /** The session's active branch and its head_version when planned: the compare-and-set. */
  readonly source_branch_id: string
  readonly expected_head_version: number
  /** A new branch off the source whose head is `head_node_id` (rewind with a conversation mode). */
  readonly create?: {
    readonly branch_id: string
    readonly head_node_id: string
    readonly fork_checkpoint_id: string | null
  }
  /** The source branch's head moves forward along its chain (a redo of one rewound turn). */
  readonly move_head?: { readonly to_node_id: string }
  /** The branch made active: the created one, or an existing one (a redo back to the source). */
  readonly activate?: string
  /** A branch that ends up with nothing of its own (the rewind a redo cancels). */
  readonly archive?: string
  /** The files held this branch's head until now: its code projection is the workspace then. */
  readonly left?: { readonly branch_id: string; readonly sequence: number } | null
  /** What the files hold afterwards (`node_id` null: the active head). */
  readonly files: FilesState
  readonly bump_epochs: readonly string[]
  /** What the files held before (a rewind records it so its Redo can put the alignment back). */
  readonly previous_files?: FilesState
}

/** The id `create` gets, for a plan that is not yet confirmed. */
export const NEW_BRANCH = '$new-branch'

/** A confirmed plan's effects, with the new branch's stable id. */
export function withBranchId(effects: BranchEffects): BranchEffects {
  if (!effects.create) return effects
  const id = `br_${randomUUID()}`
  return {
    ...effects,
    create: { ...effects.create, branch_id: id },
    ...(effects.activate === NEW_BRANCH ? { activate: id } : {}),
  }
}

export class StaleEffects extends Error {}

/**
 * Applies the effects inside the caller's SQLite transaction. Throws `StaleEffects` when the
 * session's active branch or its head moved since the plan (nothing is applied: the caller's
 * transaction rolls back).
 */
export function applyEffects(db: Database, sessionId: string, effects: BranchEffects): void {
  const session = sessionRow(db, sessionId)
  const source = getBranch(db, effects.source_branch_id)
  if (
    !session ||
    !source ||
    session.active_branch_id !== effects.source_branch_id ||
    source.head_version !== effects.expected_head_version
  ) {
    throw new StaleEffects('the conversation moved since this restore was planned')
  }
  const now = Date.now()
  if (effects.left) setLeftSequence(db, effects.left.branch_id, effects.left.sequence)
  if (effects.create) {
    insertBranch(db, {
      branch_id: effects.create.branch_id,
      session_id: sessionId,
      parent_branch_id: effects.source_branch_id,
      fork_checkpoint_id: effects.create.fork_checkpoint_id,
      head_node_id: effects.create.head_node_id,
      fork_node_id: effects.create.head_node_id,
      created_at_ms: now,
    })
  }
  if (
    effects.move_head &&
    !moveHead(db, effects.source_branch_id, effects.move_head.to_node_id, effects.expected_head_version)
  ) {
    throw new StaleEffects('the branch head moved since this restore was planned')
  }
  if (effects.archive) setArchived(db, effects.archive, true)
  if (effects.activate) {
    setArchived(db, effects.activate, false)
    setActiveBranch(db, sessionId, effects.activate)
  }
  setFiles(db, sessionId, effects.files, now)
  for (const branchId of effects.bump_epochs) bumpWriterEpoch(db, branchId)
}
