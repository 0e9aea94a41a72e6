import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs'
import { open } from 'node:fs/promises'
import { sep } from 'node:path'
import { checkRelPath, isForbiddenSegment } from '../../../shared/paths'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { isInside } from '../platform'
import { digestOf, type Digest } from '../store'

/** What is at a write target right now, read under the lock (bytes included for regular files). */
export type DiskState =
  | { kind: 'absent'; abs: string; missingParents: readonly string[] }
  | { kind: 'directory'; abs: string }
  | { kind: 'regular'; abs: string; bytes: Buffer; digest: Digest; mode: number; identity: FileIdentity }

export interface FileIdentity {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

export interface WriteRoots {
  readonly root: string
  readonly dataDir: string
}

function refusal(path: string, reason: string, message: string) {
  return fail('PERMISSION_DENIED', message, { path, reason })
}

/**
 * Spec 03 step 1: canonicalise inside the workspace root. Refuses escapes, symlinks anywhere below
 * the root, hard-linked or non-regular leaves and oversized files — each with its own reason —
 * and reads the current content. Never writes.
 */
export async function readWriteTarget(roots: WriteRoots, path: string, maxBytes: number): Promise<Outcome<DiskState>> {
  const check = checkRelPath(path)
  if (check.kind === 'escape') return refusal(path, check.reason, `"${path}" points outside the project folder.`)
  if (check.kind === 'malformed') {
    return fail('INVALID_REQUEST', `"${path}" is not a valid project path.`, { path, reason: check.reason })
  }
  if (check.segments.length === 0) return fail('INVALID_REQUEST', 'The project folder itself is not a file.', { path })
  if (check.segments.some(isForbiddenSegment)) {
    return refusal(path, 'forbidden-folder', `"${path}" is inside a folder Retrace never writes to.`)
  }
  let abs = roots.root
  const missingParents: string[] = []
  for (const [index, segment] of check.segments.entries()) {
    abs = `${abs}${sep}${segment}`
    const isLeaf = index === check.segments.length - 1
    if (missingParents.length > 0) {
      if (!isLeaf) missingParents.push(abs)
      continue
    }
    let info: BigIntStats
    try {
      // lstat answers from the inode cache in microseconds; a thread-pool round trip per path
      // segment would cost more than the write itself.
      info = lstatSync(abs, { bigint: true })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') {
        if (!isLeaf) missingParents.push(abs)
        continue
      }
      if (code === 'EACCES') return refusal(path, 'no-access', `Retrace may not access "${path}".`)
      throw error
    }
    if (info.isSymbolicLink()) {
      return isLeaf
        ? refusal(path, 'symlink-leaf', `"${path}" is a symbolic link; Retrace does not write through links.`)
        : refusal(
            path,
            'symlink-parent',
            `A folder on the way to "${path}" is a symbolic link; Retrace does not write through links.`,
          )
    }
    if (!isLeaf && !info.isDirectory()) {
      return fail('INVALID_REQUEST', `A part of "${path}" is a file, not a folder.`, {
        path,
        reason: 'parent-not-directory',
      })
    }
    if (isLeaf) {
      if (isInside(roots.dataDir, abs))
        return refusal(path, 'data-directory', `"${path}" is inside Retrace's data folder.`)
      if (info.isDirectory()) return { kind: 'ok', result: { kind: 'directory', abs } }
      if (!info.isFile()) {
        return refusal(path, 'not-regular', `"${path}" is a device, socket or pipe, not a regular file.`)
      }
      if (info.nlink > 1n) {
        return refusal(path, 'hard-link', `"${path}" has other hard links; writing it would change them too.`)
      }
      if (info.size > BigInt(maxBytes)) return tooLarge(path, Number(info.size), maxBytes)
      const bytes = await readNoFollow(abs, maxBytes)
      if (bytes === 'too-large') return tooLarge(path, maxBytes + 1, maxBytes)
      return ok({
        kind: 'regular',
        abs,
        bytes,
        digest: digestOf(bytes),
        mode: Number(info.mode & 0o7777n),
        identity: { dev: info.dev, ino: info.ino, size: info.size, mtimeNs: info.mtimeNs },
      })
    }
  }
  if (isInside(roots.dataDir, abs)) return refusal(path, 'data-directory', `"${path}" is inside Retrace's data folder.`)
  return ok({ kind: 'absent', abs, missingParents })
}

export function tooLarge(path: string, size: number, limit: number) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${Math.round(limit / 1024 / 1024)} MiB limit.`, {
    path,
    size,
    limit,
  })
}

/** Files up to this size are read synchronously: far below the ~50 ms event-loop budget. */
const SYNC_READ_BYTES = 1024 * 1024

/** Reads at most `maxBytes` (+1 to detect growth) without following a symlink swapped in. */
export async function readNoFollow(abs: string, maxBytes: number): Promise<Buffer | 'too-large'> {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    const size = fstatSync(fd).size
    if (size <= SYNC_READ_BYTES && size <= maxBytes) {
      // One extra byte detects a file that grew since fstat.
      const buffer = Buffer.allocUnsafe(size + 1)
      let total = 0
      for (;;) {
        const n = readSync(fd, buffer, total, buffer.length - total, total)
        if (n === 0) break
        total += n
        if (total === buffer.length) break
      }
      if (total <= size) return buffer.subarray(0, total)
    }
  } finally {
    closeSync(fd)
  }
  const handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total))
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total)
      if (bytesRead === 0) break
      total += bytesRead
      chunks.push(chunk.subarray(0, bytesRead))
      if (total > maxBytes) return 'too-large'
    }
    return Buffer.concat(chunks, total)
  } finally {
    await handle.close()
  }
}
