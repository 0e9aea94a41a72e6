// The documents worker (issue 26; spec 01: the engine's event loop never waits on parsing a file it
// was handed). Loaded by path: from the build (out/main/documents-worker.js) or, under tests, from
// this source through tsx. Unzipping, XML parsing, PDF parsing and diffing a hostile document all
// happen here; the runner ends this thread when a job outlives its time budget or its heap.
import { parentPort } from 'node:worker_threads'
import { editDocx } from '../../../shared/office/docx-edit'
import { diffDocx } from '../../../shared/office/docx-diff'
import { readDocxView } from '../../../shared/office/docx-view'
import { editPptx } from '../../../shared/office/pptx-edit'
import { diffPptx } from '../../../shared/office/pptx-diff'
import { readPptxView } from '../../../shared/office/pptx-view'
import { editXlsx } from '../../../shared/office/xlsx-edit'
import { diffXlsx } from '../../../shared/office/xlsx-diff'
import { readXlsxView } from '../../../shared/office/xlsx-view'
import type { DocumentEditOutcome, DocumentReadOutcome } from '../../../shared/office/document-edits'
import type { DocumentDiff } from '../../../shared/protocol'
import { annotatePdf } from './pdf-annotate'
import { diffPdf } from './pdf-diff'
import { readPdfView } from './pdf-view'
import type { DocumentKind } from './kind'
import { PackageError } from '../../../shared/office/zip'
import { DeckRefusal } from '../../../shared/office/pptx-deck'
import { PdfDiffError } from './pdf-diff'
import type { DocumentJob, DocumentReply, FailureCause } from './worker-protocol'

const VIEWS = { docx: readDocxView, xlsx: readXlsxView, pptx: readPptxView, pdf: readPdfView }
const EDITS = { docx: editDocx, xlsx: editXlsx, pptx: editPptx }
const DIFFS: Record<DocumentKind, (before: Uint8Array | null, after: Uint8Array | null) => Promise<DocumentDiff>> = {
  docx: diffDocx,
  xlsx: diffXlsx,
  pptx: diffPptx,
  pdf: diffPdf,
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
      return fromRead(job.id, await VIEWS[job.format](new Uint8Array(job.bytes), job.request))
    case 'edit':
      return fromEdit(job.id, await EDITS[job.format](new Uint8Array(job.bytes), job.edits))
    case 'annotate':
      return fromEdit(job.id, await annotatePdf(new Uint8Array(job.bytes), job.annotations))
    case 'diff':
      return {
        id: job.id,
        kind: 'done',
        value: { op: 'diff', diff: await DIFFS[job.format](view(job.before), view(job.after)) },
      }
  }
}

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
  if (error instanceof PdfDiffError) return error.reason
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
