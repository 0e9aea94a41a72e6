import { fail, type Outcome } from '../../../shared/protocol'
import { rawTreeChanges } from './diff-full'
import { noSnapshot } from './patch'
import { planFiles } from './planned'
import type { SnapshotRuntime } from './runtime'
import { track } from './track'
import { isSnapshotHash } from './tree'
import type { PlannedFile } from './types'

/**
 * Spec 06 `restore(hash)`: every file of that snapshot that differs from the files now, planned
 * back to its snapshot content. Like `read-tree` + `checkout-index -a -f`, files the snapshot does
 * not contain are left alone. Nothing is written here: the journal's restore transaction applies
 * the plan. `left` is the current state, captured by a fresh snapshot.
 */
export async function restore(rt: SnapshotRuntime, hash: string): Promise<Outcome<PlannedFile[]>> {
  if (!isSnapshotHash(hash)) return fail('INVALID_REQUEST', 'Not a snapshot hash.')
  const now = await track(rt)
  if (now.kind === 'none') return noSnapshot(now)
  const changes = await rawTreeChanges(rt.shadow, now.hash, hash)
  if (changes.kind === 'error') return changes
  return planFiles(
    rt,
    changes.result
      .filter((change) => change.after !== null)
      .map((change) => ({ path: change.path, source: hash, leftFrom: now.hash })),
  )
}
