import type { ResultOf } from '../../../shared/protocol'
import { countChanges, foldReceipts, isNoChange, operationOf } from '../changes'
import { queryAllReceipts, type Receipt } from '../journal'
import type { BlobStore, Database, Digest } from '../store'
import { categoryOf } from './categories'

type PublicRow = ResultOf<'review.files'>['files'][number]

/** One reviewable file of a scope: what the list shows, plus the blob pair its diff is read from. */
export interface ReviewRow extends PublicRow {
  readonly before_blob: Digest | null
  readonly after_blob: Digest | null
}

const SOURCES: Record<Receipt['kind'], PublicRow['source']> = {
  edit: 'turn',
  revert: 'revert',
  reapply: 'reapply',
  restore: 'restore',
  human: 'human',
  rewind: 'rewind',
}

/**
 * The net change of each file lineage over `receipts` (first before → last after), with exact
 * stats — never estimated. A row whose chain breaks (something outside Retrace wrote the file
 * between two recorded changes) says so with the count, so the gap is never credited silently.
 */
export async function rowsFromReceipts(
  receipts: readonly Receipt[],
  blobs: BlobStore,
  statsBudgetBytes: number,
  changeSetOf: ReadonlyMap<string, string> = new Map(),
): Promise<ReviewRow[]> {
  const counted = await countChanges(
    // Review lists files. A folder a restore removed (issue 23 item 14) is recorded in its receipt
    // for Redo, but its files' rows already tell the story, as for the folders turns create.
    foldReceipts(receipts).filter((change) => !isNoChange(change) && !isFolder(change)),
    blobs,
    statsBudgetBytes,
  )
  return counted.map((change) => {
    const last = change.actors[change.actors.length - 1]
    const size =
      change.after.kind === 'regular' ? change.after.size : change.before.kind === 'regular' ? change.before.size : 0
    return {
      path: change.last_path,
      old_path: change.first_path !== change.last_path ? change.first_path : null,
      operation: operationOf(change),
      category: categoryOf(change.last_path, size, change.diff_state),
      added: 'added' in change.stats ? change.stats.added : null,
      removed: 'added' in change.stats ? change.stats.removed : null,
      size,
      diff_state: change.diff_state,
      source: SOURCES[last?.kind ?? 'edit'],
      actor_id: last?.actor_id ?? null,
      producer_turn_id: last?.producer_turn_id ?? null,
      outside_changes: change.gaps,
      transaction_ids: [...change.transactions],
      change_set_ids: [...new Set(change.transactions.flatMap((id) => changeSetOf.get(id) ?? []))],
      before_blob: change.before_blob,
      after_blob: change.after_blob,
    }
  })
}

const isFolder = (change: { before: Receipt['files'][number]['before']; after: Receipt['files'][number]['after'] }) =>
  change.before.kind === 'directory' || change.after.kind === 'directory'

/** This turn: the committed change sets whose origin is the turn, deduped by transaction id. */
export function turnReceipts(db: Database, workspaceId: string, turnId: string): Receipt[] {
  return queryAllReceipts(db, { workspace_id: workspaceId, origin_turn_id: turnId }).filter(
    (r) => r.status === 'committed',
  )
}

/**
 * Current branch: every committed transaction recorded on the session's active branch — turns and
 * the explicit restores — in workspace_sequence order; never another branch or external writes.
 */
export function branchReceipts(db: Database, workspaceId: string, branchId: string): Receipt[] {
  return queryAllReceipts(db, { workspace_id: workspaceId, branch_id: branchId }).filter(
    (r) => r.status === 'committed',
  )
}
