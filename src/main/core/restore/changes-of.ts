import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { PlannedChange } from '../journal'
import type { FolderActions } from './plan-folders'
import type { PlanEvidence, RestoreAction } from './preflight'

/**
 * A checked plan's actions as the journal's planned changes, from the bytes its preflight read.
 * Folders a Redo makes come first (outermost first) so its files go into them; folders a restore
 * removes come last (deepest first), after the files that emptied them — in the same transaction,
 * so a crash anywhere is settled all or nothing by recovery, and the receipt records them for Redo.
 */
export function changesOf(
  actions: readonly RestoreAction[],
  evidence: PlanEvidence,
  folders: FolderActions,
): Outcome<PlannedChange[]> {
  const changes: PlannedChange[] = []
  const folderDisk = (path: string) => evidence.folders?.get(path)
  for (const path of folders.created) {
    const disk = folderDisk(path)
    if (disk?.kind !== 'absent')
      return fail('STALE_PLAN', `"${path}" was not checked; preview the restore again.`, {
        path,
        reason: 'plan-changed',
      })
    changes.push({ operation: 'create', path, old_path: null, before: disk, after: { kind: 'directory' } })
  }
  for (const action of actions) {
    const disk = evidence.disks.get(action.path)
    if (!disk)
      return fail('STALE_PLAN', `"${action.path}" was not checked; preview the restore again.`, {
        path: action.path,
        reason: 'plan-changed',
      })
    if (action.target.kind === 'absent') {
      changes.push({ operation: 'delete', path: action.path, old_path: null, before: disk, after: { kind: 'absent' } })
      continue
    }
    const bytes = evidence.targets.get(action.path)
    if (!bytes)
      return fail('UNAVAILABLE', `No stored version of "${action.path}".`, {
        path: action.path,
        reason: 'missing-blob',
      })
    changes.push({
      operation: disk.kind === 'absent' ? 'create' : 'modify',
      path: action.path,
      old_path: null,
      before: disk,
      after: { kind: 'regular', bytes, mode: Number.parseInt(action.target.mode, 8) },
    })
  }
  for (const path of folders.removed) {
    const disk = folderDisk(path)
    if (disk?.kind !== 'directory')
      return fail('STALE_PLAN', `"${path}" was not checked; preview the restore again.`, {
        path,
        reason: 'plan-changed',
      })
    changes.push({ operation: 'delete', path, old_path: null, before: disk, after: { kind: 'absent' } })
  }
  return ok(changes)
}
