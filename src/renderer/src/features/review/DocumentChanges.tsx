import { useEffect, useState } from 'react'
import type { ProtocolError, ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { DocumentDiffView } from '../../ui/document-diff'
import { ErrorLine } from '../../ui/ErrorLine'
import { protocolErrorMessage } from '../../ui/outcome-message'
import { useI18n } from '../../i18n'
import { BinaryPreview } from './BinaryPreview'
import { useOfficeVersions } from './office-versions'
import { OfficePages, SlidePictures } from './OfficePictures'
import type { ReviewFile } from './use-review'

/** Rows whose pictures are LibreOffice's pages (and a deck's slides), not the PDF reader's. */
const OFFICE_PATH = /\.(docx|xlsx|pptx)$/i

type State =
  | { kind: 'loading' }
  | { kind: 'error'; error: ProtocolError }
  | { kind: 'ready'; outcome: ResultOf<'review.document'> }

/** PDFs may have many changed pages; the page picker lists this many (the rest by "Pages"). */
const MAX_PAGE_BUTTONS = 50

/**
 * A document row of Review: what changed inside it (paragraphs, cells, slides, annotations) and,
 * behind the "Pages" toggle, the rendered before/after. A document the engine cannot read inside
 * (encrypted, damaged, too large, too slow) says so and shows its pages.
 */
export function DocumentChanges(props: {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  file: ReviewFile
  onStale: () => void
  /** Opens the file in its tab at a page (PDF annotations); absent for a deleted file. */
  onShowPage?: ((page: number) => void) | undefined
}) {
  const client = useClient()
  const { t } = useI18n()
  const { owner, snapshotId, file, onStale } = props
  const [state, setState] = useState<State>({ kind: 'loading' })
  const [view, setView] = useState<'changes' | 'pages'>('changes')
  const [page, setPage] = useState<number | null>(null)
  const [pagesAttempt, setPagesAttempt] = useState(0)

  useEffect(() => {
    let live = true
    void client.request('review.document', { snapshot_id: snapshotId, path: file.path }, { owner }).then((outcome) => {
      if (!live) return
      if (outcome.kind === 'ok') setState({ kind: 'ready', outcome: outcome.result })
      else if (outcome.kind === 'error') {
        if (outcome.error.code === 'STALE_SNAPSHOT') onStale()
        setState({ kind: 'error', error: outcome.error })
      }
    })
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, snapshotId, file.path, owner.project_id, owner.session_id, onStale])

  const office = OFFICE_PATH.test(file.path)
  const deck = state.kind === 'ready' && state.outcome.kind === 'diff' && state.outcome.diff.kind === 'pptx'
  // Both versions (and their LibreOffice pages) are fetched only where pictures are shown: a deck's
  // changed slides, or "Pages"; a DOCX's redline alone starts no conversion.
  const unreadable = state.kind === 'error' || (state.kind === 'ready' && state.outcome.kind === 'unreadable')
  const versions = useOfficeVersions(
    owner,
    snapshotId,
    file.path,
    office && (deck || unreadable || view === 'pages'),
    pagesAttempt,
  )
  const pages = office ? (
    <OfficePages
      versions={versions}
      path={file.path}
      projectId={owner.project_id}
      onEngineInstalled={() => setPagesAttempt((n) => n + 1)}
    />
  ) : (
    <BinaryPreview owner={owner} snapshotId={snapshotId} path={file.path} />
  )
  if (state.kind === 'loading')
    return (
      <p className="review-note" role="status" data-testid="document-loading">
        {t('review.docLoading')}
      </p>
    )
  if (state.kind === 'error')
    return (
      <>
        <ErrorLine className="review-note" message={protocolErrorMessage(state.error, t)} />
        {pages}
      </>
    )
  const { outcome } = state
  if (outcome.kind === 'unreadable')
    return (
      <>
        <p className="review-note" role="note" data-testid="document-unreadable" data-reason={outcome.reason}>
          {t(`review.unreadable.${outcome.reason}`)}
        </p>
        {pages}
      </>
    )
  const { diff } = outcome
  const changedPages = diff.kind === 'pdf' ? diff.pages_changed.slice(0, MAX_PAGE_BUTTONS) : []
  const shownPage = page ?? changedPages[0] ?? null
  return (
    <div className="review-document">
      <div className="review-compare-bar" role="radiogroup" aria-label={t('review.docView')}>
        {(['changes', 'pages'] as const).map((id) => (
          <button
            key={id}
            type="button"
            role="radio"
            aria-checked={view === id}
            className="review-compare-mode"
            data-testid={`review-doc-${id}`}
            onClick={() => setView(id)}
          >
            {t(id === 'changes' ? 'review.docChanges' : 'review.docPages')}
          </button>
        ))}
      </div>
      {view === 'changes' ? (
        <>
          <DocumentDiffView
            diff={diff}
            path={file.path}
            onShowPage={props.onShowPage}
            slidePictures={
              diff.kind === 'pptx' ? (slide) => <SlidePictures slide={slide} versions={versions} /> : undefined
            }
          />
          {shownPage !== null && (
            // The pages whose drawing changed, before and after side by side at the same page.
            <div className="review-document-pages" data-testid="review-changed-pages">
              <div className="review-page-picker" role="group" aria-label={t('review.changedPages')}>
                {changedPages.map((number) => (
                  <button
                    key={number}
                    type="button"
                    aria-pressed={number === shownPage}
                    onClick={() => setPage(number)}
                  >
                    {t('review.pageButton', { page: number })}
                  </button>
                ))}
              </div>
              <BinaryPreview key={shownPage} owner={owner} snapshotId={snapshotId} path={file.path} page={shownPage} />
            </div>
          )}
        </>
      ) : (
        pages
      )}
    </div>
  )
}
