import { useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { PdfFirstPage } from './PdfFirstPage'

type Preview = ResultOf<'review.preview'>

/** Before and after of a binary file, as images where the format is one the app shows safely. */
export function BinaryPreview(props: {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  path: string
}) {
  const client = useClient()
  const { t } = useI18n()
  const [sides, setSides] = useState<{ before: Preview | null; after: Preview | null }>({ before: null, after: null })
  const { owner, snapshotId, path } = props
  useEffect(() => {
    for (const side of ['before', 'after'] as const) {
      void client.request('review.preview', { snapshot_id: snapshotId, path, side }, { owner }).then((outcome) => {
        if (outcome.kind === 'ok') setSides((current) => ({ ...current, [side]: outcome.result }))
      })
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, snapshotId, path, owner.project_id, owner.session_id])
  const view = (side: 'before' | 'after', preview: Preview | null) => (
    <figure className="review-preview-side" data-testid={`review-preview-${side}`}>
      <figcaption>{t(`review.${side}`)}</figcaption>
      {preview === null ? (
        <p className="review-note">{t('review.loading')}</p>
      ) : preview.kind === 'image' ? (
        <img alt={`${path} (${t(`review.${side}`)})`} src={`data:${preview.mime};base64,${preview.content_base64}`} />
      ) : preview.kind === 'pdf' ? (
        <PdfFirstPage base64={preview.content_base64} label={`${path} (${t(`review.${side}`)})`} />
      ) : preview.kind === 'absent' ? (
        <p className="review-note">{t('review.absent')}</p>
      ) : (
        <p className="review-note">
          {preview.mime} · {t('review.bytes', { size: preview.size })}
        </p>
      )}
    </figure>
  )
  return (
    <div className="review-preview">
      {view('before', sides.before)}
      {view('after', sides.after)}
    </div>
  )
}
