import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, rmSync, symlinkSync } from 'node:fs'
import { read, write } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const readAsync = promisify(read)
const writeAsync = promisify(write)
const COPY_CHUNK_BYTES = 1024 * 1024

/*
 * Writing into a folder tree Retrace has just made itself (a forked worktree that git checked out):
 * its content came from a repository, so any folder on a path may be a link the repository
 * committed — `docs -> ~/.ssh` — and a plain `writeFileSync(join(base, 'docs/x'))` would write
 * through it, outside the tree. Here no link is ever followed: a link (or a file) where a folder is
 * needed is removed (which never touches what it points at) and replaced by a real folder, as the
 * tree being mirrored has a real folder there; the leaf is opened O_NOFOLLOW. Paths are relative,
 * `/`-separated and already checked (git's own paths, journal paths).
 */

/** Makes every folder of `path` below `base` a real folder and answers the leaf's absolute path. */
function realParents(base: string, path: string): string {
  const segments = path.split('/')
  const name = segments.pop() as string
  let dir = base
  for (const segment of segments) {
    dir = join(dir, segment)
    const info = lstatSync(dir, { throwIfNoEntry: false })
    if (info?.isDirectory()) continue
    if (info) rmSync(dir, { force: true })
    mkdirSync(dir)
  }
  return join(dir, name)
}

/** Clears the leaf when something other than a regular file is there (a link, a folder). */
function clearLeaf(file: string): void {
  const info = lstatSync(file, { throwIfNoEntry: false })
  if (info && !info.isFile()) rmSync(file, { force: true, recursive: info.isDirectory() })
}

function openLeafForWrite(file: string, mode: number): number {
  return openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode)
}

/** Copies an open file (read from its start) to `path` below `base`, in chunks, with `mode`. */
export async function copyIntoTree(base: string, path: string, sourceFd: number, mode: number): Promise<void> {
  const file = realParents(base, path)
  clearLeaf(file)
  const fd = openLeafForWrite(file, mode)
  try {
    const chunk = Buffer.allocUnsafe(COPY_CHUNK_BYTES)
    for (let position = 0; ;) {
      const { bytesRead } = await readAsync(sourceFd, chunk, 0, chunk.length, position)
      if (bytesRead === 0) break
      for (let written = 0; written < bytesRead;) {
        const { bytesWritten } = await writeAsync(fd, chunk, written, bytesRead - written, position + written)
        written += bytesWritten
      }
      position += bytesRead
    }
    fchmodSync(fd, mode)
  } finally {
    closeSync(fd)
  }
}

/** Writes `bytes` to `path` below `base` with `mode`. */
export async function writeIntoTree(base: string, path: string, bytes: Uint8Array, mode: number): Promise<void> {
  const file = realParents(base, path)
  clearLeaf(file)
  const fd = openLeafForWrite(file, mode)
  try {
    for (let written = 0; written < bytes.length;) {
      const { bytesWritten } = await writeAsync(fd, bytes, written, bytes.length - written, written)
      written += bytesWritten
    }
    fchmodSync(fd, mode)
  } finally {
    closeSync(fd)
  }
}

/** Makes `path` below `base` a link whose text is `target` (as git checks a link out: not resolved). */
export function linkIntoTree(base: string, path: string, target: string): void {
  const file = realParents(base, path)
  const info = lstatSync(file, { throwIfNoEntry: false })
  if (info) rmSync(file, { force: true, recursive: info.isDirectory() })
  symlinkSync(target, file)
}

/**
 * Removes `path` below `base` if the tree itself holds it: when a folder on the way is a link or
 * not a folder, the path is not in this tree and nothing is removed (never a file a link reaches).
 */
export function removeFromTree(base: string, path: string): void {
  const segments = path.split('/')
  const name = segments.pop() as string
  let dir = base
  for (const segment of segments) {
    dir = join(dir, segment)
    if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return
  }
  const file = join(dir, name)
  const info = lstatSync(file, { throwIfNoEntry: false })
  if (info) rmSync(file, { force: true, recursive: info.isDirectory() })
}
