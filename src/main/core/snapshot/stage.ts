import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { ok, type Outcome } from '../../../shared/protocol'
import { JOURNAL_TEMP_PREFIX } from '../journal'
import { shadowGit, type Shadow } from './repo'
import type { ExcludedFile } from './types'

/** Spec 06: untracked files over 2 MiB are left out of snapshots (and listed as such). */
export const LARGE_UNTRACKED_BYTES = 2 * 1024 * 1024

/** What one capture stages, and the identity of each staged path before git reads it. */
export interface Staging {
  readonly paths: readonly string[]
  readonly excluded: readonly ExcludedFile[]
  readonly identities: ReadonlyMap<string, string>
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const lossyUtf8 = new TextDecoder('utf-8')

/** NUL-separated raw names; an undecodable one is reported under a lossy spelling and never staged. */
function names(output: Buffer): Array<{ path: string; unicode: boolean }> {
  const result: Array<{ path: string; unicode: boolean }> = []
  let start = 0
  for (let end = output.indexOf(0, start); end >= 0; end = output.indexOf(0, start)) {
    const raw = output.subarray(start, end)
    start = end + 1
    try {
      result.push({ path: strictUtf8.decode(raw), unicode: true })
    } catch {
      result.push({ path: lossyUtf8.decode(raw), unicode: false })
    }
  }
  return result
}

/** Inode, size and both times: any write between two readings changes at least one. */
export function identityOf(abs: string): string {
  try {
    const info = lstatSync(abs, { bigint: true })
    return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.mode}`
  } catch {
    return 'absent'
  }
}

/**
 * Spec 06 staging: only tracked files whose stat data changed (`diff-files`) and untracked files
 * the user's ignore rules admit (`ls-files --others --exclude-standard`), read in parallel.
 * Nested repositories are listed by git as `dir/` and never descended into; untracked files over
 * the size limit and names that are not UTF-8 are excluded and listed.
 */
export async function collectChanges(shadow: Shadow, largeBytes = LARGE_UNTRACKED_BYTES): Promise<Outcome<Staging>> {
  const [tracked, untracked] = await Promise.all([
    shadowGit(shadow, ['diff-files', '--name-only', '-z', '--ignore-submodules=all'], 'diff-files', {
      timeoutMs: 300_000,
    }),
    shadowGit(shadow, ['ls-files', '--others', '--exclude-standard', '-z'], 'ls-files', { timeoutMs: 300_000 }),
  ])
  if (tracked.kind === 'error') return tracked
  if (untracked.kind === 'error') return untracked
  const paths: string[] = []
  const excluded: ExcludedFile[] = []
  const identities = new Map<string, string>()
  let work = 0
  const pause = async () => {
    // Large listings are stat'ed in slices so the engine's event loop keeps answering.
    if (++work % 2000 === 0) await yieldToLoop()
  }
  for (const { path, unicode } of names(tracked.result.stdout)) {
    if (!unicode) {
      excluded.push({ path, reason: 'not-unicode' })
      continue
    }
    paths.push(path)
    identities.set(path, identityOf(join(shadow.worktree, path)))
    await pause()
  }
  for (const { path, unicode } of names(untracked.result.stdout)) {
    if (path.endsWith('/')) {
      excluded.push({ path: path.slice(0, -1), reason: 'nested-repository' })
      continue
    }
    if (!unicode) {
      excluded.push({ path, reason: 'not-unicode' })
      continue
    }
    const name = path.slice(path.lastIndexOf('/') + 1)
    if (name.startsWith(JOURNAL_TEMP_PREFIX)) continue
    const abs = join(shadow.worktree, path)
    let size: number
    try {
      size = lstatSync(abs).size
    } catch {
      // Gone since git listed it: it is simply not part of this snapshot.
      continue
    }
    await pause()
    if (size > largeBytes && lstatSync(abs).isFile()) {
      excluded.push({ path, reason: 'large', size })
      continue
    }
    paths.push(path)
    identities.set(path, identityOf(abs))
  }
  return ok({ paths, excluded, identities })
}

/** Staged paths whose identity changed while the capture ran: the tree may hold a torn mix. */
export function changedSince(shadow: Shadow, staging: Staging): string[] {
  const raced: string[] = []
  for (const [path, before] of staging.identities) {
    if (identityOf(join(shadow.worktree, path)) !== before) raced.push(path)
  }
  return raced
}
