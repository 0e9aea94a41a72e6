import { fail, ok, type Outcome } from '../../../shared/protocol'
import { turnTransactions, workspaceCounters, workspaceRevision, type Workspace } from '../journal'
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
  nodeParts,
  onChain,
  promptText,
  turnsAfter,
  type BranchEffects,
  type BranchRecord,
  type SessionRecord,
} from '../conversation'
import type { BlobStore, Database } from '../store'
import { lastRestore } from './intents'
import { mergeCommandActions, planTurnsCommandActions, type CommandSnapshots } from './plan-commands'
import { planFolders, planHash, planStatus } from './plan-shared'
import {
  currentPathState,
  preflightActions,
  runningTurnConflict,
  type Conflict,
  type PlanEvidence,
  type RestoreAction,
} from './preflight'
import { NO_FOLDERS, type FolderActions } from './plan-folders'
import { inverseOf } from './plan-redo'
import { planTransition, type Transition } from './transition'

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

export interface SideEffect {
  readonly turn_id: string
  readonly kind: 'command'
  readonly command: string
}

export interface RewindPlan {
  /** A multi-turn plan (history.plan's result is a union on `kind`). */
  readonly kind: 'rewind'
  readonly status: 'ready' | 'blocked' | 'unavailable'
  readonly plan_hash: string
  readonly operation: RewindOperation
  readonly session_id: string
  readonly turn_id: string
  readonly mode: RewindMode
  readonly boundary: 'before_turn' | 'after_turn'
  readonly workspace_revision: number
  readonly head_version: number
  readonly actions: RestoreAction[]
  readonly conflicts: Conflict[]
  /** Paths the code cannot be restored for (only in the code modes; see `code_unavailable`). */
  readonly unavailable: Array<{ path: string; reason: string }>
  /** Paths the restore would have written that the person chose to keep as they are. */
  readonly kept: string[]
  /** Why the code modes are unavailable, whatever mode was asked (the sheet disables them). */
  readonly code_unavailable: Array<{ path: string; reason: string }>
  readonly impact: { files: number; turns: number; command_files: number; branch: BranchOutcome }
  /** Folders the undone turns created that the restore removes, or (Redo) makes again. */
  readonly folders: FolderActions
  /** The prompt the composer gets back (a conversation mode to before a prompt). */
  readonly prompt_text: string | null
  /** What cannot be undone: the commands the undone turns ran. */
  readonly side_effects: SideEffect[]
  readonly effects: BranchEffects
}

export interface RewindDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly workspace: Workspace
  readonly maxFileBytes: number
  readonly snapshots?: CommandSnapshots | null
}

/** Where the conversation and the files go, before the files are checked. */
interface Resolved {
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

const isCodeMode = (mode: RewindMode) => mode !== 'conversation'

/**
 * Spec 04 step 1 for a multi-turn restore, read-only. `rewind` goes back to a checkpoint of a
 * turn on the active branch in one of three modes; `unrewind` moves a rewound branch forward
 * again along the branch it left (the composer's /redo); `align` restores the active branch's
 * code over files that hold another node's ("Restore branch code"). All three plan the files as
 * one transition (transition.ts) and the conversation as branch effects applied after the files
 * verify.
 */
export async function planRewind(
  deps: RewindDependencies,
  session: SessionRecord,
  request: RewindRequest,
  onProgress?: (done: number, total: number) => void,
): Promise<Outcome<RewindPlan & { evidence: PlanEvidence }>> {
  const { db, workspace } = deps
  const resolved =
    request.operation === 'rewind'
      ? resolveRewind(db, session, request)
      : request.operation === 'unrewind'
        ? resolveUnrewind(db, session, request)
        : request.operation === 'redo'
          ? resolveRedo(db, session, request)
          : resolveAlign(db, session)
  if (resolved.kind === 'error') return resolved
  const r = resolved.result
  const code = isCodeMode(r.mode)
  if (request.include_commands && (request.operation !== 'rewind' || !code)) {
    return fail('INVALID_REQUEST', 'Only a rewind that restores code can also restore files changed by commands.')
  }

  const actions: RestoreAction[] = [...r.transition.actions]
  const codeUnavailable = [...r.transition.unavailable]
  const snapshotBytes = new Map<string, Buffer>()
  const include = new Set(request.include_conflicting ?? [])
  let commandFiles = 0
  if (request.operation === 'rewind' && r.transition.undoTurns.length > 0) {
    const restoring = request.include_commands === true && code
    const commands = await planTurnsCommandActions(deps, r.transition.undoTurns, restoring, include)
    if (commands.kind === 'error') return commands
    // The sheet counts the files a rewind restores from commands when it restores them, else the
    // files the undone turns' commands changed (one count per turn).
    commandFiles = restoring ? commands.result.actions.length : commands.result.changed
    codeUnavailable.push(...commands.result.unavailable)
    mergeCommandActions(actions, commands.result, snapshotBytes)
  }
  const choices = await resolveConflicting(deps, actions, include, new Set(request.keep_current ?? []))
  codeUnavailable.push(...choices.unavailable)

  const conflicts: Conflict[] = []
  const running = runningTurnConflict(db, session.session_id)
  if (running) conflicts.push(running)
  let evidence: PlanEvidence = { disks: new Map(), targets: new Map() }
  const unavailable = code ? [...codeUnavailable] : []
  const outsideLast = new Set(actions.flatMap((action) => (action.outside_last ? [action.path] : [])))
  if (code && codeUnavailable.length === 0) {
    const checked = await preflightActions({
      blobs: deps.blobs,
      workspace,
      maxFileBytes: deps.maxFileBytes,
      actions,
      snapshotBytes,
      changedMessage: (path) =>
        outsideLast.has(path)
          ? `"${path}" was changed after these turns (by you or another program); its current content is not what the turns left.`
          : `"${path}" changed since Retrace last recorded it; its current content is not what the journal says.`,
      onProgress,
    })
    conflicts.push(...checked.conflicts)
    unavailable.push(...checked.unavailable)
    evidence = checked
  }
  let folders = NO_FOLDERS
  if (code && codeUnavailable.length === 0) {
    const folderPlan = await planFolders(
      { db, workspace, maxFileBytes: deps.maxFileBytes },
      actions,
      r.recreate_folders !== undefined
        ? { kind: 'recreate', folders: r.recreate_folders }
        : {
            kind: 'remove',
            transactionIds: turnTransactions(db, workspace.workspace_id, r.transition.undoTurns).map(
              (t) => t.transaction_id,
            ),
          },
    )
    conflicts.push(...folderPlan.conflicts)
    folders = folderPlan.folders
    evidence = { ...evidence, folders: folderPlan.disks }
  }
  const planned = code ? actions : []
  const revision = workspaceRevision(db, workspace.workspace_id)
  const source = activeBranch(db, session)
  const status = planStatus(unavailable, conflicts)
  const side_effects = sideEffects(db, [...new Set([...r.suffix, ...(code ? r.transition.undoTurns : [])])])
  const plan_hash = planHash({
    operation: request.operation,
    mode: r.mode,
    boundary: r.boundary,
    include_commands: request.include_commands === true,
    include_conflicting: [...include].sort(),
    keep_current: choices.kept,
    steps: request.steps ?? 'one',
    turn_id: r.turn_id,
    session: session.session_id,
    revision,
    source: source.branch_id,
    head_version: source.head_version,
    files_node: session.files_node_id,
    alignment: session.alignment,
    actions: planned,
    folders,
    effects: r.effects,
  })
  return ok({
    kind: 'rewind',
    status,
    plan_hash,
    operation: request.operation,
    session_id: session.session_id,
    turn_id: r.turn_id,
    mode: r.mode,
    boundary: r.boundary,
    workspace_revision: revision,
    head_version: source.head_version,
    actions: planned,
    conflicts,
    unavailable,
    kept: code ? choices.kept : [],
    code_unavailable: codeUnavailable,
    impact: {
      files: new Set(planned.map((a) => a.path)).size,
      turns: request.operation === 'rewind' ? r.suffix.length : r.transition.redoTurns.length,
      command_files: commandFiles,
      branch: r.branch,
    },
    folders,
    prompt_text: r.prompt_text,
    side_effects,
    effects: r.effects,
    evidence,
  })
}

function resolveRewind(db: Database, session: SessionRecord, request: RewindRequest): Outcome<Resolved> {
  let turnId = request.turn_id
  let boundary = request.boundary ?? 'before_turn'
  if (request.checkpoint_id !== undefined) {
    const checkpoint = checkpointById(db, request.checkpoint_id)
    if (!checkpoint) return fail('NOT_FOUND', 'There is no such checkpoint.', { checkpoint_id: request.checkpoint_id })
    boundary = checkpoint.boundary === 'after_turn' ? 'after_turn' : 'before_turn'
    turnId = checkpoint.assistant_node_id ?? answerOf(db, checkpoint.user_node_id)
  }
  if (turnId === undefined) return fail('INVALID_REQUEST', 'A rewind needs a turn_id (or a checkpoint_id).')
  const mode = request.mode ?? 'code_and_conversation'
  const turn = getNode(db, turnId)
  if (!turn || turn.session_id !== session.session_id || turn.kind !== 'assistant' || turn.parent_node_id === null) {
    return fail('NOT_FOUND', 'That turn is not part of this session.', { turn_id: turnId })
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
  const nothing = (message: string) => fail('UNAVAILABLE', message, { operation: 'redo', reason: 'not-offered' })
  if (last?.operation !== 'rewind' || last.effects === null)
    return nothing('Redo is offered right after an Undo or a Rewind.')
  if (request.turn_id !== undefined && request.turn_id !== last.turn_id) {
    return nothing('Redo applies to the restore that was just made.')
  }
  const rewound = last.effects
  const active = activeBranch(db, session)
  const created = rewound.create
  if (
    created
      ? active.branch_id !== created.branch_id || active.head_node_id !== created.head_node_id
      : active.branch_id !== rewound.source_branch_id
  ) {
    return nothing('The conversation moved on since this rewind; switch branches instead.')
  }
  const source = getBranch(db, rewound.source_branch_id)
  if (!source) return nothing('The branch this rewind left is gone.')
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

/** Commands the turns ran (what a file restore cannot take back), oldest first. */
function sideEffects(db: Database, turnIds: readonly string[]): SideEffect[] {
  const effects: SideEffect[] = []
  for (const turnId of turnIds) {
    for (const part of nodeParts(db, turnId)) {
      if (part.type !== 'tool' || part.tool !== 'bash' || part.started_at_ms === undefined) continue
      const command = (part.input as { command?: unknown } | null)?.command
      if (typeof command === 'string') effects.push({ turn_id: turnId, kind: 'command', command })
    }
  }
  return effects
}

/**
 * The person's answers to a blocked rewind (issue 23 item 11): a kept path leaves the plan (its
 * bytes stay as they are), an included one expects what is on disk now (the restore replaces it;
 * its receipt keeps those bytes, so File History can bring them back). Either way the choice is
 * part of the plan hash, so a change on disk after the preview makes the apply stale.
 */
async function resolveConflicting(
  deps: RewindDependencies,
  actions: RestoreAction[],
  include: ReadonlySet<string>,
  keep: ReadonlySet<string>,
): Promise<{ kept: string[]; unavailable: Array<{ path: string; reason: string }> }> {
  const kept: string[] = []
  const unavailable: Array<{ path: string; reason: string }> = []
  for (let index = actions.length - 1; index >= 0; index--) {
    const action = actions[index] as RestoreAction
    if (keep.has(action.path)) {
      kept.push(action.path)
      actions.splice(index, 1)
      continue
    }
    if (!include.has(action.path) || action.source === 'command') continue
    const current = await currentPathState(deps.workspace, action.path, deps.maxFileBytes)
    if (typeof current === 'string') {
      unavailable.push({ path: action.path, reason: current })
      continue
    }
    const { outside_last: _outside, ...rest } = action
    actions[index] = { ...rest, expected: current, changed_outside: true }
  }
  return { kept: kept.sort(), unavailable }
}
