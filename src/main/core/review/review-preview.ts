import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { sniffMime, type ByteTransfers } from '../files'
import type { BlobStore } from '../store'
import type { ReviewPaging } from './review-files'

/** The document window's read limit: what it can show, Review can show. */
const MAX_PREVIEW_BYTES = 64 * 1024 * 1024

/**
 * One side of a reviewed file as a byte-transfer URL for the pinned blob: the renderer shows it
 * with the same read-only adapter a tab would use (never inline SVG or HTML; the byte route's
 * own CSP sandboxes anything opened directly).
 */
export async function reviewPreview(
  paging: ReviewPaging,
  blobs: BlobStore,
  bytes: Pick<ByteTransfers, 'issueBlob'>,
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
  const content = await blobs.read(ref)
  if (content.kind === 'error') {
    return fail('UNAVAILABLE', `The recorded content of "${row.path}" is no longer kept.`, { reason: 'expired' })
  }
  const mime = sniffMime(row.path, content.result.subarray(0, 4096))
  const size = content.result.length
  if (size > MAX_PREVIEW_BYTES) return ok({ kind: 'unsupported' as const, mime, size })
  return ok({ kind: 'bytes' as const, url: bytes.issueBlob(ref, size, mime), mime, size })
}
