import {
  closeSync,
  constants,
  fstatSync,
  fsync,
  lstatSync,
  openSync,
  read,
  readSync,
  write,
  writeSync,
  type BigIntStats,
} from 'node:fs'
import { promisify } from 'node:util'
import type { OpenDir } from './pinned-dir'

const readAsync = promisify(read)
const writeAsync = promisify(write)
const fsyncAsync = promisify(fsync)

export interface FileIdentity {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

/** What a name inside an open directory is, without following it. */
export type LeafStat =
  | { kind: 'absent' }
  | { kind: 'symlink' }
  | { kind: 'directory'; identity: FileIdentity }
  | { kind: 'regular'; identity: FileIdentity; mode: number; nlink: bigint }
  | { kind: 'special' }
  | { kind: 'no-access' }

function identityOf(info: BigIntStats): FileIdentity {
  return { dev: info.dev, ino: info.ino, size: info.size, mtimeNs: info.mtimeNs }
}

function leafOf(info: BigIntStats): LeafStat {
  if (info.isSymbolicLink()) return { kind: 'symlink' }
  if (info.isDirectory()) return { kind: 'directory', identity: identityOf(info) }
  if (info.isFile())
    return { kind: 'regular', identity: identityOf(info), mode: Number(info.mode & 0o7777n), nlink: info.nlink }
  return { kind: 'special' }
}

function failureLeaf(error: unknown): LeafStat {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' }
  if (code === 'EACCES' || code === 'EPERM') return { kind: 'no-access' }
  throw error
}

export function statLeaf(dir: OpenDir, name: string): LeafStat {
  try {
    // lstat answers from the inode cache in microseconds; a thread-pool round trip would cost more.
    return leafOf(lstatSync(dir.at(name), { bigint: true }))
  } catch (error) {
    return failureLeaf(error)
  }
}

export type OpenedFile =
  | { kind: 'regular'; fd: number; identity: FileIdentity; mode: number; nlink: bigint }
  | Exclude<LeafStat, { kind: 'regular' }>

/**
 * Opens a regular file for reading. `O_NONBLOCK` makes the open of a FIFO or device swapped in for
 * the file return at once (a blocking open would stall the event loop or a pool thread for good);
 * `fstat` then refuses anything but a regular file. On regular files Linux ignores the flag, so it
 * need not be cleared before reading.
 */
export function openFileForRead(dir: OpenDir, name: string): OpenedFile {
  let fd: number
  try {
    fd = openSync(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') return { kind: 'symlink' }
    if (code === 'ENXIO' || code === 'EWOULDBLOCK') return { kind: 'special' }
    return failureLeaf(error) as OpenedFile
  }
  const info = fstatSync(fd, { bigint: true })
  const leaf = leafOf(info)
  if (leaf.kind !== 'regular') {
    closeSync(fd)
    return leaf
  }
  return { ...leaf, fd }
}

/** Files up to this size are read synchronously: far below the ~50 ms event-loop budget. */
const SYNC_READ_BYTES = 1024 * 1024
const CHUNK_BYTES = 1024 * 1024

/**
 * Reads an open file to its end, at most `maxBytes` (one byte more is tried so a file that grew
 * past the limit since `fstat` is noticed). Does not close `fd`.
 */
export async function readToEnd(fd: number, expectedSize: number, maxBytes: number): Promise<Buffer | 'too-large'> {
  if (expectedSize > maxBytes) return 'too-large'
  if (expectedSize <= SYNC_READ_BYTES) {
    const buffer = Buffer.allocUnsafe(expectedSize + 1)
    let total = 0
    for (;;) {
      const n = readSync(fd, buffer, total, buffer.length - total, total)
      if (n === 0) break
      total += n
      if (total === buffer.length) break
    }
    if (total <= expectedSize) return buffer.subarray(0, total)
  }
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total))
    const { bytesRead } = await readAsync(fd, chunk, 0, chunk.length, total)
    if (bytesRead === 0) break
    total += bytesRead
    chunks.push(chunk.subarray(0, bytesRead))
    if (total > maxBytes) return 'too-large'
  }
  return Buffer.concat(chunks, total)
}

export type LeafRead =
  | { kind: 'regular'; bytes: Buffer; identity: FileIdentity; mode: number; nlink: bigint }
  | { kind: 'too-large'; size: number }
  | Exclude<LeafStat, { kind: 'regular' }>

/** Opens and reads `name` in `dir` (never following a link, never blocking on a FIFO). */
export async function readLeaf(dir: OpenDir, name: string, maxBytes: number): Promise<LeafRead> {
  const opened = openFileForRead(dir, name)
  if (opened.kind !== 'regular') return opened
  try {
    const size = Number(opened.identity.size)
    if (size > maxBytes) return { kind: 'too-large', size }
    const bytes = await readToEnd(opened.fd, size, maxBytes)
    if (bytes === 'too-large') return { kind: 'too-large', size: maxBytes + 1 }
    return { kind: 'regular', bytes, identity: opened.identity, mode: opened.mode, nlink: opened.nlink }
  } finally {
    closeSync(opened.fd)
  }
}

/**
 * Creates `name` in `dir` (never an existing name, never through a link), writes, fsyncs, closes.
 * Small writes are synchronous (microseconds); the fsync and large writes run in the thread pool
 * so a slow disk never stalls the event loop.
 */
export async function writeNewFile(dir: OpenDir, name: string, bytes: Uint8Array, mode: number): Promise<void> {
  const fd = openSync(
    dir.at(name),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  )
  try {
    let offset = 0
    while (offset < bytes.length) {
      const length = Math.min(CHUNK_BYTES * 4, bytes.length - offset)
      offset +=
        bytes.length <= SYNC_READ_BYTES
          ? writeSync(fd, bytes, offset, length, offset)
          : (await writeAsync(fd, bytes, offset, length, offset)).bytesWritten
    }
    await fsyncAsync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Makes the directory's entries (a new, renamed or removed name) durable. */
export async function syncDir(dir: OpenDir): Promise<void> {
  await fsyncAsync(dir.fd)
}
