import { createHash } from 'node:crypto'
import { open } from 'node:fs/promises'
import { allowedUrl, type BundlePin } from './pin'
import { InstallError } from './errors'

/**
 * Streams the pinned archive to `file`: never more than `pin.size` bytes are accepted (the cap
 * holds while streaming, not after), the SHA-256 is computed on the way, and a stalled transfer is
 * abandoned. Progress reports real byte counts.
 */
export async function downloadArchive(
  pin: BundlePin,
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
  const handle = await open(file, 'wx', 0o600)
  try {
    armStall()
    let response: Response
    try {
      // Release hosts redirect to storage; integrity comes from the pinned digest, not the host,
      // but a redirect may not downgrade to plain http.
      response = await fetch(pin.url, { signal: controller.signal, redirect: 'follow' })
    } catch (error) {
      throw new InstallError('download-failed', `The bundle could not be downloaded (${describe(error)}).`)
    }
    if (response.redirected && !allowedUrl(response.url)) {
      throw new InstallError('download-failed', 'The bundle URL redirected to an address that is not https.')
    }
    if (!response.ok || !response.body) {
      throw new InstallError('download-failed', `The bundle server answered ${response.status}.`)
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (Number.isFinite(declared) && declared > pin.size) {
      throw new InstallError('too-large', `The download announces ${declared} bytes; the pinned size is ${pin.size}.`)
    }
    const hash = createHash('sha256')
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
    if (digest !== pin.sha256) {
      throw new InstallError('digest-mismatch', `The download's SHA-256 is ${digest}, not the pinned ${pin.sha256}.`)
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
