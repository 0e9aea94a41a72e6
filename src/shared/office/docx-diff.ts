import type { DocxDiff } from '../protocol/documents'

/** What changed inside a DOCX between two versions; null is an absent side (issue 26). */
export async function diffDocx(_before: Uint8Array | null, _after: Uint8Array | null): Promise<DocxDiff> {
  throw new Error('not implemented yet (issue 26)')
}
