import { linkSync, mkdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { readLeaf, statLeaf, syncDir, writeNewFile, type OpenDir, type PinnedDirs, type Place } from '../project-fs'
import { digestOf, storageFailure, type Digest } from '../store'
import type { FaultHook } from './faults'

/** The state a publish step expects to replace; anything else on disk is someone else's write. */
export type Expected = { kind: 'absent' } | { kind: 'directory' } | { kind: 'regular'; digest: Digest }

export type Observed =
  { kind: 'absent' } | { kind: 'directory' } | { kind: 'regular'; digest: Digest } | { kind: 'other' }

/** What `name` in `dir` is now (never following a symlink, never blocking on a FIFO). */
export async function observeIn(dir: OpenDir, name: string, maxBytes: number): Promise<Observed> {
  const leaf = statLeaf(dir, name)
  if (leaf.kind === 'absent') return { kind: 'absent' }
  if (leaf.kind === 'directory') return { kind: 'directory' }
  if (leaf.kind !== 'regular' || leaf.nlink > 1n) return { kind: 'other' }
  const read = await readLeaf(dir, name, maxBytes)
  if (read.kind === 'absent') return { kind: 'absent' }
  if (read.kind === 'directory') return { kind: 'directory' }
  if (read.kind !== 'regular' || read.nlink > 1n) return { kind: 'other' }
  return { kind: 'regular', digest: digestOf(read.bytes) }
}

/**
 * What is at `place` now, through the run's pinned folders. A folder on the way that is missing or
 * no longer the one the run used reads as `absent` or `other` — never as the bytes of some other
 * folder that took its name.
 */
export async function observe(dirs: PinnedDirs, place: Place, maxBytes: number): Promise<Observed> {
  const parent = await dirs.parent(place, { create: false })
  if (parent.kind === 'error') {
    return parent.error.details?.detail === 'folder-missing' ? { kind: 'absent' } : { kind: 'other' }
  }
  return observeIn(parent.result, place.name, maxBytes)
}

export function matches(observed: Observed, expected: Expected): boolean {
  if (observed.kind !== expected.kind) return false
  return observed.kind !== 'regular' || (expected.kind === 'regular' && observed.digest === expected.digest)
}

function changedUnderUs(path: string) {
  return fail(
    'CONFLICT',
    `"${path}" was changed by someone else while Retrace was writing it; nothing was overwritten.`,
    { path, reason: 'changed-during-publish' },
  )
}

/**
 * A write the disk refused before the target changed (ENOSPC, a quota, out of descriptors) is that
 * call's precise error; anything else is not the user's to fix and stays an exception.
 */
function refusal(error: unknown, path: string): Outcome<never> {
  const failure = storageFailure(error, { side: 'project', path })
  if (failure) return { kind: 'error', error: failure }
  throw error
}

export interface PublishContext {
  readonly fault: FaultHook
  readonly maxBytes: number
  /** The folders this run works in, opened once from the root and held. */
  readonly dirs: PinnedDirs
  /** A fresh temporary name (reserved by the journal, hidden from listings). */
  readonly tempName: () => string
}

/**
 * Spec 03 step 5 for one file: temp in the target's folder → fsync → re-verify the target →
 * rename (or link, which refuses to clobber, for a target that must not exist) → fsync the folder.
 * Every step goes through the pinned folder handle. On any failure the temp file is removed and
 * the target left as it was.
 */
export async function publishRegular(
  context: PublishContext,
  place: Place,
  bytes: Uint8Array,
  mode: number,
  expected: Expected,
): Promise<Outcome<void>> {
  const parent = await context.dirs.parent(place, { create: true })
  if (parent.kind === 'error') return parent
  const dir = parent.result
  const temp = context.tempName()
  try {
    // Inside the try: a write that fails half-way (a full disk) still removes its temp file.
    try {
      await writeNewFile(dir, temp, bytes, mode)
    } catch (error) {
      return refusal(error, place.path)
    }
    context.fault('after-temp-write')
    if (!matches(await observeIn(dir, place.name, context.maxBytes), expected)) return changedUnderUs(place.path)
    if (expected.kind === 'absent') {
      try {
        linkSync(dir.at(temp), dir.at(place.name))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(place.path)
        return refusal(error, place.path)
      }
      unlinkSync(dir.at(temp))
    } else {
      try {
        renameSync(dir.at(temp), dir.at(place.name))
      } catch (error) {
        // A folder that must grow to take the new name can be refused space too; the target is
        // untouched (rename is all or nothing).
        return refusal(error, place.path)
      }
    }
    await syncDir(dir)
    return ok(undefined)
  } finally {
    try {
      unlinkSync(dir.at(temp))
    } catch {
      // renamed into place, or already removed
    }
  }
}

export async function publishDelete(context: PublishContext, place: Place, expected: Expected): Promise<Outcome<void>> {
  const parent = await context.dirs.parent(place, { create: false })
  if (parent.kind === 'error') return parent
  const dir = parent.result
  if (!matches(await observeIn(dir, place.name, context.maxBytes), expected)) return changedUnderUs(place.path)
  if (expected.kind === 'directory') {
    try {
      rmdirSync(dir.at(place.name))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') return changedUnderUs(place.path)
      throw error
    }
  } else {
    unlinkSync(dir.at(place.name))
  }
  await syncDir(dir)
  return ok(undefined)
}

export async function publishDirectory(context: PublishContext, place: Place): Promise<Outcome<void>> {
  const parent = await context.dirs.parent(place, { create: true })
  if (parent.kind === 'error') return parent
  try {
    mkdirSync(parent.result.at(place.name), { mode: 0o755 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(place.path)
    return refusal(error, place.path)
  }
  // Later files of the same transaction go into this folder although their plan saw it missing.
  const made = statLeaf(parent.result, place.name)
  if (made.kind === 'directory') context.dirs.noteCreated(place, made.identity)
  await syncDir(parent.result)
  return ok(undefined)
}

/** A move that can never clobber: link the new name (fails if taken), then unlink the old one. */
export async function publishMove(
  context: PublishContext,
  from: { place: Place; digest: Digest },
  to: { place: Place },
): Promise<Outcome<void>> {
  const source = await context.dirs.parent(from.place, { create: false })
  if (source.kind === 'error') return source
  const destination = await context.dirs.parent(to.place, { create: true })
  if (destination.kind === 'error') return destination
  const fromDir = source.result
  const toDir = destination.result
  if (!matches(await observeIn(fromDir, from.place.name, context.maxBytes), { kind: 'regular', digest: from.digest })) {
    return changedUnderUs(from.place.path)
  }
  try {
    linkSync(fromDir.at(from.place.name), toDir.at(to.place.name))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(to.place.path)
    return refusal(error, to.place.path)
  }
  context.fault('after-temp-write')
  unlinkSync(fromDir.at(from.place.name))
  await syncDir(toDir)
  if (toDir !== fromDir) await syncDir(fromDir)
  return ok(undefined)
}
