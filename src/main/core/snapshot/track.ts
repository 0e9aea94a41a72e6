import { join } from 'node:path'
import { failureReason, ok, type Outcome } from '../../../shared/protocol'
import { settleIndexLock } from './index-lock'
import {
  ensureShadow,
  missingIndexObjects,
  odbFingerprint,
  probeUserRepo,
  readMeta,
  reseed,
  shadowGit,
  syncExcludes,
  writeMeta,
  type UserRepo,
} from './repo'
import type { SnapshotRuntime } from './runtime'
import { changedSince, collectChanges, identityOf } from './stage'
import { isSnapshotHash } from './tree'
import type { Capture, NoSnapshotReason } from './types'

const none = (reason: NoSnapshotReason, message: string, paths?: readonly string[]): Capture => ({
  kind: 'none',
  reason,
  message,
  ...(paths && paths.length > 0 ? { paths: paths.slice(0, 200) } : {}),
})

/** The probe of the user's repository, repeated only when its `.git` was replaced (re-init, moved). */
async function userRepoOf(rt: SnapshotRuntime): Promise<Outcome<UserRepo>> {
  const key = identityOf(join(rt.shadow.worktree, '.git'))
  if (rt.user?.key === key) return ok(rt.user.repo)
  const probed = await probeUserRepo(rt.shadow.worktree)
  rt.user = probed.kind === 'ok' ? { key, repo: probed.result } : null
  return probed
}

/** Runs `work` holding the shadow repository's cross-process lock, or answers `busy`. */
export async function withShadowLock<T>(
  rt: SnapshotRuntime,
  work: (user: UserRepo) => Promise<T>,
  busy: (reason: NoSnapshotReason, message: string) => T,
): Promise<T> {
  const user = await userRepoOf(rt)
  if (user.kind === 'error') {
    return busy(failureReason(user.error) === 'no-git' ? 'no-git' : 'not-git', user.error.message)
  }
  const lease = await rt.lock.acquire(rt.shadow.gitDir, rt.settings.lockTimeoutMs)
  if (!lease) return busy('busy', 'Another Retrace process held this project’s snapshot repository too long.')
  rt.onLockHeld?.('acquired')
  try {
    const ensured = await ensureShadow(rt.shadow, user.result)
    if (ensured.kind === 'error')
      return busy('failed', `The snapshot repository could not be created: ${ensured.error.message}`)
    return await work(user.result)
  } finally {
    rt.onLockHeld?.('released')
    lease.release()
  }
}

/**
 * Spec 06 `track()`: stage what changed (tracked files whose stat data moved, untracked files the
 * user's rules admit), then `write-tree`. Returns the tree hash, or "no snapshot" with the reason —
 * never the previous tree in place of one that failed.
 */
export async function track(rt: SnapshotRuntime): Promise<Capture> {
  if (!rt.settings.enabled()) {
    return none('disabled', 'Step snapshots are turned off in settings (snapshot: false).')
  }
  return withShadowLock(rt, (user) => capture(rt, user), none)
}

async function capture(rt: SnapshotRuntime, user: UserRepo): Promise<Capture> {
  const { shadow } = rt
  let reseeded = false
  const reseedNow = async (): Promise<Capture | null> => {
    if (reseeded) {
      return none('missing-objects', 'Objects the snapshot repository needs are missing even after reseeding it.')
    }
    reseeded = true
    rt.last = null
    const done = await reseed(shadow, user)
    return done.kind === 'error' ? none('failed', done.error.message) : null
  }

  // The user's gc may have pruned objects our index borrowed: check before relying on them.
  const fingerprint = await odbFingerprint(user)
  const meta = await readMeta(shadow.gitDir)
  if (meta !== null && meta.odb_fingerprint !== fingerprint) {
    const missing = await missingIndexObjects(shadow)
    if (missing.kind === 'error') return none('failed', missing.error.message)
    if (missing.result.length > 0) {
      const failed = await reseedNow()
      if (failed) return failed
    } else {
      await writeMeta(shadow.gitDir, { ...meta, odb_fingerprint: fingerprint })
    }
  }

  for (let attempt = 0; ; attempt++) {
    const lockState = await settleIndexLock(shadow.gitDir, rt.settings.indexLockWaitMs)
    if (lockState === 'busy') {
      return none('busy', 'A git process still holds the snapshot repository’s index; no snapshot was taken.')
    }
    await syncExcludes(shadow, user)
    const staging = await collectChanges(shadow, rt.settings.largeUntrackedBytes)
    if (staging.kind === 'error') return fromGitFailure(staging)
    const indexFile = join(shadow.gitDir, 'index')
    if (staging.result.paths.length === 0 && rt.last && rt.last.index === identityOf(indexFile)) {
      // Nothing staged and the index is the one the last tree came from: that tree is now.
      return { kind: 'snapshot', hash: rt.last.hash, excluded: staging.result.excluded, reseeded }
    }
    if (staging.result.paths.length > 0) {
      const added = await shadowGit(shadow, ['add', '--all', '--pathspec-from-file=-', '--pathspec-file-nul'], 'add', {
        stdin: `${staging.result.paths.join('\0')}\0`,
        timeoutMs: 300_000,
      })
      if (added.kind === 'error') {
        const reason = added.error.details?.reason
        if (reason === 'missing-object') {
          const failed = await reseedNow()
          if (failed) return failed
          continue
        }
        // A file that vanished between listing and staging: list again once.
        if (attempt === 0) continue
        const stderr = String(added.error.details?.stderr ?? '')
        const paths = [...stderr.matchAll(/(?:unable to index file|open\(")'?([^'"]+)/g)].map((m) => m[1] ?? '')
        return none('partial', `Some files could not be read into the snapshot: ${added.error.message}`, paths)
      }
    }
    await rt.settings.afterStage?.(attempt)
    const written = await shadowGit(shadow, ['write-tree'], 'write-tree', { timeoutMs: 300_000 })
    if (written.kind === 'error') {
      if (failureReason(written.error) === 'missing-object') {
        const failed = await reseedNow()
        if (failed) return failed
        continue
      }
      if (attempt === 0 && failureReason(written.error) === 'index-locked') continue
      return fromGitFailure(written)
    }
    const raced = changedSince(shadow, staging.result)
    if (raced.length > 0) {
      rt.last = null
      if (attempt === 0) continue
      return none('raced', 'Files kept changing while the snapshot was taken; no snapshot was recorded.', raced)
    }
    const hash = written.result.stdout.toString('utf8').trim()
    // Only a real tree id is ever recorded: anything else git printed is a failure with its text.
    if (!isSnapshotHash(hash)) {
      rt.last = null
      return none('failed', `git write-tree answered no tree id: ${JSON.stringify(hash.slice(0, 200))}`)
    }
    rt.last = { index: identityOf(indexFile), hash }
    return { kind: 'snapshot', hash, excluded: staging.result.excluded, reseeded }
  }
}

function fromGitFailure(outcome: Extract<Outcome<unknown>, { kind: 'error' }>): Capture {
  const reason = outcome.error.details?.reason
  if (reason === 'no-git') return none('no-git', outcome.error.message)
  if (reason === 'index-locked') return none('busy', outcome.error.message)
  return none('failed', outcome.error.message)
}
