import type { DocumentReadOutcome, DocumentReadRequest } from '../../../shared/office/document-edits'

/** The text view `read` gives the model for a PDF: pages' text and existing annotations with ids (issue 26). */
export async function readPdfView(_bytes: Uint8Array, _request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  throw new Error('not implemented yet (issue 26)')
}
