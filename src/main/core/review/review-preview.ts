import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { sniffMime } from '../files'
import type { BlobStore } from '../store'
import type { ReviewPaging } from './review-files'

/**
 * Images the renderer's adapters show read-only: bitmaps and SVG as `<img>` from a blob (an SVG's
 * scripts never run, nothing external loads), PSD and TIFF decoded in a worker.
 */
const PREVIEWABLE = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'image/avif',
  'image/svg+xml',
  'image/vnd.adobe.photoshop',
  'image/tiff',
])
/** The read limit: bigger recorded contents are listed with their size only. */
const MAX_PREVIEW_BYTES = 64 * 1024 * 1024

/** Issues a byte-transfer URL for a recorded blob (the files module's `bytes.issueBlob`). */
export type IssueBlobUrl = (digest: string, size: number, mime: string) => string

export async function reviewPreview(
  paging: ReviewPaging,
  blobs: BlobStore,
  projectId: string,
  payload: { snapshot_id: string; path: string; side: 'before' | 'after' },
  issueBlob: IssueBlobUrl,
): Promise<Outcome<ResultOf<'review.preview'>>> {
  const snapshot = paging.snapshots.get(payload.snapshot_id)
  if (!snapshot || !snapshot.basis.startsWith(`${projectId}|`)) {
    return fail('STALE_SNAPSHOT', 'The review list changed; reload it before opening this preview.', {
      reason: 'evicted',
    })
  }
  const row = snapshot.items.find((item) => item.path === payload.path)
  if (!row)
    return fail('NOT_FOUND', `"${payload.path}" is not part of this review.`, {
      path: payload.path,
      reason: 'not-in-review',
    })
  const ref = payload.side === 'before' ? row.before_blob : row.after_blob
  if (ref === null) return ok({ kind: 'absent' as const })
  const bytes = await blobs.read(ref)
  if (bytes.kind === 'error') {
    return fail('UNAVAILABLE', `The recorded content of "${row.path}" is no longer kept.`, {
      path: row.path,
      reason: 'expired',
    })
  }
  const mime = sniffMime(row.path, bytes.result)
  const size = bytes.result.length
  if (mime === 'application/pdf' && size <= MAX_PREVIEW_BYTES) {
    return ok({ kind: 'pdf' as const, url: issueBlob(ref, size, mime), size })
  }
  if (/^(audio|video)\//.test(mime) && size <= MAX_PREVIEW_BYTES) {
    return ok({ kind: 'media' as const, mime, url: issueBlob(ref, size, mime), size })
  }
  if (!PREVIEWABLE.has(mime) || bytes.result.length > MAX_PREVIEW_BYTES) {
    return ok({ kind: 'unsupported' as const, mime, size: bytes.result.length })
  }
  return ok({ kind: 'image' as const, mime, url: issueBlob(ref, size, mime), size })
}
