import { fail, type Outcome } from '../../../shared/protocol'
import { planFiles, type PlanItem } from './planned'
import type { SnapshotRuntime } from './runtime'
import { isSnapshotHash } from './tree'
import type { PatchRef, PlannedFile } from './types'

/**
 * Spec 06 `revert(patches)`, patches in the order their steps ran: each listed file goes back to
 * the snapshot of the earliest patch that lists it (its state before the first change in the
 * range); a file absent from that snapshot was created by the step and is planned for deletion.
 * `left` is the file in the `after` snapshot of the latest patch listing it: what the range left,
 * which the caller compares with the disk (anything else is someone's later edit — a conflict).
 * Nothing is written here.
 */
export async function revert(rt: SnapshotRuntime, patches: readonly PatchRef[]): Promise<Outcome<PlannedFile[]>> {
  const earliest = new Map<string, string>()
  const latestAfter = new Map<string, string | null>()
  for (const patch of patches) {
    if (!isSnapshotHash(patch.hash) || (patch.after != null && !isSnapshotHash(patch.after))) {
      return fail('INVALID_REQUEST', 'Not a snapshot hash.')
    }
    for (const path of patch.files) {
      if (!earliest.has(path)) earliest.set(path, patch.hash)
      latestAfter.set(path, patch.after ?? null)
    }
  }
  const items: PlanItem[] = [...earliest].map(([path, source]) => ({
    path,
    source,
    leftFrom: latestAfter.get(path) ?? null,
  }))
  return planFiles(rt, items)
}
