import { ok, type HeldReason, type Outcome } from '../../../shared/protocol'
import { journalPositions, sourceOrder, type ChangePosition } from '../changes'
import {
  classifyTurnChanges,
  heldTurnChanges,
  nodeParts,
  patchFilesFrom,
  type CommandPathChange,
} from '../conversation'
import { queryAllReceipts, type Receipt, type Workspace } from '../journal'
import { receiptSteps, type PlannedTarget, type ProjectSnapshots, type SnapshotState } from '../snapshot'
import { digestOf, type Database } from '../store'
import { currentPathState, sameContent, type PathState, type RestoreAction } from './preflight'

/** The shadow repository's part of a restore: planning only, never writing. */
export type CommandSnapshots = Pick<ProjectSnapshots, 'revert' | 'changedPaths' | 'readBlobs'>

export interface CommandAction {
  readonly path: string
  readonly expected: PathState
  readonly target: PathState
  readonly change: CommandPathChange
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
  const patchFiles = patchFilesFrom(input.snapshots)
  // A held file (issue 23) is restored only when the person names it, like a conflicting one.
  const { patches, changes } = await classifyTurnChanges(parts, input.receipts, patchFiles, input.includeConflicting)
  const held = (await heldTurnChanges(parts, input.receipts, patchFiles))
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
    let expected: PathState | string = leftState(file.left, lefts.result)
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

/** A command action placed among the restore's turns, with the snapshot bytes of its target. */
export interface PlacedCommandAction {
  readonly action: RestoreAction
  readonly first: ChangePosition
  readonly last: ChangePosition
  readonly bytes?: Buffer
}

/** What the commands of a restore's turns change, across those turns. */
export interface TurnsCommandPlan {
  /** Files the turns' commands changed, one count per turn (a file two turns changed counts twice). */
  readonly changed: number
  /** The command actions this restore writes, one per path. */
  readonly actions: PlacedCommandAction[]
  readonly unavailable: Array<{ path: string; reason: string }>
  readonly held: Array<{ path: string; reason: HeldReason }>
  /** Where the journal's receipts of these turns changed a path, for the merge. */
  readonly journalPositions: (path: string) => ChangePosition[]
}

/**
 * Issue 16 across the turns a restore undoes (one for Undo and Revert, the rewound suffix for a
 * Rewind), oldest first: each file changed by commands goes back to its state before the earliest
 * turn whose commands changed it, and must now hold what the latest one left. `receiptsOf` gives
 * each turn's committed receipts (a single-turn restore already holds them).
 */
export async function planTurnsCommandActions(
  deps: {
    readonly db: Database
    readonly workspace: Workspace
    readonly maxFileBytes: number
    readonly snapshots?: CommandSnapshots | null | undefined
  },
  turns: readonly string[],
  include: boolean,
  includeConflicting: ReadonlySet<string>,
  receiptsOf: (turnId: string) => readonly Receipt[] = (turnId) =>
    queryAllReceipts(deps.db, { workspace_id: deps.workspace.workspace_id, origin_turn_id: turnId }).filter(
      (r) => r.status === 'committed',
    ),
): Promise<Outcome<TurnsCommandPlan>> {
  const byPath = new Map<string, PlacedCommandAction>()
  const unavailable: Array<{ path: string; reason: string }> = []
  const held: Array<{ path: string; reason: HeldReason }> = []
  const positioned: Array<{ receipt: Receipt; position: ChangePosition }> = []
  let changed = 0
  for (const [index, turnId] of turns.entries()) {
    const receipts = receiptsOf(turnId)
    const planned = await planCommandActions({
      db: deps.db,
      workspace: deps.workspace,
      maxFileBytes: deps.maxFileBytes,
      turnId,
      receipts,
      snapshots: deps.snapshots ?? null,
      include,
      includeConflicting,
    })
    if (planned.kind === 'error') return planned
    changed += planned.result.files
    unavailable.push(...planned.result.unavailable)
    held.push(...planned.result.held)
    for (const receipt of receipts) {
      positioned.push({
        receipt,
        position: { turn: index, step: planned.result.receiptSteps.get(receipt.transaction_id) ?? 0 },
      })
    }
    for (const command of planned.result.actions) {
      const known = byPath.get(command.path)
      const bytes = known ? known.bytes : planned.result.bytes.get(command.path)
      byPath.set(command.path, {
        action: {
          path: command.path,
          file_lineage_id: '',
          expected: command.expected,
          target: known?.action.target ?? command.target,
          source: 'command',
        },
        first: known?.first ?? { turn: index, step: command.change.first.step },
        last: { turn: index, step: command.change.last.step },
        ...(bytes ? { bytes } : {}),
      })
    }
  }
  const receipts = positioned.map((entry) => entry.receipt)
  const positionOf = new Map(positioned.map((entry) => [entry.receipt, entry.position]))
  return ok({
    changed,
    actions: [...byPath.values()],
    unavailable,
    held,
    journalPositions: (path) =>
      journalPositions(receipts, path, (receipt) => positionOf.get(receipt) ?? { turn: 0, step: 0 }),
  })
}

/**
 * Command changes into the journal's actions, one action per path, by the one rule for a path
 * both changed (changes/ `sourceOrder`): it goes back to the state before whichever changed it
 * first and must now hold what whichever changed it last left. Snapshot bytes are kept for the
 * targets that come from a step snapshot.
 */
export function mergeCommandActions(
  actions: RestoreAction[],
  commands: Pick<TurnsCommandPlan, 'actions' | 'journalPositions'>,
  snapshotBytes: Map<string, Buffer>,
): void {
  for (const { action: command, first, last, bytes } of commands.actions) {
    const index = actions.findIndex((action) => action.path === command.path)
    if (index < 0) {
      actions.push(command)
      if (bytes && command.target.kind === 'regular') snapshotBytes.set(command.path, bytes)
      continue
    }
    const journal = actions[index] as RestoreAction
    const order = sourceOrder({ first, last }, commands.journalPositions(command.path))
    const merged: RestoreAction = {
      ...journal,
      expected: order.after === 'command' ? command.expected : journal.expected,
      target: order.before === 'command' ? command.target : journal.target,
      source: order.before,
    }
    if (order.before === 'command' && bytes) snapshotBytes.set(command.path, bytes)
    if (sameContent(merged.expected, merged.target)) actions.splice(index, 1)
    else actions[index] = merged
  }
}

function targetState(target: PlannedTarget): PathState | string {
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

function leftState(left: SnapshotState | null, bytes: ReadonlyMap<string, Buffer | null>): PathState | string {
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
