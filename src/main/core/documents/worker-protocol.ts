import type {
  DocumentEdit,
  DocumentEditRefusalReason,
  DocumentReadRequest,
  PdfAnnotationEdit,
} from '../../../shared/office/document-edits'
import type { DocumentDiff } from '../../../shared/protocol'
import type { DocumentKind, OoxmlKind } from './kind'

/** One piece of work for the documents worker; bytes are transferred, never shared. */
export type DocumentTask =
  | { op: 'read'; format: DocumentKind; bytes: ArrayBuffer; request: DocumentReadRequest }
  | { op: 'edit'; format: OoxmlKind; bytes: ArrayBuffer; edits: readonly DocumentEdit[] }
  | { op: 'annotate'; bytes: ArrayBuffer; annotations: readonly PdfAnnotationEdit[] }
  | { op: 'diff'; format: DocumentKind; before: ArrayBuffer | null; after: ArrayBuffer | null }

export type DocumentJob = DocumentTask & { id: number }

/** What a task produced: the view's text, the edited bytes and their summary, or the diff. */
export type DocumentValue =
  | { op: 'read'; text: string }
  | { op: 'edit'; bytes: Uint8Array; summary: string[] }
  | { op: 'diff'; diff: DocumentDiff }

export type DocumentReply = { id: number } & (
  | { kind: 'done'; value: DocumentValue }
  | { kind: 'refused'; reason: DocumentEditRefusalReason; message: string; edit_index: number | null }
  /**
   * The format function threw: a document it could not parse (or a bug); never a partial result.
   * `cause` when the error said why (the diff functions throw their refusals).
   */
  | { kind: 'failed'; message: string; cause?: FailureCause }
)

/** Why a format function threw, when its error says so. */
export type FailureCause = 'encrypted' | 'damaged' | 'too-large' | 'wrong-format' | 'timeout'
