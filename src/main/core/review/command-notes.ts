import { REVIEW_HELD_LISTED, type PatchPart, type ResultOf, type TurnPart } from '../../../shared/protocol'
import type { Receipt } from '../journal'
import { dependencyFolderOf } from '../../../shared/paths'
import { commandNotes, heldCommandChanges, type HeldChange, type ProjectSnapshots } from '../snapshot'

export type ReviewCommandNotes = NonNullable<ResultOf<'review.files'>['command_notes']>
type HeldEntry = ReviewCommandNotes['held'][number]

/**
 * Issue 23 in Review's This turn: what the turn's commands changed that is not among its rows —
 * held files with their reason, files left out of the snapshots, and a command step with no
 * snapshot. Decision: files held because they lie in a dependency folder or a nested repository
 * are grouped by that folder (an `npm install` holds thousands of files; one line per folder says
 * the same thing readably); files held because someone else wrote them are listed one by one,
 * since each is a decision the person may take in Undo ("Include it").
 */
export async function reviewCommandNotes(
  parts: readonly TurnPart[],
  receipts: readonly Receipt[],
  snapshots: Pick<ProjectSnapshots, 'changedPaths'>,
): Promise<ReviewCommandNotes | null> {
  const paths = new Map(
    receipts.map((r) => [r.transaction_id, r.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path]))]),
  )
  const receiptPaths = (id: string) => paths.get(id) ?? []
  const fullList = async (patch: PatchPart) => {
    const listed = await snapshots.changedPaths(patch.hash, patch.after)
    return listed.kind === 'ok' ? listed.result : null
  }
  const held = await heldCommandChanges(parts, receiptPaths, fullList)
  const notes = await commandNotes(parts, receiptPaths, fullList)
  const nested = parts.flatMap((part) => (part.type === 'patch' ? (part.nested_repositories ?? []) : []))
  if (held.length === 0 && !notes.command_excluded && !notes.command_unrecorded) return null
  return {
    held: groupHeld(held, nested).slice(0, REVIEW_HELD_LISTED),
    held_files: held.length,
    excluded: notes.command_excluded ?? [],
    ...(notes.command_unrecorded ? { unrecorded: notes.command_unrecorded } : {}),
  }
}

function groupHeld(held: readonly HeldChange[], nestedRepositories: readonly string[]): HeldEntry[] {
  const folders = new Map<string, HeldEntry>()
  const files: HeldEntry[] = []
  for (const change of held) {
    const folder =
      change.reason === 'ignored-folder'
        ? dependencyFolderOf(change.path)
        : change.reason === 'nested-repository'
          ? (nestedRepositories.find((repository) => change.path.startsWith(`${repository}/`)) ?? null)
          : null
    if (folder === null) {
      files.push({ path: change.path, reason: change.reason, folder: false, files: 1 })
      continue
    }
    const key = `${change.reason}\0${folder}`
    const known = folders.get(key)
    if (known) folders.set(key, { ...known, files: known.files + 1 })
    else folders.set(key, { path: folder, reason: change.reason, folder: true, files: 1 })
  }
  // Files someone else wrote come first: they are the ones a person is most likely to act on.
  return [...files, ...[...folders.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))]
}
