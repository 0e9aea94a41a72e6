import { lazy, Suspense, useCallback, useEffect, useState } from 'react'
import { REVIEW_CONTEXT_MAX, type ProtocolError, type ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { protocolErrorMessage } from '../../ui/outcome-message'
import { DiffView, type LineAnchor } from '../../ui/diff/DiffView'
import type { ReviewFile } from './use-review'
import { ErrorLine } from '../../ui/ErrorLine'
import { isDocumentRow } from './document-rows'

// Pictures and documents are the rarer rows: their views (the difference mask, the redlines, the
// slide pictures) load with the first one shown, keeping the first-screen script in budget.
const BinaryPreview = lazy(() => import('./BinaryPreview').then((module) => ({ default: module.BinaryPreview })))
const DocumentChanges = lazy(() => import('./DocumentChanges').then((module) => ({ default: module.DocumentChanges })))

type DiffPage = ResultOf<'review.diff'>

const VISUAL = /\.(pdf|png|jpe?g|gif|webp|bmp|ico|avif|svg|psd|tiff?|wav|mp3|ogg|oga|flac|m4a|webm|mp4|m4v|mov|ogv)$/i
/** "More context" steps: the server's default, then wider, then the whole file. */
const CONTEXT_STEPS = [3, 12, 50, REVIEW_CONTEXT_MAX] as const

type State =
  | { kind: 'loading' }
  | { kind: 'error'; error: ProtocolError; stale: boolean }
  | { kind: 'ready'; page: Omit<DiffPage, 'hunks' | 'next_cursor'>; hunks: DiffPage['hunks']; next: string | null }

type DiffPaneProps = {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  file: ReviewFile
  layout: 'unified' | 'split'
  onComment: (anchor: LineAnchor) => void
  onStale: () => void
  /** Opens the file in its tab at a page (a PDF annotation's "Show in reader"). */
  onShowPage?: ((page: number) => void) | undefined
}

/**
 * One file of Review: a document (DOCX, XLSX, PPTX, PDF) shows what changed inside it (issue 26);
 * any other file its bounded text diff or, for binaries, its before/after preview.
 */
export function DiffPane(props: DiffPaneProps) {
  if (isDocumentRow(props.file))
    return (
      <Suspense fallback={null}>
        <DocumentChanges
          owner={props.owner}
          snapshotId={props.snapshotId}
          file={props.file}
          onStale={props.onStale}
          onShowPage={props.onShowPage}
        />
      </Suspense>
    )
  return <TextDiffPane {...props} />
}

/** One file's bounded diff (spec 07): pages from the server, unified or side by side, "load more". */
function TextDiffPane(props: DiffPaneProps) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<State>({ kind: 'loading' })
  const [contextStep, setContextStep] = useState(0)
  const context = CONTEXT_STEPS[contextStep] ?? 3
  const { owner, snapshotId, file, onStale } = props

  const fetchPage = useCallback(
    (cursor: string | null, append: boolean) =>
      void client
        .request(
          'review.diff',
          { snapshot_id: snapshotId, path: file.path, context, ...(cursor ? { cursor } : {}) },
          { owner },
        )
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
            setState({ kind: 'error', error: outcome.error, stale: outcome.error.code === 'STALE_SNAPSHOT' })
          }
        }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, snapshotId, file.path, owner.project_id, owner.session_id, onStale, context],
  )
  useEffect(() => fetchPage(null, false), [fetchPage])

  if (state.kind === 'loading') return <p className="review-note">{t('review.loading')}</p>
  if (state.kind === 'error')
    return <ErrorLine className="review-note" message={protocolErrorMessage(state.error, t)} />
  // PDFs and images are compared as pictures: their bytes (PDF internals may even be "text") say
  // nothing to a reviewer.
  if (state.page.diff_state === 'binary' || VISUAL.test(file.path)) {
    return (
      <Suspense fallback={null}>
        <BinaryPreview owner={owner} snapshotId={snapshotId} path={file.path} />
      </Suspense>
    )
  }
  if (state.page.diff_state !== 'available') {
    return (
      <p className="review-note" data-testid="review-diff-state">
        {t(`review.diffState.${state.page.diff_state}`)}{' '}
        {t('review.sizes', { before: state.page.before_size ?? 0, after: state.page.after_size ?? 0 })}
      </p>
    )
  }
  return (
    <DiffView
      testId="review-diff"
      hunks={state.hunks}
      layout={props.layout}
      onComment={props.onComment}
      context={{
        whole: context === REVIEW_CONTEXT_MAX,
        onMore: () => setContextStep((step) => Math.min(CONTEXT_STEPS.length - 1, step + 1)),
        onWhole: () => setContextStep(CONTEXT_STEPS.length - 1),
      }}
      footer={
        state.next !== null && (
          <button
            type="button"
            className="diff-more"
            data-testid="review-diff-more"
            onClick={() => fetchPage(state.next, true)}
          >
            {t('review.loadMore')}
          </button>
        )
      }
    />
  )
}
