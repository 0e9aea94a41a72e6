import type { HeldReason, PatchPart, SnapshotNote, ToolPart, TurnPart, TurnSummaryData } from '../../../shared/protocol'
import { inDependencyFolder } from './attribute'

/** One step's files changed by commands: its patch minus the files it has receipts for. */
export interface CommandPatch {
  readonly step: number
  /** The snapshot when the step began. */
  readonly hash: string
  /** The snapshot when its tools had finished. */
  readonly after: string
  readonly files: readonly string[]
}

/** A file changed by commands in a turn, folded over its steps (earliest before, latest after). */
export interface CommandChange {
  readonly path: string
  readonly first: { readonly step: number; readonly hash: string }
  readonly last: { readonly step: number; readonly after: string }
}

/** A file changed during a command step that its commands are not credited with (issue 23). */
export interface HeldChange {
  readonly path: string
  readonly step: number
  readonly reason: HeldReason
}

/** Why this path of this patch is not the step's commands' change; null when it is. */
export function heldReason(patch: PatchPart, path: string): HeldReason | null {
  if (patch.held_all) return patch.held_all
  const listed = patch.held?.find((entry) => entry.path === path)
  if (listed) return listed.reason
  if (patch.nested_repositories?.some((folder) => path.startsWith(`${folder}/`))) return 'nested-repository'
  if (inDependencyFolder(path)) return 'ignored-folder'
  return null
}

const ranCommand = (part: ToolPart) => part.tool === 'bash' && part.started_at_ms !== undefined
const runsInBackground = (part: ToolPart) =>
  ranCommand(part) && (part.input as { run_in_background?: unknown } | null)?.run_in_background === true

/**
 * Spec 06 / issue 16: the files a turn's commands changed — those in a step's patch with no
 * receipt in that step. Only steps where a command ran (or after a background command started in
 * this turn) count: a step that ran no command cannot have changed files without a receipt, so
 * what changed then was someone else (the person, another program) and is left alone.
 * Issue 23: a file the step's commands are not credited with (`heldReason`) is left out too,
 * unless the person named it in `include`. `fullList` recomputes a patch whose stored file list
 * was cut short.
 */
export async function commandPatches(
  parts: readonly TurnPart[],
  receiptPaths: (transactionId: string) => readonly string[],
  fullList: (patch: PatchPart) => Promise<readonly string[] | null>,
  include: ReadonlySet<string> = new Set(),
): Promise<CommandPatch[]> {
  const sorted = await sortCommandSteps(parts, receiptPaths, fullList)
  const held = heldOf(sorted)
  return sorted.flatMap(({ patch, files }) => {
    const byCommands = files.filter((path) => !held.has(path) || include.has(path))
    return byCommands.length > 0 ? [{ step: patch.step, hash: patch.hash, after: patch.after, files: byCommands }] : []
  })
}

/** The files of command steps that are shown but not credited to the commands, with why. */
export async function heldCommandChanges(
  parts: readonly TurnPart[],
  receiptPaths: (transactionId: string) => readonly string[],
  fullList: (patch: PatchPart) => Promise<readonly string[] | null>,
): Promise<HeldChange[]> {
  const held = heldOf(await sortCommandSteps(parts, receiptPaths, fullList))
  return [...held.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/**
 * Held paths over the whole turn: a file held in one step is held in all of them, since putting
 * back what an earlier step's command did would also undo the later change that is not theirs
 * (a file the person edited afterwards, a folder that became a repository of its own).
 */
function heldOf(sorted: ReadonlyArray<{ patch: PatchPart; files: readonly string[] }>): Map<string, HeldChange> {
  const byPath = new Map<string, HeldChange>()
  const nested = sorted.flatMap(({ patch }) => patch.nested_repositories ?? [])
  for (const { patch, files } of sorted) {
    for (const path of files) {
      const reason =
        heldReason(patch, path) ??
        (nested.some((folder) => path.startsWith(`${folder}/`)) ? ('nested-repository' as const) : null)
      if (reason !== null && !byPath.has(path)) byPath.set(path, { path, step: patch.step, reason })
    }
  }
  return byPath
}

/**
 * What the turn card and Review say about command changes that were not recorded or will not be
 * restored by default: held files by reason, files left out of the snapshots, and the reason a
 * command step has no snapshot (issue 23: said, never silent).
 */
export async function commandNotes(
  parts: readonly TurnPart[],
  receiptPaths: (transactionId: string) => readonly string[],
  fullList: (patch: PatchPart) => Promise<readonly string[] | null>,
): Promise<Pick<TurnSummaryData, 'command_held' | 'command_excluded' | 'command_unrecorded'>> {
  const held = await heldCommandChanges(parts, receiptPaths, fullList)
  const heldCounts = new Map<HeldReason, number>()
  for (const change of held) heldCounts.set(change.reason, (heldCounts.get(change.reason) ?? 0) + 1)
  const excluded = new Map<string, Set<string>>()
  const steps = commandSteps(parts)
  let unrecorded: SnapshotNote | undefined
  for (const part of parts) {
    if (part.type === 'patch' && steps.has(part.step)) {
      for (const entry of part.excluded ?? []) {
        const paths = excluded.get(entry.reason) ?? new Set<string>()
        paths.add(entry.path)
        excluded.set(entry.reason, paths)
      }
    }
    // Snapshots that are off, or a folder that is no git repository, are settings the turn states
    // once already (its snapshot note); a capture that failed is a loss the card must name.
    if (part.type !== 'step-start' && part.type !== 'step-finish') continue
    const note = part.snapshot_note
    if (note && steps.has(part.step) && !CONFIGURED.has(note.reason)) unrecorded ??= note
  }
  return {
    ...(heldCounts.size > 0 ? { command_held: [...heldCounts].map(([reason, files]) => ({ reason, files })) } : {}),
    ...(excluded.size > 0
      ? {
          command_excluded: [...excluded].map(([reason, paths]) => ({
            reason: reason as 'large' | 'nested-repository' | 'not-unicode',
            files: paths.size,
          })),
        }
      : {}),
    ...(unrecorded ? { command_unrecorded: unrecorded } : {}),
  }
}

const CONFIGURED = new Set(['disabled', 'not-git', 'no-git'])

/** Steps where a command ran, or that followed a background command started in the turn. */
function commandSteps(parts: readonly TurnPart[]): Set<number> {
  const steps = new Set<number>()
  let step = -1
  let background = false
  for (const part of parts) {
    if (part.type === 'step-start') {
      step = part.step
      if (background) steps.add(step)
    } else if (part.type === 'tool') {
      if (ranCommand(part)) steps.add(step)
      if (runsInBackground(part)) background = true
    }
  }
  return steps
}

/** Each command step's patch with its full file list minus the files the step has receipts for. */
async function sortCommandSteps(
  parts: readonly TurnPart[],
  receiptPaths: (transactionId: string) => readonly string[],
  fullList: (patch: PatchPart) => Promise<readonly string[] | null>,
): Promise<Array<{ patch: PatchPart; files: readonly string[] }>> {
  const steps = commandSteps(parts)
  const receiptIds = new Map<number, string[]>()
  let step = -1
  for (const part of parts) {
    if (part.type === 'step-start') step = part.step
    else if (part.type === 'tool') receiptIds.set(step, [...(receiptIds.get(step) ?? []), ...part.receipt_ids])
  }
  const result: Array<{ patch: PatchPart; files: readonly string[] }> = []
  for (const patch of parts) {
    if (patch.type !== 'patch' || !steps.has(patch.step)) continue
    // Receipts are looked up only for steps that have a patch and ran a command.
    const own = new Set((receiptIds.get(patch.step) ?? []).flatMap((id) => [...receiptPaths(id)]))
    const files = patch.files_total > patch.files.length ? await fullList(patch) : patch.files
    if (files === null) continue
    result.push({ patch, files: files.filter((path) => !own.has(path)) })
  }
  return result
}

/** One entry per path, in path order: the earliest patch says what it was, the latest what was left. */
export function commandChanges(patches: readonly CommandPatch[]): CommandChange[] {
  const byPath = new Map<string, { first: CommandChange['first']; last: CommandChange['last'] }>()
  for (const patch of [...patches].sort((a, b) => a.step - b.step)) {
    for (const path of patch.files) {
      const known = byPath.get(path)
      const last = { step: patch.step, after: patch.after }
      if (known) known.last = last
      else byPath.set(path, { first: { step: patch.step, hash: patch.hash }, last })
    }
  }
  return [...byPath]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, { first, last }]) => ({ path, first, last }))
}

/** The step each journal transaction of a turn was committed in (from the tool parts that carry it). */
export function receiptSteps(parts: readonly TurnPart[]): Map<string, number> {
  const steps = new Map<string, number>()
  let step = -1
  for (const part of parts) {
    if (part.type === 'step-start') step = part.step
    else if (part.type === 'tool') for (const id of part.receipt_ids) if (!steps.has(id)) steps.set(id, step)
  }
  return steps
}
