import { lstatSync } from 'node:fs'
import { link, mkdir, rename, rmdir, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { fsyncDirectory, writeNewFileSynced } from '../platform'
import { digestOf, type Digest } from '../store'
import type { FaultHook } from './faults'
import { readNoFollow } from './target'

/** The state a publish step expects to replace; anything else on disk is someone else's write. */
export type Expected = { kind: 'absent' } | { kind: 'directory' } | { kind: 'regular'; digest: Digest }

export type Observed =
  { kind: 'absent' } | { kind: 'directory' } | { kind: 'regular'; digest: Digest } | { kind: 'other' }

/** What is at `abs` now (never following a symlink). */
export async function observe(abs: string, maxBytes: number): Promise<Observed> {
  let info
  try {
    info = lstatSync(abs)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' }
    throw error
  }
  if (info.isDirectory()) return { kind: 'directory' }
  if (!info.isFile() || info.nlink > 1) return { kind: 'other' }
  const bytes = await readNoFollow(abs, maxBytes)
  return bytes === 'too-large' ? { kind: 'other' } : { kind: 'regular', digest: digestOf(bytes) }
}

export function matches(observed: Observed, expected: Expected): boolean {
  if (observed.kind !== expected.kind) return false
  return observed.kind !== 'regular' || (expected.kind === 'regular' && observed.digest === expected.digest)
}

function changedUnderUs(path: string) {
  return fail(
    'CONFLICT',
    `"${path}" was changed by someone else while Retrace was writing it; nothing was overwritten.`,
    {
      path,
      reason: 'changed-during-publish',
    },
  )
}

async function ensureParents(missingParents: readonly string[]): Promise<void> {
  for (const dir of missingParents) {
    await mkdir(dir, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
    await fsyncDirectory(dirname(dir))
  }
}

export interface PublishContext {
  readonly fault: FaultHook
  readonly maxBytes: number
  readonly tempName: (abs: string) => string
}

/**
 * Spec 03 step 5 for one file: temp in the target's directory → fsync → re-verify the target →
 * rename (or link, which refuses to clobber, for a target that must not exist) → fsync the dir.
 * On any failure the temp file is removed and the target left as it was.
 */
export async function publishRegular(
  context: PublishContext,
  path: string,
  abs: string,
  bytes: Uint8Array,
  mode: number,
  expected: Expected,
  missingParents: readonly string[],
): Promise<Outcome<void>> {
  await ensureParents(missingParents)
  const temp = context.tempName(abs)
  await writeNewFileSynced(temp, bytes, mode)
  try {
    context.fault('after-temp-write')
    if (!matches(await observe(abs, context.maxBytes), expected)) return changedUnderUs(path)
    if (expected.kind === 'absent') {
      try {
        await link(temp, abs)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(path)
        throw error
      }
      await unlink(temp)
    } else {
      await rename(temp, abs)
    }
    await fsyncDirectory(dirname(abs))
    return ok(undefined)
  } finally {
    await unlink(temp).catch(() => undefined)
  }
}

export async function publishDelete(
  context: PublishContext,
  path: string,
  abs: string,
  expected: Expected,
): Promise<Outcome<void>> {
  if (!matches(await observe(abs, context.maxBytes), expected)) return changedUnderUs(path)
  if (expected.kind === 'directory') {
    try {
      await rmdir(abs)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') return changedUnderUs(path)
      throw error
    }
  } else {
    await unlink(abs)
  }
  await fsyncDirectory(dirname(abs))
  return ok(undefined)
}

export async function publishDirectory(
  path: string,
  abs: string,
  missingParents: readonly string[],
): Promise<Outcome<void>> {
  await ensureParents(missingParents)
  try {
    await mkdir(abs, { mode: 0o755 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(path)
    throw error
  }
  await fsyncDirectory(dirname(abs))
  return ok(undefined)
}

/** A move that can never clobber: link the new name (fails if taken), then unlink the old one. */
export async function publishMove(
  context: PublishContext,
  from: { path: string; abs: string; digest: Digest },
  to: { path: string; abs: string; missingParents: readonly string[] },
): Promise<Outcome<void>> {
  if (!matches(await observe(from.abs, context.maxBytes), { kind: 'regular', digest: from.digest })) {
    return changedUnderUs(from.path)
  }
  await ensureParents(to.missingParents)
  try {
    await link(from.abs, to.abs)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return changedUnderUs(to.path)
    throw error
  }
  context.fault('after-temp-write')
  await unlink(from.abs)
  await fsyncDirectory(dirname(to.abs))
  if (dirname(to.abs) !== dirname(from.abs)) await fsyncDirectory(dirname(from.abs))
  return ok(undefined)
}
