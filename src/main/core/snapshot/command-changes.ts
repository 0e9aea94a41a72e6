import type { PatchPart, ToolPart, TurnPart } from '../../../shared/protocol'

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

const ranCommand = (part: ToolPart) => part.tool === 'bash' && part.started_at_ms !== undefined
const runsInBackground = (part: ToolPart) =>
  ranCommand(part) && (part.input as { run_in_background?: unknown } | null)?.run_in_background === true

/**
 * Spec 06 / issue 16: the files a turn's commands changed — those in a step's patch with no
 * receipt in that step. Only steps where a command ran (or after a background command started in
 * this turn) count: a step that ran no command cannot have changed files without a receipt, so
 * what changed then was someone else (the person, another program) and is left alone.
 * `fullList` recomputes a patch whose stored file list was cut short.
 */
export async function commandPatches(
  parts: readonly TurnPart[],
  receiptPaths: (transactionId: string) => readonly string[],
  fullList: (patch: PatchPart) => Promise<readonly string[] | null>,
): Promise<CommandPatch[]> {
  const commandSteps = new Set<number>()
  const receiptIds = new Map<number, string[]>()
  let step = -1
  let background = false
  for (const part of parts) {
    if (part.type === 'step-start') {
      step = part.step
      if (background) commandSteps.add(step)
    } else if (part.type === 'tool') {
      if (ranCommand(part)) commandSteps.add(step)
      if (runsInBackground(part)) background = true
      receiptIds.set(step, [...(receiptIds.get(step) ?? []), ...part.receipt_ids])
    }
  }
  const patches = parts.filter((part): part is PatchPart => part.type === 'patch' && commandSteps.has(part.step))
  // Receipts are looked up only for steps that have a patch and ran a command.
  const receipted = new Map<number, Set<string>>()
  for (const patch of patches) {
    receipted.set(patch.step, new Set((receiptIds.get(patch.step) ?? []).flatMap((id) => [...receiptPaths(id)])))
  }
  const result: CommandPatch[] = []
  for (const part of patches) {
    const files = part.files_total > part.files.length ? await fullList(part) : part.files
    if (files === null) continue
    const own = receipted.get(part.step)
    const byCommands = files.filter((path) => !own?.has(path))
    if (byCommands.length > 0) result.push({ step: part.step, hash: part.hash, after: part.after, files: byCommands })
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
