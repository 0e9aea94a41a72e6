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
 * bounded byte transfer (`files.read_bytes` → a same-origin ticket URL fetched as raw bytes),
 * never as base64 inside JSON frames; Review's before/after the same way (`review.preview` answers a
 * URL for the snapshot's pinned blob).
 */
export async function loadBytes(
  client: RequestClient,
  source: ByteSource,
  signal?: AbortSignal,
): Promise<BytesOutcome> {
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
      // An Office version's pictures need Review's Office view (its bytes are no picture by themselves).
      case 'office':
        return { kind: 'unavailable', reason: 'unsupported', mime: preview.mime, size: preview.size }
      case 'image':
      case 'media':
        return fetchBytes(preview.url, preview.mime, signal)
      case 'pdf':
        return fetchBytes(preview.url, 'application/pdf', signal)
    }
  }
  return projectFileBytes(client, source, signal)
}

/**
 * `files.read_bytes` hands out a short-lived same-origin URL for exactly the file's current
 * revision; a 409 means it changed between the ticket and the fetch, so one fresh ticket is tried.
 */
async function projectFileBytes(
  client: RequestClient,
  source: Extract<ByteSource, { kind: 'project-file' }>,
  signal?: AbortSignal,
): Promise<BytesOutcome> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const ticket = await client.request(
      'files.read_bytes',
      { path: source.path },
      { owner: { project_id: source.projectId }, ...(signal ? { signal } : {}) },
    )
    if (ticket.kind !== 'ok') {
      if (ticket.kind === 'error' && ticket.error.code === 'NOT_FOUND') return { kind: 'absent' }
      return { kind: 'unavailable', reason: 'failed' }
    }
    let response: Response
    try {
      response = await fetch(ticket.result.url, { credentials: 'same-origin', ...(signal ? { signal } : {}) })
    } catch {
      return { kind: 'unavailable', reason: 'failed' }
    }
    if (response.status === 409) continue
    if (!response.ok)
      return { kind: 'unavailable', reason: 'failed', mime: ticket.result.mime, size: ticket.result.size }
    return { kind: 'ok', bytes: new Uint8Array(await response.arrayBuffer()), mime: ticket.result.mime }
  }
  return { kind: 'unavailable', reason: 'failed' }
}

/** The bytes behind a byte-transfer URL (same origin, authorised by the page's own credentials). */
export async function fetchBytes(url: string, mime: string, signal?: AbortSignal): Promise<BytesOutcome> {
  try {
    const response = await fetch(url, { credentials: 'same-origin', ...(signal ? { signal } : {}) })
    if (!response.ok) return { kind: 'unavailable', reason: 'failed' }
    return { kind: 'ok', bytes: new Uint8Array(await response.arrayBuffer()), mime }
  } catch {
    return { kind: 'unavailable', reason: 'failed' }
  }
}
