import { createHash } from 'node:crypto'
import { baseName } from '../../../shared/paths'
import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { readToEnd } from '../project-fs'
import { openForRead, type ProjectRoots } from './containment'
import { classifyContent, sniffMime } from './sniff'

export interface ReadLimits {
  /** Largest file `files.read` returns (spec 08: reads are bounded, 64 MiB by default). */
  readonly maxReadBytes: number
}

export const DEFAULT_READ_LIMITS: ReadLimits = { maxReadBytes: 64 * 1024 * 1024 }

/** Bounds the bytes of large reads in memory at once (see {@link createByteBudget}). */
export interface ByteBudget {
  /** Waits until `bytes` fit, then holds them until the returned release is called. */
  acquire(bytes: number): Promise<() => void>
}

/**
 * A counting semaphore over bytes: many small reads pass at once, a flood of large ones queues.
 * A single request larger than the whole budget still runs, alone.
 */
export function createByteBudget(totalBytes: number): ByteBudget {
  let inUse = 0
  const waiting: Array<{ bytes: number; grant: () => void }> = []
  const pump = () => {
    while (waiting.length > 0) {
      const next = waiting[0] as { bytes: number; grant: () => void }
      if (inUse > 0 && inUse + next.bytes > totalBytes) return
      waiting.shift()
      inUse += next.bytes
      next.grant()
    }
  }
  return {
    acquire(bytes) {
      const held = Math.min(bytes, totalBytes)
      return new Promise((resolve) => {
        waiting.push({
          bytes: held,
          grant: () => {
            let released = false
            resolve(() => {
              if (released) return
              released = true
              inUse -= held
              pump()
            })
          },
        })
        pump()
      })
    },
  }
}

/**
 * Reads a project file: text comes back as text; binary content never does — only its type, size
 * and revision (adapters that need the bytes get them through the byte transfer).
 */
export async function readFile(
  roots: ProjectRoots,
  path: string,
  limits: ReadLimits,
  budget?: ByteBudget,
): Promise<Outcome<ResultOf<'files.read'>>> {
  const opened = await openForRead(roots, path)
  if (opened.kind === 'error') return opened
  const target = opened.result
  try {
    if (target.kind === 'directory')
      return fail('INVALID_REQUEST', `"${path}" is a folder, not a file.`, { path, reason: 'is-directory' })
    if (target.size > limits.maxReadBytes) return tooLarge(path, target.size, limits)
    const release = budget ? await budget.acquire(target.size) : () => {}
    try {
      // The size limit holds while reading, not just per stat: a file growing under us is cut off.
      const bytes = await readToEnd(target.fd, target.size, limits.maxReadBytes)
      if (bytes === 'too-large') return tooLarge(path, limits.maxReadBytes + 1, limits)
      const revision = `sha256:${createHash('sha256').update(bytes).digest('hex')}`
      const content = classifyContent(baseName(path), bytes)
      return content.kind === 'text'
        ? ok({ kind: 'text', path, text: content.text, revision, size: bytes.length })
        : ok({ kind: 'binary', path, mime: content.mime, revision, size: bytes.length })
    } finally {
      release()
    }
  } finally {
    target.close()
  }
}

function tooLarge(path: string, size: number, limits: ReadLimits) {
  return fail('TOO_LARGE', `"${path}" is larger than the ${formatMiB(limits.maxReadBytes)} read limit.`, {
    path,
    size,
    limit: limits.maxReadBytes,
    mime: sniffMime(baseName(path), new Uint8Array()),
    reason: 'read-limit',
  })
}

function formatMiB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`
}
