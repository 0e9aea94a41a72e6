import { createHash } from 'node:crypto'
import { statfs } from 'node:fs/promises'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { foldReceipts } from '../changes'
import {
  laterLineageChanges,
  parentWritable,
  turnCommittedChanges,
  workspaceRevision,
  queryAllReceipts,
  readWriteTarget,
  type DiskState,
  type FileState,
  type Receipt,
  type Workspace,
} from '../journal'
import { canonicalJson, statement, type BlobStore, type Database, type Digest } from '../store'
import { planCommandActions, type CommandSnapshots } from './plan-commands'
import { getBranch } from './sessions'
import type { SessionRecord } from './types'

export type RestoreOperation = 'undo' | 'redo' | 'revert' | 'reapply'

/** The state a path must be in now, and the state the restore puts it in. */
export type PathState = { kind: 'absent' } | { kind: 'regular'; digest: Digest; mode: string; blob_ref: Digest | null }

export interface RestoreAction {
  readonly path: string
  /** Empty for a file only commands changed (it has no journal lineage). */
  readonly file_lineage_id: string
  readonly expected: PathState
  readonly target: PathState
  /** `command`: the target comes from a step snapshot (issue 16), not from a journal receipt. */
  readonly source?: 'journal' | 'command'
}

/** What a restore request asks for, besides the operation and turn. */
export interface RestoreRequest {
  readonly operation: RestoreOperation
  readonly turn_id?: string | undefined
  /** Issue 16: also put back the files the turn's commands changed (undo and revert only). */
  readonly include_commands?: boolean | undefined
  /** Command-changed files edited since, which the person explicitly includes anyway. */
  readonly include_conflicting?: readonly string[] | undefined
}

export interface Conflict {
  readonly path: string
  readonly reason: 'changed-since' | 'later-mutation' | 'unsafe-path' | 'turn-running' | 'no-space' | 'no-permission'
  readonly message: string
  readonly expected?: string
  readonly actual?: string
  /** `command`: a file changed by commands; the person may include it anyway (issue 16). */
  readonly source?: 'command'
}

export interface RestorePlan {
  readonly status: 'ready' | 'blocked' | 'unavailable'
  readonly plan_hash: string
  readonly operation: RestoreOperation
  readonly session_id: string
  readonly turn_id: string
  readonly workspace_revision: number
  readonly head_version: number
  readonly actions: RestoreAction[]
  readonly conflicts: Conflict[]
  readonly unavailable: Array<{ path: string; reason: string }>
  /** `command_files`: files the turn's commands changed, restored only when asked for. */
  readonly impact: { files: number; turns: number; command_files: number }
}

/** What the preflight read, so an apply planned under the lock needs no second pass. */
export interface PlanEvidence {
  readonly disks: ReadonlyMap<string, DiskState>
  readonly targets: ReadonlyMap<string, Buffer>
}

export interface PlanDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly workspace: Workspace
  readonly maxFileBytes: number
  /** The project's step snapshots, for files changed by commands (null: none are kept). */
  readonly snapshots?: CommandSnapshots | null
}

type IntentRow = { turn_id: string; operation: RestoreOperation }

function latestIntent(db: Database, sessionId: string): IntentRow | undefined {
  return statement(
    db,
    "SELECT turn_id, operation FROM restore_intents WHERE session_id = ? AND status = 'committed' ORDER BY created_at_ms DESC, rowid DESC LIMIT 1",
  ).get(sessionId) as IntentRow | undefined
}

function latestIntentForTurn(db: Database, turnId: string): IntentRow | undefined {
  return statement(
    db,
    "SELECT turn_id, operation FROM restore_intents WHERE turn_id = ? AND status = 'committed' ORDER BY created_at_ms DESC, rowid DESC LIMIT 1",
  ).get(turnId) as IntentRow | undefined
}

const isUndone = (intent: IntentRow | undefined) => intent?.operation === 'undo' || intent?.operation === 'revert'

/** Turns on the branch's predecessor chain, newest first (assistant node ids). */
function turnsOnBranch(db: Database, session: SessionRecord): string[] {
  const branch = getBranch(db, session.active_branch_id)
  const turns: string[] = []
  let node: string | null = branch?.head_node_id ?? null
  const parentOf = statement(db, 'SELECT parent_node_id, kind FROM nodes WHERE node_id = ?')
  while (node !== null) {
    const row = parentOf.get(node) as { parent_node_id: string | null; kind: string } | undefined
    if (!row) break
    if (row.kind === 'assistant') turns.push(node)
    node = row.parent_node_id
  }
  return turns
}

/** Whether the turn committed any file change or its commands changed files (index probes, not receipt loads). */
function changedFiles(db: Database, workspaceId: string, turnId: string): boolean {
  return (
    turnCommittedChanges(db, workspaceId, turnId) ||
    statement(
      db,
      `SELECT 1 FROM nodes n, json_each(n.parts) p WHERE n.node_id = ?
       AND json_extract(p.value, '$.type') = 'file-summary' AND json_extract(p.value, '$.summary.command_files') > 0`,
    ).get(turnId) !== undefined
  )
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
  const undone = onBranch.filter((turn) => isUndone(latestIntentForTurn(db, turn)))
  const undo = onBranch.find((turn) => !undone.includes(turn) && changedFiles(db, session.workspace_id, turn))
  const last = latestIntent(db, session.session_id)
  return {
    undo_turn_id: undo ?? null,
    redo_turn_id: last?.operation === 'undo' ? last.turn_id : null,
    undone_turn_ids: undone,
  }
}

/** Which turn an operation acts on, per spec 04's "when offered" column. */
function resolveTurn(
  db: Database,
  session: SessionRecord,
  operation: RestoreOperation,
  turnId: string | undefined,
): Outcome<string> {
  const onBranch = turnsOnBranch(db, session)
  const unavailable = (message: string) => fail('UNAVAILABLE', message, { operation, reason: 'not-offered' })
  switch (operation) {
    case 'undo': {
      const latest = onBranch.find(
        (turn) => changedFiles(db, session.workspace_id, turn) && !isUndone(latestIntentForTurn(db, turn)),
      )
      if (latest === undefined) return unavailable('There is no turn with file changes to undo on this branch.')
      if (turnId !== undefined && turnId !== latest)
        return unavailable('Undo applies to the latest turn that changed files; use Revert for an older one.')
      return ok(latest)
    }
    case 'redo': {
      const last = latestIntent(db, session.session_id)
      if (last?.operation !== 'undo') return unavailable('Redo is offered right after an Undo.')
      if (turnId !== undefined && turnId !== last.turn_id)
        return unavailable('Redo applies to the turn that was just undone.')
      return ok(last.turn_id)
    }
    case 'revert':
    case 'reapply': {
      if (turnId === undefined) return fail('INVALID_REQUEST', `${operation} needs a turn_id.`)
      if (!onBranch.includes(turnId))
        return fail('NOT_FOUND', 'That turn is not on the active branch of this session.', { turn_id: turnId })
      const undone = isUndone(latestIntentForTurn(db, turnId))
      if (operation === 'revert' && undone) return unavailable('That turn is already reverted.')
      if (operation === 'reapply' && !undone) return unavailable('Reapply is offered after a Revert.')
      return ok(turnId)
    }
  }
}

function toPathState(state: FileState): PathState | 'unsupported' {
  if (state.kind === 'absent') return { kind: 'absent' }
  if (state.kind === 'directory') return 'unsupported'
  return { kind: 'regular', digest: state.digest, mode: state.mode, blob_ref: state.blob_ref }
}

/**
 * Spec 04 step 1, read-only: one action per path however many times the turn touched it, each
 * preflighted against the disk now. Any failure is listed (every path, every reason) and the plan
 * is `blocked`; a receipt that cannot be restored exactly makes it `unavailable`.
 */
export async function planRestore(
  deps: PlanDependencies,
  session: SessionRecord,
  request: RestoreRequest,
  onProgress?: (done: number, total: number) => void,
): Promise<Outcome<RestorePlan & { evidence: PlanEvidence }>> {
  const { db, blobs, workspace } = deps
  if (request.include_commands && (request.operation === 'redo' || request.operation === 'reapply')) {
    return fail('INVALID_REQUEST', 'Only Undo and Revert can also restore files changed by commands.')
  }
  const turn = resolveTurn(db, session, request.operation, request.turn_id)
  if (turn.kind === 'error') return turn
  const turnId = turn.result
  const receipts = committedReceipts(db, workspace.workspace_id, turnId)
  const backwards = request.operation === 'undo' || request.operation === 'revert'
  const actions: RestoreAction[] = []
  const unavailable: Array<{ path: string; reason: string }> = []

  for (const change of foldReceipts(receipts)) {
    if (change.recoverability !== 'exact') {
      unavailable.push({ path: change.last_path, reason: change.unavailable_reason ?? 'not-exact' })
      continue
    }
    if (change.gaps > 0) {
      // Something outside Retrace wrote this file between two of the turn's changes: going back to
      // the turn's first before would also erase that write, and going forward would skip it.
      unavailable.push({ path: change.last_path, reason: 'outside-changes' })
      continue
    }
    const before = toPathState(change.before)
    const after = toPathState(change.after)
    if (before === 'unsupported' || after === 'unsupported') {
      unavailable.push({ path: change.last_path, reason: 'directory' })
      continue
    }
    // A rename restores both paths: the new name goes, the old name comes back (and vice versa).
    const pairs: Array<[string, PathState, PathState]> =
      change.first_path === change.last_path
        ? [[change.last_path, backwards ? after : before, backwards ? before : after]]
        : backwards
          ? [
              [change.last_path, after, { kind: 'absent' }],
              [change.first_path, { kind: 'absent' }, before],
            ]
          : [
              [change.first_path, before, { kind: 'absent' }],
              [change.last_path, { kind: 'absent' }, after],
            ]
    for (const [path, expected, target] of pairs) {
      if (sameState(expected, target)) continue
      actions.push({ path, file_lineage_id: change.file_lineage_id, expected, target })
    }
  }

  const commands = await planCommandActions({
    db,
    workspace,
    maxFileBytes: deps.maxFileBytes,
    turnId,
    receipts,
    snapshots: deps.snapshots ?? null,
    include: backwards && request.include_commands === true,
    includeConflicting: new Set(request.include_conflicting ?? []),
  })
  if (commands.kind === 'error') return commands
  unavailable.push(...commands.result.unavailable)
  // Target bytes that come from step snapshots rather than the content store.
  const snapshotBytes = new Map<string, Buffer>()
  for (const command of commands.result.actions) {
    const bytes = commands.result.bytes.get(command.path)
    const index = actions.findIndex((action) => action.path === command.path)
    if (index < 0) {
      actions.push({
        path: command.path,
        file_lineage_id: '',
        expected: command.expected,
        target: command.target,
        source: 'command',
      })
      if (bytes) snapshotBytes.set(command.path, bytes)
      continue
    }
    // Changed by commands and by the journal in one turn: the earliest change says what the file
    // was before the turn, the latest what the turn left.
    const journal = actions[index] as RestoreAction
    const steps = receipts
      .filter((r) => r.files.some((f) => f.path === command.path || f.old_path === command.path))
      .map((r) => commands.result.receiptSteps.get(r.transaction_id) ?? 0)
    const commandFirst = command.change.first.step < Math.min(...steps)
    const commandLast = command.change.last.step > Math.max(...steps)
    const merged: RestoreAction = {
      ...journal,
      expected: commandLast ? command.expected : journal.expected,
      target: commandFirst ? command.target : journal.target,
      source: commandFirst ? 'command' : 'journal',
    }
    if (commandFirst && bytes) snapshotBytes.set(command.path, bytes)
    if (sameContent(merged.expected, merged.target)) actions.splice(index, 1)
    else actions[index] = merged
  }

  const conflicts: Conflict[] = []
  const running = statement(db, "SELECT 1 FROM nodes WHERE session_id = ? AND status = 'running' LIMIT 1").get(
    session.session_id,
  )
  if (running) {
    conflicts.push({
      path: '',
      reason: 'turn-running',
      message: 'A turn is still running in this session; stop it or wait.',
    })
  }
  const lastSequence = Math.max(0, ...receipts.map((r) => r.workspace_sequence))
  let bytesNeeded = 0
  const disks = new Map<string, DiskState>()
  const targets = new Map<string, Buffer>()
  // Later changes of a lineage that still stand. Restores (revert/reapply transactions) only move
  // a file between states turns produced, and a later turn that is currently undone or reverted no
  // longer stands: neither is a change this turn's restore would overwrite. (The disk check above
  // still catches anything outside the journal.)
  const undoneTurns = new Map<string, boolean>()
  const stillStands = (row: { kind: string; origin_turn_id: string | null }) => {
    if (row.kind === 'revert' || row.kind === 'reapply') return false
    if (row.kind !== 'edit' || row.origin_turn_id === null) return true
    let undone = undoneTurns.get(row.origin_turn_id)
    if (undone === undefined) {
      undone = isUndone(latestIntentForTurn(db, row.origin_turn_id))
      undoneTurns.set(row.origin_turn_id, undone)
    }
    return !undone
  }
  const laterMutation = {
    get: (lineage: string, workspaceId: string, after: number) =>
      laterLineageChanges(db, lineage, workspaceId, after).some(stillStands),
  }
  for (const [index, action] of actions.entries()) {
    if (onProgress && index % 100 === 0) onProgress(index, actions.length)
    const fromSnapshot = snapshotBytes.get(action.path)
    if (action.target.kind === 'regular' && fromSnapshot) {
      bytesNeeded += fromSnapshot.length
      targets.set(action.path, fromSnapshot)
    } else if (action.target.kind === 'regular') {
      if (!action.target.blob_ref) {
        unavailable.push({ path: action.path, reason: 'no-recovery-blob' })
        continue
      }
      const bytes = await blobs.read(action.target.blob_ref)
      if (bytes.kind === 'error') {
        unavailable.push({ path: action.path, reason: String(bytes.error.details?.reason ?? 'missing') })
        continue
      }
      bytesNeeded += bytes.result.length
      targets.set(action.path, bytes.result)
    }
    const disk = await readWriteTarget(
      { root: workspace.root, dataDir: workspace.dataDir },
      action.path,
      deps.maxFileBytes,
    )
    if (disk.kind === 'error') {
      conflicts.push({ path: action.path, reason: 'unsafe-path', message: disk.error.message })
      continue
    }
    disks.set(action.path, disk.result)
    const actual: PathState | 'directory' =
      disk.result.kind === 'regular'
        ? { kind: 'regular', digest: disk.result.digest, mode: '', blob_ref: null }
        : disk.result.kind === 'absent'
          ? { kind: 'absent' }
          : 'directory'
    if (actual === 'directory' || !sameContent(actual, action.expected)) {
      conflicts.push({
        path: action.path,
        reason: 'changed-since',
        message: `"${action.path}" changed after this turn; its current content is not what the turn left.`,
        expected: describe(action.expected),
        actual: actual === 'directory' ? 'directory' : describe(actual),
        ...(action.source === 'command' ? { source: 'command' as const } : {}),
      })
      continue
    }
    if (backwards && action.file_lineage_id !== '') {
      const later = laterMutation.get(action.file_lineage_id, workspace.workspace_id, lastSequence)
      if (later) {
        conflicts.push({
          path: action.path,
          reason: 'later-mutation',
          message: `A later change to "${action.path}" depends on this turn.`,
        })
        continue
      }
    }
    if (!parentWritable(workspace.root, disk.result.place)) {
      conflicts.push({
        path: action.path,
        reason: 'no-permission',
        message: `Retrace may not write "${action.path}".`,
      })
    }
  }
  if (bytesNeeded > 0) {
    const fs = await statfs(workspace.root)
    if (fs.bavail * fs.bsize < bytesNeeded * 2) {
      conflicts.push({ path: '', reason: 'no-space', message: 'There is not enough free disk space for this restore.' })
    }
  }

  const revision = workspaceRevision(db, workspace.workspace_id)
  const headVersion = getBranch(db, session.active_branch_id)?.head_version ?? 0
  const status = unavailable.length > 0 ? 'unavailable' : conflicts.length > 0 ? 'blocked' : 'ready'
  const plan_hash = createHash('sha256')
    .update(
      canonicalJson({
        operation: request.operation,
        include_commands: request.include_commands === true,
        include_conflicting: [...(request.include_conflicting ?? [])].sort(),
        turn_id: turnId,
        session: session.session_id,
        revision,
        headVersion,
        actions,
      }),
    )
    .digest('hex')
  return ok({
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
    impact: { files: new Set(actions.map((a) => a.path)).size, turns: 1, command_files: commands.result.files },
    evidence: { disks, targets },
  })
}

function sameContent(a: PathState, b: PathState): boolean {
  return a.kind === b.kind && (a.kind === 'absent' || (b.kind === 'regular' && a.digest === b.digest))
}

function sameState(a: PathState, b: PathState): boolean {
  return sameContent(a, b) && (a.kind === 'absent' || (b.kind === 'regular' && a.mode === b.mode))
}

function describe(state: PathState): string {
  return state.kind === 'regular' ? state.digest : 'absent'
}
