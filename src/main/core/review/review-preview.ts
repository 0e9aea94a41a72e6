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

/**
 * The Office module's PDF of a recorded version (native LibreOffice, else the pack; cached by
 * digest), or why there is none. Absent where no Office module runs (the answer says `no-engine`).
 */
export type RecordedPages = (path: string, bytes: Uint8Array) => Promise<Outcome<ResultOf<'office.preview'>>>

type OfficePreviewFormat = Extract<ResultOf<'review.preview'>, { kind: 'office' }>['format']
type OfficePages = NonNullable<Extract<ResultOf<'review.preview'>, { kind: 'office' }>['pages']>

/** Zip-packaged documents by the mime their extension gives (`sniffMime` names a zip by its name). */
const OFFICE_FORMATS: ReadonlyMap<string, OfficePreviewFormat> = new Map([
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
  ['application/vnd.oasis.opendocument.text', 'odt'],
  ['application/vnd.oasis.opendocument.spreadsheet', 'ods'],
  ['application/vnd.oasis.opendocument.presentation', 'odp'],
])

const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04

export async function reviewPreview(
  paging: ReviewPaging,
  blobs: BlobStore,
  projectId: string,
  payload: { snapshot_id: string; path: string; side: 'before' | 'after'; pages?: boolean | undefined },
  issueBlob: IssueBlobUrl,
  recordedPages?: RecordedPages,
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
  const format = OFFICE_FORMATS.get(mime)
  if (format !== undefined && isZip(bytes.result) && size <= MAX_PREVIEW_BYTES) {
    const url = issueBlob(ref, size, mime)
    if (payload.pages !== true) return ok({ kind: 'office' as const, format, mime, url, size })
    return ok({
      kind: 'office' as const,
      format,
      mime,
      url,
      size,
      pages: await pagesOf(row.path, bytes.result, recordedPages),
    })
  }
  if (/^(audio|video)\//.test(mime) && size <= MAX_PREVIEW_BYTES) {
    return ok({ kind: 'media' as const, mime, url: issueBlob(ref, size, mime), size })
  }
  if (!PREVIEWABLE.has(mime) || bytes.result.length > MAX_PREVIEW_BYTES) {
    return ok({ kind: 'unsupported' as const, mime, size: bytes.result.length })
  }
  return ok({ kind: 'image' as const, mime, url: issueBlob(ref, size, mime), size })
}

/** A failed conversion is a property of this version's pages, not a failure of the preview. */
async function pagesOf(path: string, recorded: Uint8Array, recordedPages?: RecordedPages): Promise<OfficePages> {
  if (!recordedPages) {
    return {
      kind: 'unavailable',
      reason: 'no-engine',
      message: 'A page-faithful preview needs LibreOffice, which is not available here.',
    }
  }
  const pages = await recordedPages(path, recorded)
  if (pages.kind === 'error') {
    const tooLarge = pages.error.code === 'TOO_LARGE'
    return {
      kind: 'unavailable',
      reason: tooLarge ? 'too-large' : 'conversion-failed',
      message: pages.error.message,
    }
  }
  const answer = pages.result
  if (answer.kind === 'unavailable') return { kind: 'unavailable', reason: answer.reason, message: answer.message }
  return { kind: 'pdf', url: answer.pdf.url, size: answer.pdf.size, engine: answer.engine }
}
