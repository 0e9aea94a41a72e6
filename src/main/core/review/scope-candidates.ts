import type { ResultOf } from '../../../shared/protocol'
import { foldByLineage, queryAllReceipts, type FileState, type Receipt } from '../journal'
import { lineStats } from '../journal/line-stats'
import { statement, type BlobStore, type Database, type Digest } from '../store'
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

function blobOf(state: FileState): Digest | null | 'none' {
  if (state.kind !== 'regular') return null
  return state.blob_ref ?? 'none'
}

/**
 * The net change of each file lineage over `receipts` (first before → last after), with exact
 * stats: a lineage touched once reuses its receipt's counts, one touched again is diffed from its
 * two blobs within the stats budget — never estimated.
 */
export async function rowsFromReceipts(
  receipts: readonly Receipt[],
  blobs: BlobStore,
  statsBudgetBytes: number,
  changeSetOf: ReadonlyMap<string, string> = new Map(),
): Promise<ReviewRow[]> {
  const byTransaction = new Map(receipts.map((r) => [r.transaction_id, r]))
  const rows: ReviewRow[] = []
  for (const change of foldByLineage(receipts)) {
    const unchanged =
      JSON.stringify(change.before) === JSON.stringify(change.after) && change.first_path === change.last_path
    if (unchanged) continue
    const beforeBlob = blobOf(change.before)
    const afterBlob = blobOf(change.after)
    let stats = change.single_stats
    let diffState: PublicRow['diff_state'] = 'available'
    if (!stats) {
      const read = async (ref: Digest | null | 'none') => {
        if (ref === null) return null
        if (ref === 'none') return 'missing' as const
        const bytes = await blobs.read(ref)
        return bytes.kind === 'ok' ? bytes.result : ('missing' as const)
      }
      const [before, after] = await Promise.all([read(beforeBlob), read(afterBlob)])
      if (before === 'missing' || after === 'missing') stats = { unknown: true, reason: 'blob-unavailable' }
      else {
        const computed = lineStats(before, after, statsBudgetBytes)
        stats = computed.stats
        diffState = computed.diff_state
      }
    }
    if ('binary' in stats && stats.binary) diffState = 'binary'
    else if ('unknown' in stats) diffState = diffState === 'available' ? 'large' : diffState
    const last = byTransaction.get(change.transactions[change.transactions.length - 1] ?? '')
    const operation: PublicRow['operation'] =
      change.before.kind === 'absent'
        ? 'create'
        : change.after.kind === 'absent'
          ? 'delete'
          : change.first_path !== change.last_path
            ? 'rename'
            : 'modify'
    const size =
      change.after.kind === 'regular' ? change.after.size : change.before.kind === 'regular' ? change.before.size : 0
    rows.push({
      path: change.last_path,
      old_path: change.first_path !== change.last_path ? change.first_path : null,
      operation,
      category: categoryOf(change.last_path, size, diffState),
      added: 'added' in stats ? stats.added : null,
      removed: 'added' in stats ? stats.removed : null,
      size,
      diff_state: diffState,
      source: SOURCES[last?.kind ?? 'edit'],
      actor_id: last?.actor_id ?? null,
      producer_turn_id: last?.producer_turn_id ?? null,
      transaction_ids: [...change.transactions],
      change_set_ids: [...new Set(change.transactions.flatMap((id) => changeSetOf.get(id) ?? []))],
      before_blob: beforeBlob === 'none' ? null : beforeBlob,
      after_blob: afterBlob === 'none' ? null : afterBlob,
    })
  }
  return rows
}

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

/** Transaction → change set, for the attribution of each review row. */
export function changeSetIndex(db: Database, sessionId: string): Map<string, string> {
  const index = new Map<string, string>()
  for (const row of statement(db, 'SELECT change_set_id, transaction_ids FROM change_sets WHERE session_id = ?').all(
    sessionId,
  ) as Array<{ change_set_id: string; transaction_ids: string }>) {
    for (const id of JSON.parse(row.transaction_ids) as string[]) index.set(id, row.change_set_id)
  }
  return index
}
