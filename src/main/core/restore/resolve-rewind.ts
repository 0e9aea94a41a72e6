import { fail, ok, type FailureReasonOf, type Outcome } from '../../../shared/protocol'
import { workspaceCounters } from '../journal'
import {
  activeBranch,
  answerOf,
  chainOf,
  checkpointAt,
  checkpointById,
  filesNodeOf,
  getBranch,
  getNode,
  lastTurn,
  NEW_BRANCH,
  onChain,
  promptText,
  turnsAfter,
  type BranchEffects,
  type BranchRecord,
  type SessionRecord,
} from '../conversation'
import type { Database } from '../store'
import { lastRestore } from './intents'
import { inverseOf } from './plan-redo'
import { planTransition, type Transition } from './transition'

/**
 * Where a multi-turn restore takes the conversation and the files, before any file is checked:
 * `rewind` to a checkpoint of a turn on the active branch, `unrewind` forward again along the
 * branch a rewind left, the Redo of a Rewind (its exact inverse), and `align` (Restore branch
 * code). plan-rewind.ts checks and prices what these resolve to.
 */

export type RewindMode = 'code_and_conversation' | 'conversation' | 'code'
export type RewindOperation = 'rewind' | 'unrewind' | 'align' | 'redo'

/** A multi-turn restore request (spec 04 "Multi-turn Rewind"; `unrewind` and `align` see below). */
export interface RewindRequest {
  readonly operation: RewindOperation
  readonly turn_id?: string | undefined
  readonly checkpoint_id?: string | undefined
  readonly boundary?: 'before_turn' | 'after_turn' | undefined
  readonly mode?: RewindMode | undefined
  /** Issue 16: also put back the files the undone turns' commands changed. */
  readonly include_commands?: boolean | undefined
  /** `unrewind`: one turn forward (composer /redo) or back to the source head (HTTP unrevert). */
  readonly steps?: 'one' | 'all' | undefined
  /** Conflicting paths the person includes: their current bytes are what the restore replaces. */
  readonly include_conflicting?: readonly string[] | undefined
  /** Conflicting paths the person keeps as they are: the restore leaves them out. */
  readonly keep_current?: readonly string[] | undefined
}

export interface BranchOutcome {
  /**
   * `new_branch`: a target branch is created and activated; `unchanged`: the conversation stays;
   * `return_to_source`: the branch a rewind left becomes active again (a redo at its last turn);
   * `move_forward`: the active branch's head moves one turn forward along the branch it left.
   */
  readonly outcome: 'new_branch' | 'unchanged' | 'return_to_source' | 'move_forward'
  readonly source_branch_id: string
  /** The conversation head afterwards (the session's ROOT before the first turn). */
  readonly head_node_id: string
  readonly head_is_root: boolean
  readonly returns_to_branch_id: string | null
}

/** Where the conversation and the files go, before the files are checked. */
export interface Resolved {
  readonly turn_id: string
  readonly mode: RewindMode
  readonly boundary: 'before_turn' | 'after_turn'
  /** Turns the conversation leaves behind (the suffix of the active branch after the target). */
  readonly suffix: string[]
  readonly transition: Transition
  readonly branch: BranchOutcome
  readonly effects: BranchEffects
  readonly prompt_text: string | null
  /** Redo of a rewind: the folders that rewind removed (made again). */
  readonly recreate_folders?: readonly string[]
}

export function resolveMultiTurn(db: Database, session: SessionRecord, request: RewindRequest): Outcome<Resolved> {
  switch (request.operation) {
    case 'rewind':
      return resolveRewind(db, session, request)
    case 'unrewind':
      return resolveUnrewind(db, session, request)
    case 'redo':
      return resolveRedo(db, session, request)
    case 'align':
      return resolveAlign(db, session)
  }
}

function resolveRewind(db: Database, session: SessionRecord, request: RewindRequest): Outcome<Resolved> {
  let turnId = request.turn_id
  let boundary = request.boundary ?? 'before_turn'
  if (request.checkpoint_id !== undefined) {
    const checkpoint = checkpointById(db, request.checkpoint_id)
    if (!checkpoint)
      return fail('NOT_FOUND', 'There is no such checkpoint.', {
        checkpoint_id: request.checkpoint_id,
        reason: 'no-checkpoint',
      })
    boundary = checkpoint.boundary === 'after_turn' ? 'after_turn' : 'before_turn'
    turnId = checkpoint.assistant_node_id ?? answerOf(db, checkpoint.user_node_id)
  }
  if (turnId === undefined) return fail('INVALID_REQUEST', 'A rewind needs a turn_id (or a checkpoint_id).')
  const mode = request.mode ?? 'code_and_conversation'
  const turn = getNode(db, turnId)
  if (!turn || turn.session_id !== session.session_id || turn.kind !== 'assistant' || turn.parent_node_id === null) {
    return fail('NOT_FOUND', 'That turn is not part of this session.', { turn_id: turnId, reason: 'no-turn' })
  }
  const source = activeBranch(db, session)
  const headChain = chainOf(db, source.head_node_id)
  if (!onChain(headChain, turnId)) {
    return fail('NOT_FOUND', 'That turn is not on the active branch; switch to its branch first.', {
      turn_id: turnId,
      reason: 'not-on-branch',
    })
  }
  const userNodeId = turn.parent_node_id
  const userNode = getNode(db, userNodeId)
  const targetNodeId = boundary === 'before_turn' ? (userNode?.parent_node_id ?? session.root_node_id) : turnId
  const checkpoint = checkpointAt(db, userNodeId, boundary)
  if (boundary === 'after_turn' && (turn.status === 'running' || !checkpoint)) {
    return fail('UNAVAILABLE', 'This turn has not finished; there is no checkpoint after it yet.', {
      reason: 'turn-running',
    })
  }
  const targetIndex = headChain.findIndex((node) => node.node_id === targetNodeId)
  const suffix = turnsAfter(headChain, targetIndex)
  const filesNode = filesNodeOf(db, session)
  const filesChain = filesNode === source.head_node_id ? headChain : chainOf(db, filesNode)
  const transition = planTransition(db, {
    workspaceId: session.workspace_id,
    sessionId: session.session_id,
    from: filesNode,
    to: targetNodeId,
    undoSequence: onChain(filesChain, targetNodeId) ? checkpoint?.journal_sequence : undefined,
  })
  const aligned = session.alignment === 'aligned'
  const sequence = workspaceCounters(db, session.workspace_id).sequence
  // The files leave the source head now (if they held it): its code is the workspace as it is.
  const left = aligned ? { branch_id: source.branch_id, sequence } : null
  const base = {
    source_branch_id: source.branch_id,
    expected_head_version: source.head_version,
    bump_epochs: [source.branch_id],
    previous_files: {
      node_id: session.files_node_id,
      alignment: session.alignment,
      checkpoint_id: session.alignment_checkpoint_id,
    },
  }
  const headIsRoot = targetNodeId === session.root_node_id
  let effects: BranchEffects
  let branch: BranchOutcome
  if (mode === 'code') {
    const atHead = targetNodeId === source.head_node_id
    effects = {
      ...base,
      left: atHead ? null : left,
      files: atHead
        ? { node_id: null, alignment: 'aligned', checkpoint_id: null }
        : { node_id: targetNodeId, alignment: 'code_rewound', checkpoint_id: checkpoint?.checkpoint_id ?? null },
    }
    branch = unchanged(source, source.head_node_id, session)
  } else if (suffix.length === 0) {
    // After the last reply: the conversation stays where it is; only the files can move.
    effects = { ...base, left: null, files: { node_id: null, alignment: 'aligned', checkpoint_id: null } }
    branch = unchanged(source, source.head_node_id, session)
  } else {
    const filesStay = mode === 'conversation'
    const differs = filesStay && (transition.actions.length > 0 || transition.unavailable.length > 0)
    effects = {
      ...base,
      create: {
        branch_id: NEW_BRANCH,
        head_node_id: targetNodeId,
        fork_checkpoint_id: checkpoint?.checkpoint_id ?? null,
      },
      activate: NEW_BRANCH,
      left,
      files: differs
        ? { node_id: filesNode, alignment: 'mismatch', checkpoint_id: null }
        : { node_id: null, alignment: 'aligned', checkpoint_id: null },
    }
    branch = {
      outcome: 'new_branch',
      source_branch_id: source.branch_id,
      head_node_id: targetNodeId,
      head_is_root: headIsRoot,
      returns_to_branch_id: null,
    }
  }
  return ok({
    turn_id: turnId,
    mode,
    boundary,
    suffix,
    transition,
    branch,
    effects,
    prompt_text: boundary === 'before_turn' && mode !== 'code' ? promptText(db, userNodeId) : null,
  })
}

/**
 * The composer's /redo after a rewind: the active branch was made by a rewind and has no turns of
 * its own (its head is on the chain of the branch it left). One step moves its head forward to
 * the next turn of that chain (files to that turn's after state); at the last turn, or with
 * `steps: all`, it returns to the source branch (its head and its code) and the rewound branch is
 * archived. Spec-silent: a branch with turns of its own is never undone this way.
 */
function resolveUnrewind(db: Database, session: SessionRecord, request: RewindRequest): Outcome<Resolved> {
  const nothing = () => fail('UNAVAILABLE', 'There is no rewind to redo on this branch.', { reason: 'nothing-to-redo' })
  if (request.mode !== undefined && request.mode !== 'code_and_conversation') return nothing()
  const active = activeBranch(db, session)
  const parent = active.parent_branch_id ? getBranch(db, active.parent_branch_id) : undefined
  if (!parent || parent.head_node_id === active.head_node_id) return nothing()
  const parentChain = chainOf(db, parent.head_node_id)
  const at = parentChain.findIndex((node) => node.node_id === active.head_node_id)
  if (at < 0) return nothing()
  const next = parentChain.slice(at + 1).find((node) => node.kind === 'assistant')
  if (!next) return nothing()
  const toSource = request.steps === 'all' || next.node_id === parent.head_node_id
  const to = toSource ? parent.head_node_id : next.node_id
  const filesNode = filesNodeOf(db, session)
  const transition = planTransition(db, {
    workspaceId: session.workspace_id,
    sessionId: session.session_id,
    from: filesNode,
    to,
    redoSequence: toSource ? parent.left_sequence : null,
  })
  const effects: BranchEffects = {
    source_branch_id: active.branch_id,
    expected_head_version: active.head_version,
    bump_epochs: [active.branch_id],
    files: { node_id: null, alignment: 'aligned', checkpoint_id: null },
    ...(toSource ? { activate: parent.branch_id, archive: active.branch_id } : { move_head: { to_node_id: to } }),
  }
  return ok({
    turn_id: toSource ? (lastTurn(parentChain) ?? next.node_id) : next.node_id,
    mode: 'code_and_conversation',
    boundary: 'after_turn',
    suffix: [],
    transition,
    branch: {
      outcome: toSource ? 'return_to_source' : 'move_forward',
      source_branch_id: active.branch_id,
      head_node_id: to,
      head_is_root: false,
      returns_to_branch_id: toSource ? parent.branch_id : null,
    },
    effects,
    prompt_text: null,
  })
}

/**
 * Issue 23 item 20: Redo right after a Rewind is its exact inverse. The files go back to the bytes
 * the rewind found (its own receipt, see plan-redo.ts) and the conversation to where it was: a
 * branch the rewind created and activated is archived and the source is active again (only while
 * that branch has nothing of its own), and the alignment is what it was before the rewind.
 */
function resolveRedo(db: Database, session: SessionRecord, request: RewindRequest): Outcome<Resolved> {
  const last = lastRestore(db, session.session_id)
  const nothing = (message: string, reason: FailureReasonOf<'UNAVAILABLE'>) =>
    fail('UNAVAILABLE', message, { operation: 'redo', reason })
  if (last?.operation !== 'rewind' || last.effects === null)
    return nothing('Redo is offered right after an Undo or a Rewind.', 'redo-after-undo')
  if (request.turn_id !== undefined && request.turn_id !== last.turn_id) {
    return nothing('Redo applies to the restore that was just made.', 'redo-last-only')
  }
  const rewound = last.effects
  const active = activeBranch(db, session)
  const created = rewound.create
  if (
    created
      ? active.branch_id !== created.branch_id || active.head_node_id !== created.head_node_id
      : active.branch_id !== rewound.source_branch_id
  ) {
    return nothing('The conversation moved on since this rewind; switch branches instead.', 'conversation-moved-on')
  }
  const source = getBranch(db, rewound.source_branch_id)
  if (!source) return nothing('The branch this rewind left is gone.', 'source-branch-gone')
  const { folders: recreate, ...inverse } = inverseOf(db, last.transaction_id)
  const target = created?.head_node_id ?? rewound.files.node_id ?? source.head_node_id
  const sourceChain = chainOf(db, source.head_node_id)
  const redone = turnsAfter(
    sourceChain,
    sourceChain.findIndex((node) => node.node_id === target),
  )
  const effects: BranchEffects = {
    source_branch_id: active.branch_id,
    expected_head_version: active.head_version,
    bump_epochs: [active.branch_id],
    left: null,
    files: rewound.previous_files ?? { node_id: null, alignment: 'aligned', checkpoint_id: null },
    ...(created ? { activate: rewound.source_branch_id, archive: active.branch_id } : {}),
  }
  return ok({
    turn_id: last.turn_id,
    mode: (last.mode as RewindMode | null) ?? 'code_and_conversation',
    boundary: 'after_turn',
    suffix: [],
    transition: { undoTurns: [], redoTurns: redone, fromChain: [], toChain: sourceChain, ...inverse },
    branch: created
      ? {
          outcome: 'return_to_source',
          source_branch_id: active.branch_id,
          head_node_id: source.head_node_id,
          head_is_root: source.head_node_id === session.root_node_id,
          returns_to_branch_id: source.branch_id,
        }
      : unchanged(active, active.head_node_id, session),
    effects,
    prompt_text: null,
    recreate_folders: recreate,
  })
}

/** "Restore branch code": the files go to the active head's code; the conversation stays. */
function resolveAlign(db: Database, session: SessionRecord): Outcome<Resolved> {
  if (session.alignment === 'aligned') {
    return fail('UNAVAILABLE', 'The files already hold this branch’s code.', { reason: 'aligned' })
  }
  const active = activeBranch(db, session)
  const transition = planTransition(db, {
    workspaceId: session.workspace_id,
    sessionId: session.session_id,
    from: filesNodeOf(db, session),
    to: active.head_node_id,
    redoSequence: active.left_sequence,
  })
  return ok({
    turn_id: lastTurn(chainOf(db, active.head_node_id)) ?? '',
    mode: 'code',
    boundary: 'after_turn',
    suffix: [],
    transition,
    branch: unchanged(active, active.head_node_id, session),
    effects: {
      source_branch_id: active.branch_id,
      expected_head_version: active.head_version,
      bump_epochs: [active.branch_id],
      left: null,
      files: { node_id: null, alignment: 'aligned', checkpoint_id: null },
    },
    prompt_text: null,
  })
}

function unchanged(branch: BranchRecord, head: string, session: SessionRecord): BranchOutcome {
  return {
    outcome: 'unchanged',
    source_branch_id: branch.branch_id,
    head_node_id: head,
    head_is_root: head === session.root_node_id,
    returns_to_branch_id: null,
  }
}
