import { failureReason, ok, type Outcome } from '../../../shared/protocol'
import { noSnapshot } from './patch'
import { shadowGit } from './repo'
import type { SnapshotRuntime } from './runtime'
import { track } from './track'
import { snapshotGone } from './tree'

/** A text diff is cut here; the rest is counted, not returned (per-file diffs come from diffFull). */
const MAX_DIFF_BYTES = 4 * 1024 * 1024

/** Spec 06 `diff(hash)`: the unified diff from that snapshot to the files as they are now. */
export async function diff(
  rt: SnapshotRuntime,
  hash: string,
): Promise<Outcome<{ hash: string; text: string; truncated: boolean }>> {
  const now = await track(rt)
  if (now.kind === 'none') return noSnapshot(now)
  const out = await shadowGit(
    rt.shadow,
    ['diff', '--no-ext-diff', '--no-textconv', '--no-renames', '--no-color', hash, now.hash],
    'diff',
  )
  if (out.kind === 'error') return failureReason(out.error) === 'missing-object' ? snapshotGone(hash) : out
  const bytes = out.result.stdout
  const truncated = bytes.length > MAX_DIFF_BYTES
  return ok({ hash: now.hash, text: bytes.subarray(0, MAX_DIFF_BYTES).toString('utf8'), truncated })
}
