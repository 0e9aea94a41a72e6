import type { PatchPart, TurnPart } from '../../../shared/protocol'
import { foldReceipts, isNoChange } from '../changes'
import type { Receipt } from '../journal'
import {
  commandChanges,
  commandNotes,
  commandPatches,
  heldCommandChanges,
  type CommandChange,
  type CommandPatch,
  type ProjectSnapshots,
  type HeldChange,
} from '../snapshot'

/** The complete file list of a patch part whose stored list was cut short (null: not known). */
export type PatchFiles = (patch: PatchPart) => Promise<readonly string[] | null>

/** A file a turn's commands changed, and how that relates to what the journal recorded of it. */
export interface CommandPathChange extends CommandChange {
  /**
   * The journal's net change over the turn also covers this path. Review then shows the exact row
   * only; the restore planner merges the two by changes/ `sourceOrder`.
   */
  readonly journaled: boolean
}

/** A turn's command changes: per step (what a snapshot revert takes) and per path. */
export interface TurnCommandChanges {
  readonly patches: CommandPatch[]
  readonly changes: CommandPathChange[]
}

/** The full file list of a cut-short patch, from the project's step snapshots (null: none kept). */
export function patchFilesFrom(snapshots: Pick<ProjectSnapshots, 'changedPaths'> | null): PatchFiles {
  return async (patch) => {
    if (!snapshots) return null
    const listed = await snapshots.changedPaths(patch.hash, patch.after)
    return listed.kind === 'ok' ? listed.result : null
  }
}

/**
 * Issue 24: the one classifier of what a turn changed — the files its commands changed (spec 06:
 * in a command step's patch without a receipt of that step; issue 23: held files only when named
 * in `include`), each with whether the journal's net change over the turn covers it too. The
 * turn summary counts them, Review lists the ones the journal did not change, and the restore
 * planner merges the others with the journal's actions by changes/ `sourceOrder`.
 */
export async function classifyTurnChanges(
  parts: readonly TurnPart[],
  receipts: readonly Receipt[] | (() => readonly Receipt[]),
  patchFiles: PatchFiles,
  include: ReadonlySet<string> = new Set(),
): Promise<TurnCommandChanges> {
  if (!parts.some((part) => part.type === 'patch')) return { patches: [], changes: [] }
  const list = committed(typeof receipts === 'function' ? receipts() : receipts)
  const patches = await commandPatches(parts, receiptPathsOf(list), patchFiles, include)
  const changes = commandChanges(patches)
  if (changes.length === 0) return { patches, changes: [] }
  const journaled = new Set(
    foldReceipts(list)
      .filter((change) => !isNoChange(change) && change.before.kind !== 'directory' && change.after.kind !== 'directory')
      .flatMap((change) => [change.first_path, change.last_path]),
  )
  return { patches, changes: changes.map((change) => ({ ...change, journaled: journaled.has(change.path) })) }
}

/** Files of the turn's command steps that are shown but not the commands' own (issue 23). */
export async function heldTurnChanges(
  parts: readonly TurnPart[],
  receipts: readonly Receipt[],
  patchFiles: PatchFiles,
): Promise<HeldChange[]> {
  if (!parts.some((part) => part.type === 'patch')) return []
  return heldCommandChanges(parts, receiptPathsOf(committed(receipts)), patchFiles)
}

/** What the turn card says about command changes not recorded or not restored by default (issue 23). */
export async function turnCommandNotes(parts: readonly TurnPart[], receipts: readonly Receipt[], patchFiles: PatchFiles) {
  return commandNotes(parts, receiptPathsOf(committed(receipts)), patchFiles)
}

const committed = (receipts: readonly Receipt[]) => receipts.filter((r) => r.status === 'committed')

function receiptPathsOf(receipts: readonly Receipt[]): (transactionId: string) => readonly string[] {
  const paths = new Map(
    receipts.map((r) => [r.transaction_id, r.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path]))]),
  )
  return (id) => paths.get(id) ?? []
}
