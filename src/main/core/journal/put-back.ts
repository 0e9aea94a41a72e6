import { linkSync, unlinkSync } from 'node:fs'
import type { BlobStore } from '../store'
import { publishDelete, publishDirectory, publishRegular, type Expected, type PublishContext } from './publish'
import { readWriteTarget, type DiskState, type WriteRoots } from './target'
import type { FileState, ReceiptFile } from './types'

/** Where a receipt's path is now: found by walking from the root without following links. */
export type Located = { kind: 'ok'; state: DiskState } | { kind: 'unsafe'; reason: string }

/** Finds receipt paths on disk as they are now (recovery, and a rollback after folders were removed). */
export function locator(roots: WriteRoots, maxBytes: number): (path: string) => Promise<Located> {
  return async (path) => {
    // A rename killed between link and unlink leaves two names on one inode: recovery must see it.
    const found = await readWriteTarget(roots, path, maxBytes, { hardLinks: 'allow' })
    if (found.kind === 'error')
      return { kind: 'unsafe', reason: String(found.error.details?.reason ?? found.error.code) }
    return { kind: 'ok', state: found.result }
  }
}

function expectedOf(state: FileState): Expected {
  return state.kind === 'regular' ? { kind: 'regular', digest: state.digest } : { kind: state.kind }
}

/** Puts one published file (or folder) of a transaction back to its before state, from the disk as it is now. */
export async function putBack(
  context: PublishContext,
  file: ReceiptFile,
  locate: (path: string) => Promise<Located>,
  blobs: BlobStore,
): Promise<boolean> {
  try {
    const here = await locate(file.path)
    if (here.kind !== 'ok') return false
    const place = here.state.place
    if (file.operation === 'rename' && file.old_path) {
      const old = await locate(file.old_path)
      if (old.kind !== 'ok' || old.state.kind !== 'absent') return false
      const from = await context.dirs.parent(place, { create: false })
      const to = await context.dirs.parent(old.state.place, { create: true })
      if (from.kind === 'error' || to.kind === 'error') return false
      linkSync(from.result.at(place.name), to.result.at(old.state.place.name))
      unlinkSync(from.result.at(place.name))
      return true
    }
    const current = expectedOf(file.after)
    if (file.before.kind === 'absent') return (await publishDelete(context, place, current)).kind === 'ok'
    // A folder a restore removed: made again where nothing took its place.
    if (file.before.kind === 'directory') {
      if (here.state.kind === 'directory') return true
      return here.state.kind === 'absent' && (await publishDirectory(context, place)).kind === 'ok'
    }
    if (file.before.kind !== 'regular' || !file.before.blob_ref) return false
    const bytes = await blobs.read(file.before.blob_ref)
    if (bytes.kind === 'error') return false
    const mode = Number.parseInt(file.before.mode, 8)
    return (await publishRegular(context, place, bytes.result, mode, current)).kind === 'ok'
  } catch {
    return false
  }
}
