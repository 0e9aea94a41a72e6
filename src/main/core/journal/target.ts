import { accessSync, closeSync, constants, fstatSync, openSync } from 'node:fs'
import { sep } from 'node:path'
import { MAX_ABSOLUTE_PATH_BYTES, checkRelPath, isForbiddenSegment, utf8Length } from '../../../shared/paths'
import { fail, ok, type FailureReasonOf, type Outcome } from '../../../shared/protocol'
import { isInside } from '../platform'
import { openChain, readLeaf, readToEnd, statLeaf, unreachablePath, type FileIdentity, type Place } from '../project-fs'
import { digestOf, type Digest } from '../store'
import { isJournalTempName, TEMP_NAME_BYTES } from './temp-names'

export type { FileIdentity } from '../project-fs'

/** What is at a write target right now, read under the lock (bytes included for regular files). */
export type DiskState =
  | { kind: 'absent'; place: Place }
  | { kind: 'directory'; place: Place }
  | { kind: 'regular'; place: Place; bytes: Buffer; digest: Digest; mode: number; identity: FileIdentity }

export interface WriteRoots {
  readonly root: string
  readonly dataDir: string
}

// Typed from the protocol's table: a reason a view cannot match (or the catalogue say) does not compile.
function refusal(path: string, reason: FailureReasonOf<'PERMISSION_DENIED'>, message: string) {
  return fail('PERMISSION_DENIED', message, { path, reason })
}

function invalid(path: string, reason: FailureReasonOf<'INVALID_REQUEST'>, message: string) {
  return fail('INVALID_REQUEST', message, { path, reason })
}

/**
 * Spec 03 step 1: canonicalise inside the workspace root. Refuses escapes, symlinks anywhere below
 * the root, hard-linked or non-regular leaves, oversized files and names the disk cannot hold —
 * each with its own reason — and reads the current content through folders opened without
 * following links. Never writes. The returned place records each folder's identity so that the
 * publish can prove it writes into the very folders checked here.
 */
export async function readWriteTarget(
  roots: WriteRoots,
  path: string,
  maxBytes: number,
  options: { hardLinks: 'refuse' | 'allow' } = { hardLinks: 'refuse' },
): Promise<Outcome<DiskState>> {
  const refuseLinks = options.hardLinks === 'refuse'
  const check = checkRelPath(path)
  if (check.kind === 'escape') return refusal(path, check.reason, `"${path}" points outside the project folder.`)
  if (check.kind === 'malformed') {
    return invalid(path, check.reason, malformedMessage(path, check.reason))
  }
  if (check.segments.length === 0) return invalid(path, 'is-root', 'The project folder itself is not a file.')
  if (check.segments.some(isForbiddenSegment)) {
    return refusal(path, 'forbidden-folder', `"${path}" is inside a folder Retrace never writes to.`)
  }
  const name = check.segments[check.segments.length - 1] as string
  if (isJournalTempName(name)) {
    return invalid(path, 'reserved-name', `"${name}" is a name Retrace reserves for its own temporary files.`)
  }
  const absolute = `${roots.root}${sep}${check.segments.join(sep)}`
  // The publish writes a temporary file next to the target: both must fit the OS path limit, and
  // this is known before any folder is created.
  const parentBytes = utf8Length(absolute) - utf8Length(name)
  if (utf8Length(absolute) > MAX_ABSOLUTE_PATH_BYTES || parentBytes + TEMP_NAME_BYTES > MAX_ABSOLUTE_PATH_BYTES) {
    return invalid(path, 'path-too-long', `"${path}" is too long for this computer's file system.`)
  }
  if (isInside(roots.dataDir, absolute)) {
    return refusal(path, 'data-directory', `"${path}" is inside Retrace's data folder.`)
  }
  const parentSegments = check.segments.slice(0, -1)
  const walked = openChain(roots.root, parentSegments)
  if (walked.kind === 'failed') {
    switch (walked.reason) {
      case 'symlink':
        return refusal(
          path,
          'symlink-parent',
          `A folder on the way to "${path}" is a symbolic link; Retrace does not write through links.`,
        )
      case 'not-directory':
        return invalid(path, 'parent-not-directory', `A part of "${path}" is a file, not a folder.`)
      case 'no-access':
        return refusal(path, 'no-access', `Retrace may not access "${path}".`)
      case 'name-too-long':
        return invalid(path, 'name-too-long', malformedMessage(path, 'name-too-long'))
      case 'io-error':
        return unreachablePath(path, walked.code, 'write')
    }
  }
  const chain = walked.chain
  try {
    const place: Place = {
      path,
      parentSegments,
      name,
      parents: chain.dirs.map((dir) => dir.identity),
      missing: chain.missing,
    }
    if (chain.missing.length > 0) return ok({ kind: 'absent', place })
    const leaf = statLeaf(chain.deepest, name)
    switch (leaf.kind) {
      case 'absent':
        return ok({ kind: 'absent', place })
      case 'symlink':
        return refusal(path, 'symlink-leaf', `"${path}" is a symbolic link; Retrace does not write through links.`)
      case 'directory':
        return ok({ kind: 'directory', place })
      case 'special':
        return refusal(path, 'not-regular', `"${path}" is a device, socket or pipe, not a regular file.`)
      case 'no-access':
        return refusal(path, 'no-access', `Retrace may not access "${path}".`)
      case 'regular':
        break
    }
    if (refuseLinks && leaf.nlink > 1n) {
      return refusal(path, 'hard-link', `"${path}" has other hard links; writing it would change them too.`)
    }
    if (leaf.identity.size > BigInt(maxBytes)) return tooLarge(path, Number(leaf.identity.size), maxBytes)
    const read = await readLeaf(chain.deepest, name, maxBytes)
    switch (read.kind) {
      case 'regular':
        if (refuseLinks && read.nlink > 1n) {
          return refusal(path, 'hard-link', `"${path}" has other hard links; writing it would change them too.`)
        }
        return ok({
          kind: 'regular',
          place,
          bytes: read.bytes,
          digest: digestOf(read.bytes),
          mode: read.mode,
          identity: read.identity,
        })
      case 'too-large':
        return tooLarge(path, read.size, maxBytes)
      case 'absent':
        return ok({ kind: 'absent', place })
      case 'directory':
        return ok({ kind: 'directory', place })
      case 'symlink':
        return refusal(path, 'symlink-leaf', `"${path}" is a symbolic link; Retrace does not write through links.`)
      case 'special':
        return refusal(path, 'not-regular', `"${path}" is a device, socket or pipe, not a regular file.`)
      case 'no-access':
        return refusal(path, 'no-access', `Retrace may not access "${path}".`)
    }
  } finally {
    chain.close()
  }
}

function malformedMessage(path: string, reason: string): string {
  switch (reason) {
    case 'name-too-long':
      return `A name in "${path}" is longer than the file system's 255-byte limit.`
    case 'too-long':
      return `"${path}" is too long for this computer's file system.`
    case 'nul':
      return `"${path}" contains a NUL character, which no file name can hold.`
    case 'not-unicode':
      return `"${path}" is not valid Unicode text and cannot be written as a file name.`
    default:
      return `"${path}" is not a valid project path.`
  }
}

/** True when Retrace may create or replace names in the folder that holds `place` (or its deepest existing ancestor). */
export function parentWritable(root: string, place: Place): boolean {
  const walked = openChain(root, place.parentSegments)
  if (walked.kind === 'failed') return false
  try {
    accessSync(walked.chain.deepest.self, constants.W_OK)
    return true
  } catch {
    return false
  } finally {
    walked.chain.close()
  }
}

export function tooLarge(path: string, size: number, limit: number) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${Math.round(limit / 1024 / 1024)} MiB limit.`, {
    path,
    size,
    limit,
    reason: 'file-limit',
  })
}

/**
 * Reads a local file named by an absolute path outside any project (a generator's output), never
 * following a link at the leaf and never blocking on a FIFO.
 */
export async function readLocalFile(
  abs: string,
  maxBytes: number,
): Promise<{ kind: 'ok'; bytes: Buffer; dev: bigint; ino: bigint } | { kind: 'too-large' } | { kind: 'not-regular' }> {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const info = fstatSync(fd, { bigint: true })
    if (!info.isFile()) return { kind: 'not-regular' }
    const bytes = await readToEnd(fd, Number(info.size), maxBytes)
    return bytes === 'too-large' ? { kind: 'too-large' } : { kind: 'ok', bytes, dev: info.dev, ino: info.ino }
  } finally {
    closeSync(fd)
  }
}
