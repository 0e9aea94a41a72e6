import type { FileRead } from '../../../../../shared/protocol'
import type { RequestOutcome } from '../../../transport'
import type { DocumentAdapterEntry, DocumentContent } from '../adapters/types'
import type { BytesOutcome } from '../load-bytes'

/** Bytes a byte editor left unpublished on an earlier visit, found when the file was read. */
export interface ByteDraft {
  readonly bytes: Uint8Array
  /** The revision on disk when the file moved on since the draft was made (a conflict to resolve). */
  readonly conflictWith: string | null
}

/** What a file tab shows. */
export type DocumentView =
  | { readonly kind: 'loading' }
  | {
      readonly kind: 'shown'
      readonly file: FileRead
      readonly entry: DocumentAdapterEntry
      readonly content: DocumentContent
      /** Text shown in an editable adapter: typing autosaves (spec 08). */
      readonly editable: boolean
      /** A byte editor's unpublished bytes from an earlier visit: shown, then adopted on mount. */
      readonly draft: ByteDraft | null
    }
  | { readonly kind: 'unsupported'; readonly file: FileRead; readonly bytes: BytesOutcome | null }
  | { readonly kind: 'gone' }
  | { readonly kind: 'failed'; readonly outcome: Exclude<RequestOutcome<unknown>, { kind: 'ok' }> }

