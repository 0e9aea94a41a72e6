import { ok, type Outcome } from '../../../shared/protocol'
import { lineStats } from '../journal'
import type { CommandChange, ProjectSnapshots, SnapshotState } from '../snapshot'
import type { BlobStore } from '../store'
import { categoryOf } from './categories'
import type { ReviewRow } from './scope-candidates'
import { REVIEW_PIN_QUOTA_BYTES } from './workspace-scope'

type Side = { kind: 'absent' } | { kind: 'bytes'; bytes: Buffer } | { kind: 'large'; size: number }

/**
 * Issue 16: This turn's files changed by commands, one row per file from the step snapshots —
 * the tree before the first step whose command changed it → the tree its last such step left.
 * Both sides are pinned in the content store when the list is made (within the review quota),
 * so diffs and previews render from exactly what was listed.
 */
export async function commandRows(input: {
  readonly changes: readonly CommandChange[]
  readonly snapshots: Pick<ProjectSnapshots, 'entries' | 'readBlobs'>
  readonly blobs: BlobStore
  readonly turnId: string
  readonly limits: { statsBudgetBytes: number; maxFileBytes: number; pinQuotaBytes?: number }
}): Promise<Outcome<ReviewRow[]>> {
  const states = async (pairs: ReadonlyArray<{ hash: string; path: string }>) => {
    const byHash = new Map<string, string[]>()
    for (const { hash, path } of pairs) byHash.set(hash, [...(byHash.get(hash) ?? []), path])
    const found = new Map<string, SnapshotState>()
    for (const [hash, paths] of byHash) {
      const entries = await input.snapshots.entries(hash, paths)
      if (entries.kind === 'error') return entries
      for (const [path, state] of entries.result) found.set(`${hash}\0${path}`, state)
    }
    return ok(found)
  }
  const before = await states(input.changes.map((c) => ({ hash: c.first.hash, path: c.path })))
  if (before.kind === 'error') return before
  const after = await states(input.changes.map((c) => ({ hash: c.last.after, path: c.path })))
  if (after.kind === 'error') return after
  const stateOf = (map: Map<string, SnapshotState>, hash: string, path: string): SnapshotState =>
    map.get(`${hash}\0${path}`) ?? { kind: 'absent' }

  const changed = input.changes.flatMap((change) => {
    const from = stateOf(before.result, change.first.hash, change.path)
    const to = stateOf(after.result, change.last.after, change.path)
    const same =
      from.kind === to.kind && (from.kind === 'absent' || ('oid' in to && 'oid' in from && from.oid === to.oid))
    return same ? [] : [{ change, from, to }]
  })
  let pinBudget = input.limits.pinQuotaBytes ?? REVIEW_PIN_QUOTA_BYTES
  const rows: ReviewRow[] = []
  // Content is read a slice of files at a time: one git process per slice, bounded memory.
  const SLICE = 200
  let read: Map<string, Buffer | null> = new Map()
  for (const [index, { change, from, to }] of changed.entries()) {
    if (index % SLICE === 0) {
      const oids = changed
        .slice(index, index + SLICE)
        .flatMap(({ from: a, to: b }) => [a, b])
        .flatMap((s) => (s.kind === 'regular' || s.kind === 'symlink' ? [s.oid] : []))
      const loaded = await input.snapshots.readBlobs(oids, input.limits.maxFileBytes)
      if (loaded.kind === 'error') return loaded
      read = loaded.result
    }
    const side = (state: SnapshotState): Side => {
      if (state.kind === 'absent' || state.kind === 'submodule') return { kind: 'absent' }
      const bytes = read.get(state.oid)
      return bytes ? { kind: 'bytes', bytes } : { kind: 'large', size: state.size }
    }
    const beforeSide = side(from)
    const afterSide = side(to)
    const bytesOf = (s: Side) => (s.kind === 'bytes' ? s.bytes : null)
    const pinned = (bytesOf(beforeSide)?.length ?? 0) + (bytesOf(afterSide)?.length ?? 0)
    const overQuota = pinned > pinBudget
    if (!overQuota) pinBudget -= pinned
    const pin = async (s: Side) => (s.kind === 'bytes' && !overQuota ? await input.blobs.put(s.bytes) : null)
    const tooLarge = beforeSide.kind === 'large' || afterSide.kind === 'large' || overQuota
    const computed = tooLarge
      ? { stats: { unknown: true as const, reason: 'over-budget' }, diff_state: 'large' as const }
      : lineStats(bytesOf(beforeSide), bytesOf(afterSide), input.limits.statsBudgetBytes)
    const size = to.kind === 'regular' || to.kind === 'symlink' ? to.size : from.kind === 'regular' ? from.size : 0
    rows.push({
      path: change.path,
      old_path: null,
      operation: from.kind === 'absent' ? 'create' : to.kind === 'absent' ? 'delete' : 'modify',
      category: categoryOf(change.path, size, computed.diff_state),
      added: 'added' in computed.stats ? computed.stats.added : null,
      removed: 'added' in computed.stats ? computed.stats.removed : null,
      size,
      diff_state: computed.diff_state,
      source: 'command',
      actor_id: 'main',
      producer_turn_id: input.turnId,
      outside_changes: 0,
      transaction_ids: [],
      change_set_ids: [],
      before_blob: await pin(beforeSide),
      after_blob: await pin(afterSide),
    })
  }
  return ok(rows)
}
