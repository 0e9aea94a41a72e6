import type { RequestClient } from '../../transport'

/** Where an adapter's bytes come from. */
export type ByteSource =
  | { readonly kind: 'project-file'; readonly projectId: string; readonly path: string }
  | {
      readonly kind: 'review-side'
      readonly owner: { project_id: string; session_id?: string }
      readonly snapshotId: string
      readonly path: string
      readonly side: 'before' | 'after'
    }

export type BytesOutcome =
  | { readonly kind: 'ok'; readonly bytes: Uint8Array; readonly mime: string }
  | { readonly kind: 'absent' }
  | {
      readonly kind: 'unavailable'
      readonly reason: 'unsupported' | 'failed'
      readonly mime?: string
      readonly size?: number
    }

/**
 * The one way binary adapters (and Download) get bytes. Project files come through the engine's
 * bounded byte transfer (`files.read_bytes` → a same-origin ticket URL fetched as raw bytes), and
 * Review's before/after the same way from the blob its snapshot pinned (`review.preview` → a
 * ticket URL); never as base64 inside JSON frames.
 */
export async function loadBytes(
  client: RequestClient,
  source: ByteSource,
  signal?: AbortSignal,
): Promise<BytesOutcome> {
  const located = await locateBytes(client, source, signal)
  if (located.kind !== 'ok') return located
  let response: Response
  try {
    response = await fetch(located.url, { credentials: 'same-origin', ...(signal ? { signal } : {}) })
  } catch {
    return { kind: 'unavailable', reason: 'failed' }
  }
  // The file changed between the ticket and the fetch: one fresh ticket.
  if (response.status === 409 && source.kind === 'project-file') {
    const again = await locateBytes(client, source, signal)
    if (again.kind !== 'ok') return again
    try {
      response = await fetch(again.url, { credentials: 'same-origin', ...(signal ? { signal } : {}) })
    } catch {
      return { kind: 'unavailable', reason: 'failed' }
    }
  }
  if (!response.ok) return { kind: 'unavailable', reason: 'failed', mime: located.mime, size: located.size }
  return { kind: 'ok', bytes: new Uint8Array(await response.arrayBuffer()), mime: located.mime }
}

export type LocatedBytes =
  | { readonly kind: 'ok'; readonly url: string; readonly mime: string; readonly size: number }
  | Exclude<BytesOutcome, { kind: 'ok' }>

/**
 * A short-lived same-origin URL serving the bytes, for adapters that stream them themselves
 * (media elements seek with Range requests). Ask again when a URL has expired.
 */
export async function locateBytes(
  client: RequestClient,
  source: ByteSource,
  signal?: AbortSignal,
): Promise<LocatedBytes> {
  if (source.kind === 'review-side') {
    const outcome = await client.request(
      'review.preview',
      { snapshot_id: source.snapshotId, path: source.path, side: source.side },
      { owner: source.owner, ...(signal ? { signal } : {}) },
    )
    if (outcome.kind !== 'ok') return { kind: 'unavailable', reason: 'failed' }
    const preview = outcome.result
    switch (preview.kind) {
      case 'absent':
        return { kind: 'absent' }
      case 'unsupported':
        return { kind: 'unavailable', reason: 'unsupported', mime: preview.mime, size: preview.size }
      case 'bytes':
        return { kind: 'ok', url: preview.url, mime: preview.mime, size: preview.size }
    }
  }
  const ticket = await client.request(
    'files.read_bytes',
    { path: source.path },
    { owner: { project_id: source.projectId }, ...(signal ? { signal } : {}) },
  )
  if (ticket.kind !== 'ok') {
    if (ticket.kind === 'error' && ticket.error.code === 'NOT_FOUND') return { kind: 'absent' }
    return { kind: 'unavailable', reason: 'failed' }
  }
  return { kind: 'ok', url: ticket.result.url, mime: ticket.result.mime, size: ticket.result.size }
}
