import type { DocumentCounts, DocumentDiff } from './documents'

/**
 * The one-line count of a document diff, in its own unit. Kept apart from the schemas: the
 * renderer calls it, and importing `documents.ts` would bring zod (and its `new Function` probe,
 * a CSP violation report) into the renderer's chunks.
 */
export function countsOf(diff: DocumentDiff): DocumentCounts {
  switch (diff.kind) {
    case 'docx':
      return { unit: 'paragraph', ...diff.counts }
    case 'xlsx':
      return { unit: 'cell', added: 0, removed: 0, changed: diff.counts.cells }
    case 'pptx':
      return {
        unit: 'slide',
        added: diff.counts.slides_added,
        removed: diff.counts.slides_removed,
        changed: diff.counts.slides_changed + diff.counts.slides_moved,
      }
    case 'pdf':
      return {
        unit: 'annotation',
        added: diff.counts.added,
        removed: diff.counts.removed,
        changed: diff.counts.changed,
      }
  }
}
