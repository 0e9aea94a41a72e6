import { receiptOf } from '../journal'
import type { Database } from '../store'
import { pathStateOf, type RestoreAction } from './preflight'

/** Redo is offered right after these (and is their inverse). */
export const REDOABLE: ReadonlySet<string> = new Set(['undo', 'rewind'])

/**
 * Issue 23 items 12 and 20: Redo is the exact inverse of the restore it follows — every path that
 * restore wrote goes back to the bytes it found there (kept in its receipt for rollback), whether
 * the journal, a command (issue 16) or a rewind put them there. Each action expects what the
 * restore left, so anything written since is a conflict like in every other restore. A restore
 * whose receipt released its blobs (retention) is unavailable, never approximated.
 */
export function inverseOf(
  db: Database,
  transactionId: string | null,
): {
  actions: RestoreAction[]
  unavailable: Array<{ path: string; reason: string }>
  /** Folders that restore removed (issue 23 item 14), which Redo makes again. */
  folders: string[]
} {
  const actions: RestoreAction[] = []
  const unavailable: Array<{ path: string; reason: string }> = []
  const folders: string[] = []
  if (transactionId === null) return { actions, unavailable, folders }
  const receipt = receiptOf(db, transactionId)
  if (!receipt || receipt.status !== 'committed') {
    return { actions, unavailable: [{ path: '', reason: 'not-exact' }], folders }
  }
  for (const file of receipt.files) {
    if (file.operation === 'delete' && file.before.kind === 'directory' && file.after.kind === 'absent') {
      // Made again even when no file of the Redo lands in it (a folder the turn left empty), so
      // the Redo is exact; one that exists by then is simply kept.
      folders.push(file.path)
      continue
    }
    const found = pathStateOf(file.before)
    const left = pathStateOf(file.after)
    if (found === 'unsupported' || left === 'unsupported') {
      unavailable.push({ path: file.path, reason: 'directory' })
      continue
    }
    if (receipt.blobs_expired === 1 && found.kind === 'regular') {
      unavailable.push({ path: file.path, reason: 'expired' })
      continue
    }
    if (file.old_path !== null) {
      actions.push({
        path: file.path,
        file_lineage_id: file.file_lineage_id,
        expected: left,
        target: { kind: 'absent' },
      })
      actions.push({
        path: file.old_path,
        file_lineage_id: file.file_lineage_id,
        expected: { kind: 'absent' },
        target: found,
      })
      continue
    }
    actions.push({ path: file.path, file_lineage_id: file.file_lineage_id, expected: left, target: found })
  }
  return { actions, unavailable, folders }
}
