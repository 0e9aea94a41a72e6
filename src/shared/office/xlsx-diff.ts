import type { XlsxDiff } from '../protocol/documents'

/** What changed inside a XLSX between two versions; null is an absent side (issue 26). */
export async function diffXlsx(_before: Uint8Array | null, _after: Uint8Array | null): Promise<XlsxDiff> {
  throw new Error('not implemented yet (issue 26)')
}
