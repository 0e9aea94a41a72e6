import { fail, ok, type Outcome } from '../../../shared/protocol'
import { turnTransactions, workspaceRevision, type Workspace } from '../journal'
import { activeBranch, nodeParts, type BranchEffects, type SessionRecord } from '../conversation'
import type { BlobStore, Database } from '../store'
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
import {
  resolveMultiTurn,
  type BranchOutcome,
  type RewindMode,
  type RewindOperation,
  type RewindRequest,
} from './resolve-rewind'

export type { BranchOutcome, RewindMode, RewindOperation, RewindRequest } from './resolve-rewind'

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
  const resolved = resolveMultiTurn(db, session, request)
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
    // Paths that already hold the target have nothing to write (preflight's `settled`).
    for (let i = actions.length - 1; i >= 0; i--) {
      if (checked.settled.has((actions[i] as RestoreAction).path)) actions.splice(i, 1)
    }
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
