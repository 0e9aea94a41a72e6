import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { resolveForRead, type ProjectRoots } from '../files'

export interface SourceBytes {
  readonly path: string
  readonly bytes: Buffer
  readonly revision: string
}

/**
 * The bytes of a project file as one snapshot (read with the same containment as `files.read`,
 * bounded while reading), so a preview or conversion is made from exactly the revision it names.
 */
export async function readSource(roots: ProjectRoots, path: string, maxBytes: number): Promise<Outcome<SourceBytes>> {
  const resolved = await resolveForRead(roots, path)
  if (resolved.kind === 'error') return resolved
  const { real, stats } = resolved.result
  if (!stats.isFile()) return fail('INVALID_REQUEST', `"${path}" is not a file.`, { path })
  if (stats.size > maxBytes) return tooLarge(path, stats.size, maxBytes)
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total))
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total)
      if (bytesRead === 0) break
      total += bytesRead
      chunks.push(chunk.subarray(0, bytesRead))
      if (total > maxBytes) return tooLarge(path, total, maxBytes)
    }
    const bytes = Buffer.concat(chunks, total)
    return ok({ path, bytes, revision: `sha256:${createHash('sha256').update(bytes).digest('hex')}` })
  } finally {
    await handle.close()
  }
}

function tooLarge(path: string, size: number, limit: number) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${Math.round(limit / 1024 / 1024)} MiB Office limit.`, {
    path,
    size,
    limit,
  })
}
