import { readdirSync, unlinkSync } from 'node:fs'
import { fail, type ProtocolError } from '../../../shared/protocol'
import { openChain, type Place } from '../project-fs'
import { digestOf, type Digest } from '../store'
import type { PlannedChange } from './plan'
import type { Expected } from './publish'
import type { DiskState } from './target'
import { tempPrefix } from './temp-names'

/*
 * The transaction engine's pure questions about a planned change (where it lands, what it
 * expects), its approval and recovery checks, and the removal of a crashed transaction's temp
 * files — kept apart from the engine's state machine in transaction.ts.
 */

/** Where a change leaves its file: the destination of a rename, else its own place. */
export function finalPlace(change: PlannedChange): Place {
  return change.operation === 'rename' && change.destination ? change.destination.place : change.before.place
}

/** A restore's removal of a folder it found empty (issue 23 item 14). */
export function isFolderRemoval(change: PlannedChange): boolean {
  return change.operation === 'delete' && change.before.kind === 'directory'
}

/** Whether `path` lies below one of `folders`. */
export function insideAny(path: string, folders: ReadonlySet<string>): boolean {
  if (folders.size === 0) return false
  const segments = path.split('/')
  for (let depth = 1; depth < segments.length; depth++) {
    if (folders.has(segments.slice(0, depth).join('/'))) return true
  }
  return false
}

/** Every place a change touches (a rename touches two folders). */
export function placesOf(change: PlannedChange): Place[] {
  return change.operation === 'rename' && change.destination
    ? [change.before.place, change.destination.place]
    : [change.before.place]
}

export function expectedOf(state: DiskState): Expected {
  return state.kind === 'regular' ? { kind: 'regular', digest: state.digest } : { kind: state.kind }
}

export function expectedAfter(change: PlannedChange): Expected {
  if (change.operation === 'rename' && change.after.kind === 'regular')
    return { kind: 'regular', digest: digestOf(change.after.bytes) }
  if (change.operation === 'rename')
    return change.before.kind === 'regular' ? { kind: 'regular', digest: change.before.digest } : { kind: 'absent' }
  if (change.after.kind === 'regular') return { kind: 'regular', digest: digestOf(change.after.bytes) }
  return { kind: change.after.kind }
}

export function describe(state: Expected | { kind: 'other' }): string {
  return state.kind === 'regular' && 'digest' in state ? state.digest : state.kind
}

export function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`
}

export function checkApproval(
  changes: readonly PlannedChange[],
  approved: ReadonlyMap<string, Digest | null> | undefined,
): ProtocolError | undefined {
  if (!approved) return undefined
  for (const change of changes) {
    const path = change.old_path ?? change.path
    if (!approved.has(path)) continue
    const now = change.before.kind === 'regular' ? change.before.digest : null
    if (approved.get(path) !== now) {
      return {
        code: 'CONFLICT',
        message: `"${path}" changed after you approved this change; review it again.`,
        details: { path, reason: 'changed-since-approval' },
      }
    }
  }
  return undefined
}

export function recoveryRequired(unresolved: ReadonlyArray<Record<string, unknown>>) {
  return fail(
    'RECOVERY_REQUIRED',
    'A file changed in a way Retrace cannot resolve on its own; nothing was overwritten.',
    { files: unresolved, reason: 'unresolved' },
  )
}

/**
 * Removes a transaction's leftover temp files from the folders of `paths` (recovery after a
 * crash). Folders are opened from the root without following links, so a swapped folder is
 * skipped rather than cleaned.
 */
export function removeTempFiles(root: string, folders: Iterable<readonly string[]>, transactionId: string): void {
  const seen = new Set<string>()
  for (const segments of folders) {
    const key = segments.join('/')
    if (seen.has(key)) continue
    seen.add(key)
    const walked = openChain(root, segments)
    if (walked.kind === 'failed') continue
    try {
      if (walked.chain.missing.length > 0) continue
      const dir = walked.chain.deepest
      let names: string[]
      try {
        names = readdirSync(dir.self)
      } catch {
        continue
      }
      for (const name of names) {
        if (!name.startsWith(tempPrefix(transactionId))) continue
        try {
          unlinkSync(dir.at(name))
        } catch {
          // already gone
        }
      }
    } finally {
      walked.chain.close()
    }
  }
}
