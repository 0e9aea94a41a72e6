import { useEffect, useState } from 'react'
import { useClient } from '../../app/client-context'
import { DocumentHost, loadBytes, resolveAdapter, type BytesOutcome, type DocumentContent } from '../documents'
import { useI18n } from '../../i18n'

/**
 * Before and after of a binary file, each shown read-only by the same document adapter a tab
 * would use (image, PDF, …), from the bytes the review snapshot pinned.
 */
export function BinaryPreview(props: {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  path: string
}) {
  const client = useClient()
  const { t } = useI18n()
  const [sides, setSides] = useState<{ before: BytesOutcome | null; after: BytesOutcome | null }>({
    before: null,
    after: null,
  })
  const { owner, snapshotId, path } = props
  useEffect(() => {
    const controller = new AbortController()
    for (const side of ['before', 'after'] as const) {
      void loadBytes(client, { kind: 'review-side', owner, snapshotId, path, side }, controller.signal).then(
        (bytes) => {
          if (!controller.signal.aborted) setSides((current) => ({ ...current, [side]: bytes }))
        },
      )
    }
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, snapshotId, path, owner.project_id, owner.session_id])

  const view = (side: 'before' | 'after', bytes: BytesOutcome | null) => {
    const label = `${path} (${t(`review.${side}`)})`
    let body
    if (bytes === null) body = <p className="review-note">{t('review.loading')}</p>
    else if (bytes.kind === 'absent') body = <p className="review-note">{t('review.absent')}</p>
    else if (bytes.kind === 'unavailable')
      body = (
        <p className="review-note">
          {bytes.mime ?? ''} · {t('review.bytes', { size: bytes.size ?? 0 })}
        </p>
      )
    else {
      const entry = resolveAdapter({ kind: 'binary', mime: bytes.mime, path, size: bytes.bytes.length })
      const content: DocumentContent = { kind: 'bytes', bytes: bytes.bytes, mime: bytes.mime }
      body = entry ? (
        <DocumentHost entry={entry} content={content} revision={side} path={label} readOnly size="compact" />
      ) : (
        <p className="review-note">{bytes.mime}</p>
      )
    }
    return (
      <figure className="review-preview-side" data-testid={`review-preview-${side}`}>
        <figcaption>{t(`review.${side}`)}</figcaption>
        {body}
      </figure>
    )
  }
  return (
    <div className="review-preview">
      {view('before', sides.before)}
      {view('after', sides.after)}
    </div>
  )
}
