import { ok, type HeldReason, type Outcome, type PatchPart } from '../../../shared/protocol'
import type { Receipt, Workspace } from '../journal'
import {
  commandChanges,
  commandPatches,
  heldCommandChanges,
  receiptSteps,
  type CommandChange,
  type PlannedTarget,
  type ProjectSnapshots,
  type SnapshotState,
} from '../snapshot'
import { nodeParts, type Part } from '../conversation'
import { digestOf, type Database } from '../store'
import { currentPathState } from './preflight'

/** The shadow repository's part of a restore: planning only, never writing. */
export type CommandSnapshots = Pick<ProjectSnapshots, 'revert' | 'changedPaths' | 'readBlobs'>

/** The state a path must be in now, and the state the restore puts it in (as plan-restore's). */
export type CommandPathState =
  { kind: 'absent' } | { kind: 'regular'; digest: string; mode: string; blob_ref: string | null }

export interface CommandAction {
  readonly path: string
  readonly expected: CommandPathState
  readonly target: CommandPathState
  readonly change: CommandChange
}

export interface CommandPlan {
  /** Files the turn's commands changed (whether or not they are restored). */
  readonly files: number
  readonly actions: CommandAction[]
  /** Target bytes by path, from the step snapshots. */
  readonly bytes: Map<string, Buffer>
  readonly unavailable: Array<{ path: string; reason: string }>
  /** Issue 23: changed during command steps but not the commands' own; restored only when named. */
  readonly held: Array<{ path: string; reason: HeldReason }>
  /** The step of each journal transaction of the turn, to order command and journal changes of one path. */
  readonly receiptSteps: Map<string, number>
}

/** The turn's patches with files its commands changed (the receipts of the same step taken out). */
export async function turnCommandChanges(
  parts: readonly Part[],
  receipts: readonly Receipt[] | (() => readonly Receipt[]),
  snapshots: Pick<CommandSnapshots, 'changedPaths'> | null,
  include: ReadonlySet<string> = new Set(),
) {
  if (!parts.some((part) => part.type === 'patch')) return []
  const { receiptPaths, fullList } = commandSources(receipts, snapshots)
  return commandPatches(parts, receiptPaths, fullList, include)
}

/** Files of the turn's command steps that are shown but not the commands' own (issue 23). */
export async function turnHeldChanges(
  parts: readonly Part[],
  receipts: readonly Receipt[] | (() => readonly Receipt[]),
  snapshots: Pick<CommandSnapshots, 'changedPaths'> | null,
) {
  if (!parts.some((part) => part.type === 'patch')) return []
  const { receiptPaths, fullList } = commandSources(receipts, snapshots)
  return heldCommandChanges(parts, receiptPaths, fullList)
}

function commandSources(
  receipts: readonly Receipt[] | (() => readonly Receipt[]),
  snapshots: Pick<CommandSnapshots, 'changedPaths'> | null,
) {
  const list = typeof receipts === 'function' ? receipts() : receipts
  const paths = new Map(
    list.map((r) => [r.transaction_id, r.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path]))]),
  )
  const fullList = async (patch: PatchPart) => {
    if (!snapshots) return null
    const listed = await snapshots.changedPaths(patch.hash, patch.after)
    return listed.kind === 'ok' ? listed.result : null
  }
  return { receiptPaths: (id: string) => paths.get(id) ?? [], fullList }
}

const octalMode = (mode: '100644' | '100755') => (mode === '100755' ? '0755' : '0644')

/**
 * Issue 16 "Also restore files changed by commands": each file goes back to its state before the
 * first step whose command changed it (spec 06 revert: earliest patch wins; absent there → the
 * step created it → delete). What the steps left becomes the action's expected state, so a file
 * someone edited since is a conflict like any other — unless the person explicitly included it,
 * in which case its current bytes are what the restore replaces (and its receipt keeps them).
 */
export async function planCommandActions(input: {
  readonly db: Database
  readonly workspace: Workspace
  readonly maxFileBytes: number
  readonly turnId: string
  readonly receipts: readonly Receipt[]
  readonly snapshots: CommandSnapshots | null
  readonly include: boolean
  readonly includeConflicting: ReadonlySet<string>
}): Promise<Outcome<CommandPlan>> {
  const parts = nodeParts(input.db, input.turnId)
  // A held file (issue 23) is restored only when the person names it, like a conflicting one.
  const patches = await turnCommandChanges(parts, input.receipts, input.snapshots, input.includeConflicting)
  const changes = commandChanges(patches)
  const held = (await turnHeldChanges(parts, input.receipts, input.snapshots))
    .filter((change) => !input.includeConflicting.has(change.path))
    .map(({ path, reason }) => ({ path, reason }))
  const plan: CommandPlan = {
    files: changes.length,
    actions: [],
    bytes: new Map(),
    unavailable: [],
    held,
    receiptSteps: receiptSteps(parts),
  }
  if (!input.include || changes.length === 0) return ok(plan)
  if (!input.snapshots) {
    for (const change of changes) plan.unavailable.push({ path: change.path, reason: 'no-snapshots' })
    return ok(plan)
  }
  const planned = await input.snapshots.revert(patches)
  if (planned.kind === 'error') {
    const reason = String(planned.error.details?.reason ?? 'snapshot-unreadable')
    for (const change of changes) plan.unavailable.push({ path: change.path, reason })
    return ok(plan)
  }
  const lefts = await input.snapshots.readBlobs(
    planned.result.flatMap((p) => (p.left?.kind === 'regular' ? [p.left.oid] : [])),
    input.maxFileBytes,
  )
  if (lefts.kind === 'error') {
    for (const change of changes) plan.unavailable.push({ path: change.path, reason: 'snapshot-expired' })
    return ok(plan)
  }
  const byPath = new Map(changes.map((change) => [change.path, change]))
  for (const file of planned.result) {
    const change = byPath.get(file.path)
    if (!change) continue
    const target = targetState(file.target)
    if (typeof target === 'string') {
      plan.unavailable.push({ path: file.path, reason: target })
      continue
    }
    if (file.target.kind === 'regular' && file.target.bytes) plan.bytes.set(file.path, file.target.bytes)
    let expected: CommandPathState | string = leftState(file.left, lefts.result)
    if (input.includeConflicting.has(file.path)) {
      // Explicitly included: whatever is there now is what this restore replaces.
      expected = await currentPathState(input.workspace, file.path, input.maxFileBytes)
    }
    if (typeof expected === 'string') {
      plan.unavailable.push({ path: file.path, reason: expected })
      continue
    }
    plan.actions.push({ path: file.path, expected, target, change })
  }
  // The journal writes files, not folders: a path that is a file on one side and a folder's
  // content on the other cannot be restored in one transaction.
  const paths = new Set(plan.actions.map((a) => a.path))
  const swapped = plan.actions.filter((a) =>
    a.path.split('/').some((_, i, segments) => i > 0 && paths.has(segments.slice(0, i).join('/'))),
  )
  for (const nested of swapped) {
    const parent = [...paths].find((p) => nested.path.startsWith(`${p}/`)) ?? nested.path
    for (const path of [nested.path, parent]) {
      if (!plan.unavailable.some((u) => u.path === path)) plan.unavailable.push({ path, reason: 'file-folder-swap' })
    }
  }
  const blocked = new Set(plan.unavailable.map((u) => u.path))
  return ok({ ...plan, actions: plan.actions.filter((a) => !blocked.has(a.path)) })
}

function targetState(target: PlannedTarget): CommandPathState | string {
  switch (target.kind) {
    case 'absent':
      return { kind: 'absent' }
    case 'regular':
      if (!target.bytes) return 'too-large'
      return { kind: 'regular', digest: digestOf(target.bytes), mode: octalMode(target.mode), blob_ref: null }
    case 'symlink':
      return 'symlink'
    case 'submodule':
      return 'submodule'
  }
}

function leftState(left: SnapshotState | null, bytes: ReadonlyMap<string, Buffer | null>): CommandPathState | string {
  if (left === null) return 'snapshot-missing'
  switch (left.kind) {
    case 'absent':
      return { kind: 'absent' }
    case 'regular': {
      const content = bytes.get(left.oid)
      return content ? { kind: 'regular', digest: digestOf(content), mode: '', blob_ref: null } : 'too-large'
    }
    case 'symlink':
      return 'symlink'
    case 'submodule':
      return 'submodule'
  }
}
