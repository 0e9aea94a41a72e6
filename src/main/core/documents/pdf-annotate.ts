import type { DocumentEditOutcome, PdfAnnotationEdit } from '../../../shared/office/document-edits'

/** Applies `pdf_annotate`'s edits, saved as the reader saves (an incremental update); all or nothing (issue 26). */
export async function annotatePdf(_bytes: Uint8Array, _edits: readonly PdfAnnotationEdit[]): Promise<DocumentEditOutcome> {
  throw new Error('not implemented yet (issue 26)')
}
