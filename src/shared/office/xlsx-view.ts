import type { DocumentReadOutcome, DocumentReadRequest } from './document-edits'

/** The text view `read` gives the model for a XLSX (issue 26), with the anchors `office_edit` takes. */
export async function readXlsxView(_bytes: Uint8Array, _request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  throw new Error('not implemented yet (issue 26)')
}
