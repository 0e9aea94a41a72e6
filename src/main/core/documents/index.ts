// The documents module (issue 26): what the agent's document tools, approvals and Review use to
// read, change and compare DOCX, XLSX, PPTX and PDF files. The format code (shared/office and the
// pdf-* files here) runs only inside this module's worker.
export {
  documentKindOf,
  extensionOf,
  mayBeDocument,
  sniffDocument,
  type DocumentKind,
  type DocumentSniff,
} from './kind'
export {
  createDocumentsModule,
  type DocumentDiffOutcome,
  type DocumentEdited,
  type DocumentsModule,
  type UnreadableReason,
} from './service'
export { DOCUMENT_LIMITS, type DocumentLimits } from './runner'
