import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { allowedUrl } from './pin'
import { InstallError } from './errors'

/** What an archive is checked against: its exact size and a digest (hex), as its pin gives them. */
export interface ArchiveSource {
  readonly url: string
  readonly size: number
  readonly digest: { readonly algorithm: 'sha256' | 'sha512'; readonly hex: string }
  /** What the messages call it ("bundle", "LibreOffice pack"). */
  readonly noun?: string
}

/**
 * Streams the pinned archive to `file`: never more than `pin.size` bytes are accepted (the cap
 * holds while streaming, not after), the pinned digest is computed on the way, and a stalled
 * transfer is abandoned. Progress reports real byte counts.
 */
export async function downloadArchive(
  pin: ArchiveSource,
  file: string,
  options: { signal?: AbortSignal; stallMs?: number; onBytes?: (received: number) => void },
): Promise<void> {
  const controller = new AbortController()
  const abortOuter = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', abortOuter, { once: true })
  let stall: ReturnType<typeof setTimeout> | undefined
  const armStall = () => {
    clearTimeout(stall)
    stall = setTimeout(() => controller.abort(new Error('stalled')), options.stallMs ?? 60_000)
  }
  const noun = pin.noun ?? 'bundle'
  const handle = await open(file, 'wx', 0o600)
  try {
    armStall()
    let response: Response
    try {
      // Release hosts redirect to storage; integrity comes from the pinned digest, not the host,
      // but a redirect may not downgrade to plain http.
      response = await fetch(pin.url, { signal: controller.signal, redirect: 'follow' })
    } catch (error) {
      throw new InstallError('download-failed', `The ${noun} could not be downloaded (${describe(error)}).`)
    }
    if (response.redirected && !allowedUrl(response.url)) {
      throw new InstallError('download-failed', `The ${noun} URL redirected to an address that is not https.`)
    }
    if (!response.ok || !response.body) {
      throw new InstallError('download-failed', `The ${noun} server answered ${response.status}.`)
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (Number.isFinite(declared) && declared > pin.size) {
      throw new InstallError('too-large', `The download announces ${declared} bytes; the pinned size is ${pin.size}.`)
    }
    const hash = createHash(pin.digest.algorithm)
    let received = 0
    const reader = response.body.getReader()
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>
        try {
          chunk = await reader.read()
        } catch (error) {
          throw new InstallError('truncated', `The download broke off after ${received} bytes (${describe(error)}).`)
        }
        if (chunk.done) break
        received += chunk.value.byteLength
        if (received > pin.size) {
          throw new InstallError('too-large', `The download exceeded the pinned size of ${pin.size} bytes.`)
        }
        hash.update(chunk.value)
        await handle.write(chunk.value)
        armStall()
        options.onBytes?.(received)
      }
    } finally {
      await reader.cancel().catch(() => undefined)
    }
    if (received < pin.size) {
      throw new InstallError('truncated', `The download ended after ${received} of ${pin.size} bytes.`)
    }
    const digest = hash.digest('hex')
    if (digest !== pin.digest.hex) {
      const name = pin.digest.algorithm.toUpperCase().replace('SHA', 'SHA-')
      throw new InstallError(
        'digest-mismatch',
        `The download's ${name} is ${digest}, not the pinned ${pin.digest.hex}.`,
      )
    }
    await handle.sync()
  } finally {
    clearTimeout(stall)
    options.signal?.removeEventListener('abort', abortOuter)
    await handle.close()
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message
  }
  return String(error)
}
