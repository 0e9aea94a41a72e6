import type { PptxDiff } from '../protocol/documents'

/** What changed inside a PPTX between two versions; null is an absent side (issue 26). */
export async function diffPptx(_before: Uint8Array | null, _after: Uint8Array | null): Promise<PptxDiff> {
  throw new Error('not implemented yet (issue 26)')
}
