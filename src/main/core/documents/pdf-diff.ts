import type { PdfDiff } from '../../../shared/protocol/documents'

/** Annotations added/removed/changed and pages whose content changed between two PDFs; null is an absent side (issue 26). */
export async function diffPdf(_before: Uint8Array | null, _after: Uint8Array | null): Promise<PdfDiff> {
  throw new Error('not implemented yet (issue 26)')
}
