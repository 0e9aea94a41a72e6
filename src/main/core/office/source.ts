import { createHash } from 'node:crypto'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { openForRead, type ProjectRoots } from '../files'
import { readToEnd } from '../project-fs'

export interface SourceBytes {
  readonly path: string
  readonly bytes: Buffer
  readonly revision: string
}

/**
 * The bytes of a project file as one snapshot (opened with the same containment as `files.read`,
 * bounded while reading), so a preview or conversion is made from exactly the revision it names.
 */
export async function readSource(roots: ProjectRoots, path: string, maxBytes: number): Promise<Outcome<SourceBytes>> {
  const opened = await openForRead(roots, path)
  if (opened.kind === 'error') return opened
  const target = opened.result
  try {
    if (target.kind !== 'file')
      return fail('INVALID_REQUEST', `"${path}" is a folder, not a file.`, { path, reason: 'is-directory' })
    const bytes = await readToEnd(target.fd, target.size, maxBytes)
    if (bytes === 'too-large') return tooLarge(path, Math.max(target.size, maxBytes + 1), maxBytes)
    return ok({ path, bytes, revision: `sha256:${createHash('sha256').update(bytes).digest('hex')}` })
  } finally {
    target.close()
  }
}

/**
 * A recorded version's bytes (Review's pages) as a snapshot: the same revision key as the file on
 * disk would get, so both share one cached PDF, and the same size bound.
 */
export function recordedSource(path: string, bytes: Uint8Array, maxBytes: number): Outcome<SourceBytes> {
  if (bytes.length > maxBytes) return tooLarge(path, bytes.length, maxBytes)
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return ok({ path, bytes: buffer, revision: `sha256:${createHash('sha256').update(buffer).digest('hex')}` })
}

function tooLarge(path: string, size: number, limit: number) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${Math.round(limit / 1024 / 1024)} MiB Office limit.`, {
    path,
    size,
    limit,
    reason: 'office-limit',
  })
}
