import { useCallback, useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { BinaryPreview } from './BinaryPreview'
import type { ReviewFile } from './use-review'

type DiffPage = ResultOf<'review.diff'>

const VISUAL = /\.(pdf|png|jpe?g|gif|webp|bmp)$/i
type DiffLine = DiffPage['hunks'][number]['lines'][number]

export interface LineAnchor {
  readonly side: 'old' | 'new'
  readonly line: number
  readonly text: string
}

type State =
  | { kind: 'loading' }
  | { kind: 'error'; message: string; stale: boolean }
  | { kind: 'ready'; page: Omit<DiffPage, 'hunks' | 'next_cursor'>; hunks: DiffPage['hunks']; next: string | null }

/** One file's bounded diff (spec 07): pages from the server, unified or side by side, "load more". */
export function DiffPane(props: {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  file: ReviewFile
  layout: 'unified' | 'split'
  onComment: (anchor: LineAnchor) => void
  onStale: () => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<State>({ kind: 'loading' })
  const { owner, snapshotId, file, onStale } = props

  const fetchPage = useCallback(
    (cursor: string | null, append: boolean) =>
      void client
        .request('review.diff', { snapshot_id: snapshotId, path: file.path, ...(cursor ? { cursor } : {}) }, { owner })
        .then((outcome) => {
          if (outcome.kind === 'ok') {
            const { hunks, next_cursor, ...page } = outcome.result
            setState((current) => ({
              kind: 'ready',
              page,
              hunks: append && current.kind === 'ready' ? [...current.hunks, ...hunks] : hunks,
              next: next_cursor,
            }))
          } else if (outcome.kind === 'error') {
            if (outcome.error.code === 'STALE_SNAPSHOT') onStale()
            setState({ kind: 'error', message: outcome.error.message, stale: outcome.error.code === 'STALE_SNAPSHOT' })
          }
        }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, snapshotId, file.path, owner.project_id, owner.session_id, onStale],
  )
  useEffect(() => fetchPage(null, false), [fetchPage])

  if (state.kind === 'loading') return <p className="review-note">{t('review.loading')}</p>
  if (state.kind === 'error')
    return (
      <p className="review-note" role="alert">
        {state.message}
      </p>
    )
  // PDFs and images are compared as pictures: their bytes (PDF internals may even be "text") say
  // nothing to a reviewer.
  if (state.page.diff_state === 'binary' || VISUAL.test(file.path)) {
    return <BinaryPreview owner={owner} snapshotId={snapshotId} path={file.path} />
  }
  if (state.page.diff_state !== 'available') {
    return (
      <p className="review-note" data-testid="review-diff-state">
        {t(`review.diffState.${state.page.diff_state}`)}{' '}
        {t('review.sizes', {
          before: state.page.before_size ?? 0,
          after: state.page.after_size ?? 0,
        })}
      </p>
    )
  }
  const lineView = (line: DiffLine, key: string) => {
    const anchor: LineAnchor | null =
      line.new_line !== null
        ? { side: 'new', line: line.new_line, text: line.text }
        : line.old_line !== null
          ? { side: 'old', line: line.old_line, text: line.text }
          : null
    return (
      <div key={key} className={`review-line review-line-${line.kind}`}>
        <span className="review-gutter">{line.old_line ?? ''}</span>
        <span className="review-gutter">{line.new_line ?? ''}</span>
        <button
          type="button"
          className="review-line-text"
          data-testid="review-line"
          title={t('review.commentHint')}
          onClick={() => anchor && props.onComment(anchor)}
        >
          {line.kind === 'add' ? '+' : line.kind === 'del' ? '−' : ' '}
          {line.text}
        </button>
      </div>
    )
  }
  return (
    <div className="review-diff" data-testid="review-diff" data-layout={props.layout}>
      {state.hunks.map((hunk, h) => (
        <div key={h} className="review-hunk">
          <div className="review-hunk-head">
            @@ −{hunk.old_start} +{hunk.new_start} @@{hunk.continued ? ` ${t('review.continued')}` : ''}
          </div>
          {props.layout === 'unified' ? (
            hunk.lines.map((line, i) => lineView(line, `${h}:${i}`))
          ) : (
            <div className="review-split">
              <div>{hunk.lines.filter((l) => l.kind !== 'add').map((line, i) => lineView(line, `${h}:o${i}`))}</div>
              <div>{hunk.lines.filter((l) => l.kind !== 'del').map((line, i) => lineView(line, `${h}:n${i}`))}</div>
            </div>
          )}
        </div>
      ))}
      {state.next !== null && (
        <button type="button" data-testid="review-diff-more" onClick={() => fetchPage(state.next, true)}>
          {t('review.loadMore')}
        </button>
      )}
    </div>
  )
}
