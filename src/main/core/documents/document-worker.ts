// The documents worker (issue 26; spec 01: the engine's event loop never waits on parsing a file it
// was handed). Loaded by path: from the build (out/main/documents-worker.js) or, under tests, from
// this source through tsx. Unzipping, XML parsing, PDF parsing and diffing a hostile document all
// happen here; the runner ends this thread when a job outlives its time budget or its heap.
import { parentPort } from 'node:worker_threads'
import type {
  DocumentEdit,
  DocumentEditOutcome,
  DocumentReadOutcome,
  DocumentReadRequest,
  PdfAnnotationEdit,
} from '../../../shared/office/document-edits'
import { DeckRefusal } from '../../../shared/office/pptx-deck'
import { PackageError } from '../../../shared/office/zip'
import type { DocumentDiff } from '../../../shared/protocol'
import type { DocumentKind } from './kind'
import type { DocumentJob, DocumentReply, FailureCause } from './worker-protocol'

interface FormatCode<Edit> {
  view(bytes: Uint8Array, request: DocumentReadRequest): Promise<DocumentReadOutcome>
  edit(bytes: Uint8Array, edits: readonly Edit[]): Promise<DocumentEditOutcome>
  diff(before: Uint8Array | null, after: Uint8Array | null): Promise<DocumentDiff>
}

/**
 * Each format's code is loaded when a job first needs it: a format whose module cannot load (a
 * missing dependency, a bug at import) fails its own jobs, never the other formats'.
 */
const FORMATS: {
  [K in DocumentKind]: () => Promise<FormatCode<K extends 'pdf' ? PdfAnnotationEdit : DocumentEdit>>
} = {
  docx: async () => ({
    view: (await import('../../../shared/office/docx-view')).readDocxView,
    edit: (await import('../../../shared/office/docx-edit')).editDocx,
    diff: (await import('../../../shared/office/docx-diff')).diffDocx,
  }),
  xlsx: async () => ({
    view: (await import('../../../shared/office/xlsx-view')).readXlsxView,
    edit: (await import('../../../shared/office/xlsx-edit')).editXlsx,
    diff: (await import('../../../shared/office/xlsx-diff')).diffXlsx,
  }),
  pptx: async () => ({
    view: (await import('../../../shared/office/pptx-view')).readPptxView,
    edit: (await import('../../../shared/office/pptx-edit')).editPptx,
    diff: (await import('../../../shared/office/pptx-diff')).diffPptx,
  }),
  pdf: async () => ({
    view: (await import('./pdf-view')).readPdfView,
    edit: (await import('./pdf-annotate')).annotatePdf,
    diff: (await import('./pdf-diff')).diffPdf,
  }),
}

const view = (buffer: ArrayBuffer | null) => (buffer === null ? null : new Uint8Array(buffer))

function fromEdit(id: number, outcome: DocumentEditOutcome): DocumentReply {
  // A copy of its own, so transferring it never detaches a buffer the patcher shares (a pooled Buffer).
  return outcome.kind === 'ok'
    ? { id, kind: 'done', value: { op: 'edit', bytes: new Uint8Array(outcome.bytes), summary: outcome.summary } }
    : { id, kind: 'refused', reason: outcome.reason, message: outcome.message, edit_index: outcome.edit_index }
}

function fromRead(id: number, outcome: DocumentReadOutcome): DocumentReply {
  return outcome.kind === 'ok'
    ? { id, kind: 'done', value: { op: 'read', text: outcome.text } }
    : { id, kind: 'refused', reason: outcome.reason, message: outcome.message, edit_index: null }
}

async function run(job: DocumentJob): Promise<DocumentReply> {
  switch (job.op) {
    case 'read':
      return fromRead(job.id, await (await FORMATS[job.format]()).view(new Uint8Array(job.bytes), job.request))
    case 'edit':
      return fromEdit(job.id, await (await FORMATS[job.format]()).edit(new Uint8Array(job.bytes), job.edits))
    case 'annotate':
      return fromEdit(job.id, await (await FORMATS.pdf()).edit(new Uint8Array(job.bytes), job.annotations))
    case 'diff': {
      const code = await FORMATS[job.format]()
      return {
        id: job.id,
        kind: 'done',
        value: { op: 'diff', diff: await code.diff(view(job.before), view(job.after)) },
      }
    }
  }
}

const PDF_DIFF_CAUSES: ReadonlySet<string> = new Set(['encrypted', 'damaged', 'too-large', 'timeout'])

/** The diff functions throw their refusals (an unreadable side); each names why. */
function causeOf(error: unknown): FailureCause | undefined {
  if (error instanceof PackageError) {
    const causes: Record<PackageError['reason'], FailureCause> = {
      corrupt: 'damaged',
      'missing-part': 'damaged',
      encrypted: 'encrypted',
      'too-large': 'too-large',
      unsupported: 'wrong-format',
    }
    return causes[error.reason]
  }
  if (error instanceof DeckRefusal) {
    return error.reason === 'encrypted' || error.reason === 'too-large' || error.reason === 'wrong-format'
      ? error.reason
      : 'damaged'
  }
  // pdf-diff's PdfDiffError, recognised by name so the PDF code loads only for PDF jobs.
  if (error instanceof Error && error.name === 'PdfDiffError') {
    const reason = (error as Error & { reason?: unknown }).reason
    return typeof reason === 'string' && PDF_DIFF_CAUSES.has(reason) ? (reason as FailureCause) : 'damaged'
  }
  return undefined
}

parentPort?.on('message', (job: DocumentJob) => {
  void run(job).then(
    (reply): void => {
      const transfer =
        reply.kind === 'done' && reply.value.op === 'edit' ? [reply.value.bytes.buffer as ArrayBuffer] : []
      parentPort?.postMessage(reply, transfer)
    },
    (error: unknown): void => {
      const cause = causeOf(error)
      parentPort?.postMessage({
        id: job.id,
        kind: 'failed',
        message: error instanceof Error ? error.message : String(error),
        ...(cause !== undefined ? { cause } : {}),
      } satisfies DocumentReply)
    },
  )
})
