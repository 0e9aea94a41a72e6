import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { baseName } from '../../../shared/paths'
import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { resolveForRead, type ProjectRoots } from './containment'
import { classifyContent, sniffMime } from './sniff'

export interface ReadLimits {
  /** Largest file `files.read` returns (spec 08: reads are bounded, 64 MiB by default). */
  readonly maxReadBytes: number
}

export const DEFAULT_READ_LIMITS: ReadLimits = { maxReadBytes: 64 * 1024 * 1024 }

/**
 * Reads a project file: text comes back as text; binary content never does — only its type, size
 * and revision (adapters that need the bytes get them through their own action).
 */
export async function readFile(
  roots: ProjectRoots,
  path: string,
  limits: ReadLimits,
): Promise<Outcome<ResultOf<'files.read'>>> {
  const resolved = await resolveForRead(roots, path)
  if (resolved.kind === 'error') return resolved
  const { real, stats } = resolved.result
  if (stats.isDirectory()) return fail('INVALID_REQUEST', `"${path}" is a folder, not a file.`, { path })
  if (!stats.isFile()) {
    return fail('UNSUPPORTED', `"${path}" is not a regular file (a device, socket or pipe).`, { path })
  }
  if (stats.size > limits.maxReadBytes) {
    return tooLarge(path, stats.size, limits)
  }

  // O_NOFOLLOW: the real path was just resolved; a symlink appearing there now is a swap race.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    const chunks: Buffer[] = []
    let total = 0
    // The size limit holds while reading, not just per stat: a file growing under us is cut off.
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, limits.maxReadBytes + 1 - total))
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total)
      if (bytesRead === 0) break
      total += bytesRead
      chunks.push(chunk.subarray(0, bytesRead))
      if (total > limits.maxReadBytes) return tooLarge(path, total, limits)
    }
    const bytes = Buffer.concat(chunks, total)
    const revision = `sha256:${createHash('sha256').update(bytes).digest('hex')}`
    const content = classifyContent(baseName(path), bytes)
    return content.kind === 'text'
      ? ok({ kind: 'text', path, text: content.text, revision, size: total })
      : ok({ kind: 'binary', path, mime: content.mime, revision, size: total })
  } finally {
    await handle.close()
  }
}

function tooLarge(path: string, size: number, limits: ReadLimits) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${formatMiB(limits.maxReadBytes)} read limit.`, {
    path,
    size,
    limit: limits.maxReadBytes,
    mime: sniffMime(baseName(path), new Uint8Array()),
  })
}

function formatMiB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`
}
