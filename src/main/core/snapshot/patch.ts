import { fail, failureReason, ok, type Outcome } from '../../../shared/protocol'
import { shadowGit, splitNul } from './repo'
import type { SnapshotRuntime } from './runtime'
import { track } from './track'
import { isSnapshotHash, snapshotGone } from './tree'
import type { Capture } from './types'

/** Paths that differ between two snapshot trees (`diff-tree --name-only`), sorted as git sorts them. */
export async function changedPaths(rt: SnapshotRuntime, from: string, to: string): Promise<Outcome<string[]>> {
  if (!isSnapshotHash(from) || !isSnapshotHash(to)) return fail('INVALID_REQUEST', 'Not a snapshot hash.')
  if (from === to) return ok([])
  const out = await shadowGit(
    rt.shadow,
    ['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to],
    'diff-tree',
  )
  if (out.kind === 'error') return failureReason(out.error) === 'missing-object' ? snapshotGone(from) : out
  return ok(splitNul(out.result.stdout))
}

/** A capture that produced no snapshot, as a failure value. */
export function noSnapshot(capture: Extract<Capture, { kind: 'none' }>) {
  return fail('UNAVAILABLE', capture.message, {
    reason: capture.reason,
    ...(capture.paths ? { paths: capture.paths } : {}),
  })
}

/**
 * Spec 06 `patch(hash)`: the files changed since that snapshot, by snapshotting now and comparing
 * the two trees. Also answers the tree it compared with, so a caller can store it.
 */
export async function patch(rt: SnapshotRuntime, hash: string): Promise<Outcome<{ hash: string; files: string[] }>> {
  const now = await track(rt)
  if (now.kind === 'none') return noSnapshot(now)
  const files = await changedPaths(rt, hash, now.hash)
  return files.kind === 'error' ? files : ok({ hash: now.hash, files: files.result })
}
