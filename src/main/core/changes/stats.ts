import { lineStats, type DiffState, type LineStats } from '../journal'
import type { BlobStore, Digest } from '../store'
import { blobOf, type NetChange } from './fold'

export interface CountedChange extends NetChange {
  /** Exact counts of the net change, or explicitly unknown / binary — never estimated. */
  readonly stats: LineStats
  readonly diff_state: DiffState
  readonly before_blob: Digest | null
  readonly after_blob: Digest | null
}

/**
 * Exact line counts of each net change: one receipt's own counts when it made the whole change
 * (and nothing outside wrote in between), otherwise a diff of the two kept blobs within the
 * budget. Cost follows the changed files only.
 */
export async function countChanges(
  changes: readonly NetChange[],
  blobs: BlobStore,
  statsBudgetBytes: number,
): Promise<CountedChange[]> {
  const counted: CountedChange[] = []
  for (const change of changes) {
    const beforeBlob = blobOf(change.before)
    const afterBlob = blobOf(change.after)
    let stats = change.single_stats
    let diffState: DiffState = 'available'
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
    counted.push({
      ...change,
      stats,
      diff_state: diffState,
      before_blob: beforeBlob === 'none' ? null : beforeBlob,
      after_blob: afterBlob === 'none' ? null : afterBlob,
    })
  }
  return counted
}
