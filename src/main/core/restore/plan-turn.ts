import { fail, ok, type FailureReasonOf, type HeldReason, type Outcome } from '../../../shared/protocol'
import { foldReceipts } from '../changes'
import {
  laterLineageChanges,
  turnCommittedChanges,
  workspaceRevision,
  queryAllReceipts,
  type Receipt,
  type Workspace,
} from '../journal'
import { chainOf, getBranch, turnSummaryNamesCommandFiles, type SessionRecord } from '../conversation'
import type { BlobStore, Database } from '../store'
import { lastRestore, latestTurnRestore } from './intents'
import { mergeCommandActions, planTurnsCommandActions, type CommandSnapshots } from './plan-commands'
import { planFolders, planHash, planStatus } from './plan-shared'
import {
  pathMoves,
  preflightActions,
  runningTurnConflict,
  sameState,
  type Conflict,
  type PlanEvidence,
  type RestoreAction,
} from './preflight'
import type { FolderActions } from './plan-folders'
import { inverseOf, REDOABLE } from './plan-redo'

export type TurnOperation = 'undo' | 'redo' | 'revert' | 'reapply'

export type { Conflict, PathState, PlanEvidence, RestoreAction } from './preflight'

/** What a restore request asks for, besides the operation and turn. */
export interface TurnRequest {
  readonly operation: TurnOperation
  readonly turn_id?: string | undefined
  /** Issue 16: also put back the files the turn's commands changed (undo and revert only). */
  readonly include_commands?: boolean | undefined
  /** Command-changed files edited since, which the person explicitly includes anyway. */
  readonly include_conflicting?: readonly string[] | undefined
}

export interface TurnPlan {
  /** A single-turn plan (history.plan's result is a union on `kind`). */
  readonly kind: 'turn'
  readonly status: 'ready' | 'blocked' | 'unavailable'
  readonly plan_hash: string
  readonly operation: TurnOperation
  readonly session_id: string
  readonly turn_id: string
  readonly workspace_revision: number
  readonly head_version: number
  readonly actions: RestoreAction[]
  readonly conflicts: Conflict[]
  readonly unavailable: Array<{ path: string; reason: string }>
  /** `command_files`: files the turn's commands changed, restored only when asked for. */
  readonly impact: { files: number; turns: number; command_files: number }
  /** Issue 23: files of command steps that are not the commands' own, restored only when named. */
  readonly command_held?: Array<{ path: string; reason: HeldReason }>
  /** Folders the restore removes (Undo, Revert) or makes again (Redo), besides its files. */
  readonly folders: FolderActions
}

export interface PlanDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly workspace: Workspace
  readonly maxFileBytes: number
  /** The project's step snapshots, for files changed by commands (null: none are kept). */
  readonly snapshots?: CommandSnapshots | null
}

const isUndone = (operation: string | undefined) => operation === 'undo' || operation === 'revert'

/** Whether the turn's latest restore undid it (Undo or Revert): Review marks its rows. */
export function turnUndone(db: Database, turnId: string): boolean {
  return isUndone(latestTurnRestore(db, turnId))
}

/** Turns on the branch's predecessor chain, newest first (assistant node ids). */
function turnsOnBranch(db: Database, session: SessionRecord): string[] {
  const head = getBranch(db, session.active_branch_id)?.head_node_id
  if (head === undefined) return []
  return chainOf(db, head)
    .flatMap((node) => (node.kind === 'assistant' ? [node.node_id] : []))
    .reverse()
}

/**
 * Whether the turn committed any file change or its commands changed files — their own, or held
 * ones the person may name (issue 23) — by index probes, not receipt loads.
 */
function changedFiles(db: Database, workspaceId: string, turnId: string): boolean {
  return turnCommittedChanges(db, workspaceId, turnId) || turnSummaryNamesCommandFiles(db, turnId)
}

function committedReceipts(db: Database, workspaceId: string, turnId: string): Receipt[] {
  return queryAllReceipts(db, { workspace_id: workspaceId, origin_turn_id: turnId }).filter(
    (r) => r.status === 'committed',
  )
}

/** Which single-turn restores are executable now (for turn cards); the same rules as resolveTurn. */
export function restoreOffers(
  db: Database,
  session: SessionRecord,
): { undo_turn_id: string | null; redo_turn_id: string | null; undone_turn_ids: string[] } {
  const onBranch = turnsOnBranch(db, session)
  const undone = onBranch.filter((turn) => isUndone(latestTurnRestore(db, turn)))
  const undo = onBranch.find((turn) => !undone.includes(turn) && changedFiles(db, session.workspace_id, turn))
  const last = lastRestore(db, session.session_id)
  return {
    undo_turn_id: undo ?? null,
    redo_turn_id: last !== undefined && REDOABLE.has(last.operation) ? last.turn_id : null,
    undone_turn_ids: undone,
  }
}

/** Which turn an operation acts on, per spec 04's "when offered" column. */
function resolveTurn(
  db: Database,
  session: SessionRecord,
  operation: TurnOperation,
  turnId: string | undefined,
): Outcome<string> {
  const onBranch = turnsOnBranch(db, session)
  // One reason per case: each sentence says what to do instead, and a view (or the catalogue) can only say it from the reason.
  const unavailable = (message: string, reason: FailureReasonOf<'UNAVAILABLE'>) =>
    fail('UNAVAILABLE', message, { operation, reason })
  switch (operation) {
    case 'undo': {
      const latest = onBranch.find(
        (turn) => changedFiles(db, session.workspace_id, turn) && !isUndone(latestTurnRestore(db, turn)),
      )
      if (latest === undefined)
        return unavailable('There is no turn with file changes to undo on this branch.', 'nothing-to-undo')
      if (turnId !== undefined && turnId !== latest)
        return unavailable(
          'Undo applies to the latest turn that changed files; use Revert for an older one.',
          'undo-latest-only',
        )
      return ok(latest)
    }
    case 'redo': {
      // A Rewind's Redo moves the conversation too: it is planned as a multi-turn restore.
      const last = lastRestore(db, session.session_id)
      if (last?.operation !== 'undo')
        return unavailable('Redo is offered right after an Undo or a Rewind.', 'redo-after-undo')
      if (turnId !== undefined && turnId !== last.turn_id)
        return unavailable('Redo applies to the turn that was just undone.', 'redo-last-only')
      return ok(last.turn_id)
    }
    case 'revert':
    case 'reapply': {
      if (turnId === undefined) return fail('INVALID_REQUEST', `${operation} needs a turn_id.`)
      if (!onBranch.includes(turnId))
        return fail('NOT_FOUND', 'That turn is not on the active branch of this session.', {
          turn_id: turnId,
          reason: 'not-on-branch',
        })
      const undone = isUndone(latestTurnRestore(db, turnId))
      if (operation === 'revert' && undone) return unavailable('That turn is already reverted.', 'already-reverted')
      if (operation === 'reapply' && !undone)
        return unavailable('Reapply is offered after a Revert.', 'reapply-after-revert')
      return ok(turnId)
    }
  }
}

/**
 * Spec 04 step 1, read-only: one action per path however many times the turn touched it, each
 * preflighted against the disk now. Any failure is listed (every path, every reason) and the plan
 * is `blocked`; a receipt that cannot be restored exactly makes it `unavailable`.
 */
export async function planTurnRestore(
  deps: PlanDependencies,
  session: SessionRecord,
  request: TurnRequest,
  onProgress?: (done: number, total: number) => void,
): Promise<Outcome<TurnPlan & { evidence: PlanEvidence }>> {
  const { db, blobs, workspace } = deps
  if (request.include_commands && (request.operation === 'redo' || request.operation === 'reapply')) {
    return fail('INVALID_REQUEST', 'Only Undo and Revert can also restore files changed by commands.')
  }
  const turn = resolveTurn(db, session, request.operation, request.turn_id)
  if (turn.kind === 'error') return turn
  const turnId = turn.result
  const backwards = request.operation === 'undo' || request.operation === 'revert'
  const redo =
    request.operation === 'redo' ? inverseOf(db, lastRestore(db, session.session_id)?.transaction_id ?? null) : null
  // Redo is the Undo's exact inverse (its own receipt), so it needs none of the turn's receipts.
  const receipts = redo ? [] : committedReceipts(db, workspace.workspace_id, turnId)
  const planActions: RestoreAction[] = redo ? [...redo.actions] : []
  const unavailable: Array<{ path: string; reason: string }> = redo ? redo.unavailable : []

  for (const change of foldReceipts(receipts)) {
    const moved = pathMoves(change, backwards ? 'backwards' : 'forwards')
    if (moved.kind === 'unavailable') {
      unavailable.push({ path: change.last_path, reason: moved.reason })
      continue
    }
    for (const [path, expected, target] of moved.moves) {
      if (sameState(expected, target)) continue
      planActions.push({ path, file_lineage_id: change.file_lineage_id, expected, target })
    }
  }

  // The one-turn case of a multi-turn restore's commands: the turn's own receipts order them.
  const commands = redo
    ? ok({ changed: 0, actions: [], unavailable: [], held: [], journalPositions: () => [] })
    : await planTurnsCommandActions(
        deps,
        [turnId],
        backwards && request.include_commands === true,
        new Set(request.include_conflicting ?? []),
        () => receipts,
      )
  if (commands.kind === 'error') return commands
  unavailable.push(...commands.result.unavailable)
  // Target bytes that come from step snapshots rather than the content store.
  const snapshotBytes = new Map<string, Buffer>()
  mergeCommandActions(planActions, commands.result, snapshotBytes)

  const conflicts: Conflict[] = []
  const running = runningTurnConflict(db, session.session_id)
  if (running) conflicts.push(running)
  const lastSequence = Math.max(0, ...receipts.map((r) => r.workspace_sequence))
  // Later changes of a lineage that still stand. Restores (revert/reapply transactions) only move
  // a file between states turns produced, and a later turn that is currently undone or reverted no
  // longer stands: neither is a change this turn's restore would overwrite. (The disk check
  // still catches anything outside the journal.)
  const undoneTurns = new Map<string, boolean>()
  const stillStands = (row: { kind: string; origin_turn_id: string | null }) => {
    if (row.kind === 'revert' || row.kind === 'reapply' || row.kind === 'rewind') return false
    if (row.kind !== 'edit' || row.origin_turn_id === null) return true
    let undone = undoneTurns.get(row.origin_turn_id)
    if (undone === undefined) {
      undone = isUndone(latestTurnRestore(db, row.origin_turn_id))
      undoneTurns.set(row.origin_turn_id, undone)
    }
    return !undone
  }
  const checked = await preflightActions({
    blobs,
    workspace,
    maxFileBytes: deps.maxFileBytes,
    actions: planActions,
    snapshotBytes,
    changedMessage: (path) => `"${path}" changed after this turn; its current content is not what the turn left.`,
    extraCheck: (action) =>
      backwards &&
      action.file_lineage_id !== '' &&
      laterLineageChanges(db, action.file_lineage_id, workspace.workspace_id, lastSequence).some(stillStands)
        ? {
            path: action.path,
            reason: 'later-mutation',
            message: `A later change to "${action.path}" depends on this turn.`,
          }
        : null,
    onProgress,
  })
  conflicts.push(...checked.conflicts)
  unavailable.push(...checked.unavailable)
  const { disks, targets } = checked
  const actions = planActions.filter((action) => !checked.settled.has(action.path))
  const folderPlan = await planFolders(
    { db, workspace, maxFileBytes: deps.maxFileBytes },
    actions,
    redo
      ? { kind: 'recreate', folders: redo.folders }
      : backwards
        ? { kind: 'remove', transactionIds: receipts.map((r) => r.transaction_id) }
        : { kind: 'none' },
  )
  conflicts.push(...folderPlan.conflicts)
  const folders = folderPlan.folders

  const revision = workspaceRevision(db, workspace.workspace_id)
  const headVersion = getBranch(db, session.active_branch_id)?.head_version ?? 0
  const status = planStatus(unavailable, conflicts)
  const plan_hash = planHash({
    operation: request.operation,
    include_commands: request.include_commands === true,
    include_conflicting: [...(request.include_conflicting ?? [])].sort(),
    turn_id: turnId,
    session: session.session_id,
    revision,
    headVersion,
    actions,
    folders,
  })
  return ok({
    kind: 'turn',
    status,
    plan_hash,
    operation: request.operation,
    session_id: session.session_id,
    turn_id: turnId,
    workspace_revision: revision,
    head_version: headVersion,
    actions,
    conflicts,
    unavailable,
    impact: { files: new Set(actions.map((a) => a.path)).size, turns: 1, command_files: commands.result.changed },
    ...(commands.result.held.length > 0 ? { command_held: commands.result.held } : {}),
    folders,
    evidence: { disks, targets, folders: folderPlan.disks },
  })
}
