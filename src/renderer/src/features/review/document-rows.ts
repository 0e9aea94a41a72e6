import type { ReviewFile } from './use-review'

/**
 * Files whose inside the engine compares (issue 26): by name, as the engine decides (a text file
 * renamed to .docx gets `unreadable: not-a-document` and its pages, never a wrong diff), or any
 * row the engine counted inside (a format it learns later needs no change here). Apart from
 * `DocumentChanges` so the rail can ask without loading the document views.
 */
const DOCUMENT_PATH = /\.(docx|xlsx|pptx|pdf)$/i

export function isDocumentRow(file: Pick<ReviewFile, 'path' | 'document_counts'>): boolean {
  return DOCUMENT_PATH.test(file.path) || (file.document_counts ?? null) !== null
}
