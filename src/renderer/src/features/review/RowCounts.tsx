import { useEffect, useState } from 'react'
import { countsOf, type DocumentCounts } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { useClient } from '../../ui/client-context'
import { countsLabel, countsText } from '../../ui/document-diff'
import { isDocumentRow } from './document-rows'
import type { ReviewFile } from './use-review'

/**
 * The stats column of a Review row. A document counts what changed inside it (paragraphs, cells,
 * slides, notes), never lines. The engine fills `document_counts` within a per-page budget; a
 * document row it ran out of time for asks `review.document` itself — the engine caches the diff
 * by blob pair, so opening the row later costs nothing more — and keeps the line stats only when
 * the document cannot be read inside.
 */
export function RowCounts(props: {
  row: ReviewFile
  snapshotId: string
  owner: { project_id: string; session_id?: string }
}) {
  const { t } = useI18n()
  const client = useClient()
  const { row, snapshotId, owner } = props
  const [fetched, setFetched] = useState<DocumentCounts | null>(null)
  const needsFetch = !row.document_counts && isDocumentRow(row) && row.operation !== 'rename'
  useEffect(() => {
    if (!needsFetch) return
    let live = true
    void client.request('review.document', { snapshot_id: snapshotId, path: row.path }, { owner }).then((outcome) => {
      if (live && outcome.kind === 'ok' && outcome.result.kind === 'diff') setFetched(countsOf(outcome.result.diff))
    })
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the owner object is rebuilt each render
  }, [client, needsFetch, snapshotId, row.path, owner.project_id, owner.session_id])
  const counts = row.document_counts ?? fetched
  if (counts) {
    return (
      <span className="review-file-doc-counts" data-testid="review-doc-counts" title={countsLabel(counts, t)}>
        <span aria-hidden="true">{countsText(counts, t)}</span>
        <span className="visually-hidden">{countsLabel(counts, t)}</span>
      </span>
    )
  }
  return (
    <span className="review-file-stats">
      <span className="stat-added">+{row.added ?? '—'}</span>
      <span className="stat-removed">−{row.removed ?? '—'}</span>
    </span>
  )
}
