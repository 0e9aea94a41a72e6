import { useEffect, useMemo, useState } from 'react'
import { useClient } from '../../ui/client-context'
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
  const { before, after } = sides
  const comparable =
    before?.kind === 'ok' && after?.kind === 'ok' && OVERLAYABLE.test(before.mime) && OVERLAYABLE.test(after.mime)
  const [mode, setMode] = useState<'side' | 'swipe' | 'onion'>('side')
  return (
    <div className="review-preview-frame">
      {comparable && (
        <div className="review-compare-bar" role="radiogroup" aria-label={t('compare.mode')}>
          {(['side', 'swipe', 'onion'] as const).map((id) => (
            <button
              key={id}
              type="button"
              role="radio"
              aria-checked={mode === id}
              className="review-compare-mode"
              onClick={() => setMode(id)}
            >
              {t(id === 'side' ? 'compare.sideBySide' : id === 'swipe' ? 'compare.swipe' : 'compare.onion')}
            </button>
          ))}
        </div>
      )}
      {comparable && mode !== 'side' && before.kind === 'ok' && after.kind === 'ok' ? (
        <Overlay before={before} after={after} mode={mode} path={path} />
      ) : (
        <div className="review-preview">
          {view('before', before)}
          {view('after', after)}
        </div>
      )}
    </div>
  )
}

/** Formats both sides of which can be laid over each other as plain `<img>`s. */
const OVERLAYABLE = /^image\/(png|jpeg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon|svg\+xml)$/

/**
 * Before and after stacked on one spot: "swipe" shows the after image left of a movable line,
 * "onion skin" fades the after image over the before one. Both are `<img>`s from blob URLs (an
 * SVG's scripts never run there).
 */
function Overlay(props: {
  before: Extract<BytesOutcome, { kind: 'ok' }>
  after: Extract<BytesOutcome, { kind: 'ok' }>
  mode: 'swipe' | 'onion'
  path: string
}) {
  const { t } = useI18n()
  const [position, setPosition] = useState(50)
  const { before, after } = props
  const urls = useMemo(
    () => ({
      before: URL.createObjectURL(new Blob([before.bytes as Uint8Array<ArrayBuffer>], { type: before.mime })),
      after: URL.createObjectURL(new Blob([after.bytes as Uint8Array<ArrayBuffer>], { type: after.mime })),
    }),
    [before, after],
  )
  useEffect(
    () => () => {
      URL.revokeObjectURL(urls.before)
      URL.revokeObjectURL(urls.after)
    },
    [urls],
  )
  return (
    <div className="review-overlay" data-testid="review-overlay" data-mode={props.mode}>
      <div className="review-overlay-stack">
        <img src={urls.before} alt={`${props.path} (${t('review.before')})`} />
        <img
          className="review-overlay-after"
          src={urls.after}
          alt={`${props.path} (${t('review.after')})`}
          style={props.mode === 'swipe' ? { clipPath: `inset(0 ${100 - position}% 0 0)` } : { opacity: position / 100 }}
        />
      </div>
      <input
        type="range"
        min={0}
        max={100}
        value={position}
        aria-label={t('compare.position')}
        onChange={(event) => setPosition(Number(event.target.value))}
      />
    </div>
  )
}
