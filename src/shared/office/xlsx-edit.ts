import type { DocumentEdit, DocumentEditOutcome } from './document-edits'

/** Applies `office_edit`'s edits to a XLSX: all or nothing, untouched parts byte-identical (issue 26). */
export async function editXlsx(_bytes: Uint8Array, _edits: readonly DocumentEdit[]): Promise<DocumentEditOutcome> {
  throw new Error('not implemented yet (issue 26)')
}
