import { open, unlink } from 'node:fs/promises'

/** Makes a directory's entries (a rename, a new or removed name) durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * Writes bytes to a new file (`wx`: never an existing one), fsyncs it, and closes it. A failed write
 * (a full disk) removes the partial file: it was created here, so it is ours to remove, and left
 * behind it would only keep the disk full.
 */
export async function writeNewFileSynced(path: string, bytes: Uint8Array, mode = 0o600): Promise<void> {
  const handle = await open(path, 'wx', mode)
  try {
    let offset = 0
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset)
      offset += bytesWritten
    }
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(path).catch(() => undefined)
    throw error
  }
  await handle.close()
}
