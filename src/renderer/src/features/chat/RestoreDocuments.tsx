import { useId, useState } from 'react'
import { useI18n } from '../../i18n'
import { countsLabel, countsText, DocumentDiffView } from '../../ui/document-diff'
import type { RestorePlan } from './types'
import './restore-documents.css'

type PlanDocument = NonNullable<RestorePlan['documents']>[number]

/** A plan's documents by path, for the rows of its file list. */
export function documentsByPath(plan: Pick<RestorePlan, 'documents'>): ReadonlyMap<string, PlanDocument> {
  return new Map((plan.documents ?? []).map((document) => [document.path, document]))
}

/**
 * A document row's counts (`+3 ¶ −1 ¶`, `12 cells`), as Review's file list shows them, with the
 * same words for assistive technology. Nothing when the engine had no counts in time.
 */
export function RestoreDocumentCounts(props: { document: PlanDocument | undefined }) {
  const { t } = useI18n()
  const counts = props.document?.counts
  if (!counts) return null
  return (
    <span className="restore-doc-counts" data-testid="restore-doc-counts" aria-label={countsLabel(counts, t)}>
      {countsText(counts, t)}
    </span>
  )
}

/**
 * Issue 26: what a restore changes inside each DOCX, XLSX, PPTX or PDF it writes, from the bytes
 * there now to the bytes it puts back — each behind its own "What changes inside …" disclosure,
 * drawn with the compact view the approval card uses.
 */
export function RestoreDocuments(props: { plan: Pick<RestorePlan, 'documents'> }) {
  const { t } = useI18n()
  const documents = props.plan.documents ?? []
  if (documents.length === 0) return null
  // Decision: a preview with one document opens it (the common turn card: one report undone — the
  // person confirming should see the words without a further click); with several, each starts
  // closed so the preview stays short and the confirm button stays in view.
  const openFirst = documents.length === 1
  return (
    <section className="restore-documents" aria-label={t('restore.documents')} data-testid="restore-documents">
      {documents.map((document) => (
        <RestoreDocument key={document.path} document={document} initiallyOpen={openFirst} />
      ))}
    </section>
  )
}

function RestoreDocument(props: { document: PlanDocument; initiallyOpen: boolean }) {
  const { t } = useI18n()
  const { document } = props
  const [open, setOpen] = useState(props.initiallyOpen)
  const body = useId()
  if (document.diff === null) {
    return (
      <p className="restore-doc-note" role="note" data-testid="restore-document" data-path={document.path}>
        {document.counts !== null
          ? t('restore.documentTooLarge', { path: document.path })
          : t('restore.documentUnavailable', { path: document.path })}
      </p>
    )
  }
  return (
    <div className="restore-document" data-testid="restore-document" data-path={document.path}>
      <button
        type="button"
        className="restore-doc-toggle"
        aria-expanded={open}
        aria-controls={body}
        onClick={() => setOpen((was) => !was)}
        data-testid="restore-document-toggle"
      >
        <span aria-hidden="true" className="restore-doc-chevron">
          {open ? '▾' : '▸'}
        </span>
        {t('restore.documentInside', { path: document.path })}
      </button>
      {/* The counts are on the file's row above and in the diff's own summary line. */}
      <div id={body} hidden={!open}>
        {open && <DocumentDiffView diff={document.diff} path={document.path} compact />}
      </div>
    </div>
  )
}
