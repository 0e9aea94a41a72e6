import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { sniffMime } from '../files'
import type { BlobStore } from '../store'
import type { ReviewPaging } from './review-files'

/** Images the renderer shows as `<img>` (never SVG: active content stays out of the app window). */
const PREVIEWABLE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'])
const MAX_PREVIEW_BYTES = 16 * 1024 * 1024

export async function reviewPreview(
  paging: ReviewPaging,
  blobs: BlobStore,
  projectId: string,
  payload: { snapshot_id: string; path: string; side: 'before' | 'after' },
): Promise<Outcome<ResultOf<'review.preview'>>> {
  const snapshot = paging.snapshots.get(payload.snapshot_id)
  if (!snapshot || !snapshot.basis.startsWith(`${projectId}|`)) {
    return fail('STALE_SNAPSHOT', 'The review list changed; reload it before opening this preview.', {
      reason: 'evicted',
    })
  }
  const row = snapshot.items.find((item) => item.path === payload.path)
  if (!row) return fail('NOT_FOUND', `"${payload.path}" is not part of this review.`, { path: payload.path })
  const ref = payload.side === 'before' ? row.before_blob : row.after_blob
  if (ref === null) return ok({ kind: 'absent' as const })
  const bytes = await blobs.read(ref)
  if (bytes.kind === 'error') {
    return fail('UNAVAILABLE', `The recorded content of "${row.path}" is no longer kept.`, { reason: 'expired' })
  }
  const mime = sniffMime(row.path, bytes.result)
  if (mime === 'application/pdf' && bytes.result.length <= MAX_PREVIEW_BYTES) {
    return ok({ kind: 'pdf' as const, content_base64: bytes.result.toString('base64'), size: bytes.result.length })
  }
  if (!PREVIEWABLE.has(mime) || bytes.result.length > MAX_PREVIEW_BYTES) {
    return ok({ kind: 'unsupported' as const, mime, size: bytes.result.length })
  }
  return ok({
    kind: 'image' as const,
    mime,
    content_base64: bytes.result.toString('base64'),
    size: bytes.result.length,
  })
}
