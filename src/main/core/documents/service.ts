import { fail, ok, type DocumentDiff, type FailureReasonOf, type Outcome } from '../../../shared/protocol'
import type {
  DocumentEdit,
  DocumentEditRefusalReason,
  DocumentReadRequest,
  PdfAnnotationEdit,
} from '../../../shared/office/document-edits'
import { mayBeDocument, sniffDocument, type DocumentKind, type OoxmlKind } from './kind'
import { CONVERTED_NOTICE, createReadingConversions, type ConvertForReading } from './reading-conversion'
import { createDocumentRunner, DOCUMENT_LIMITS, type DocumentLimits, type DocumentRunOutcome } from './runner'

/** Why a diff could not be computed: the `review.document` answer's reasons. */
export type UnreadableReason = 'encrypted' | 'damaged' | 'too-large' | 'timeout' | 'not-a-document'

export type DocumentDiffOutcome =
  { kind: 'diff'; diff: DocumentDiff } | { kind: 'unreadable'; reason: UnreadableReason; message: string }

export interface DocumentEdited {
  readonly bytes: Buffer
  /** One English line per edit, from the format patcher. */
  readonly summary: readonly string[]
  readonly format: DocumentKind
}

/** The one door the rest of the engine uses for documents (issue 26): all parsing runs in the worker. */
export interface DocumentsModule {
  readonly limits: DocumentLimits
  /**
   * The format's text view with its anchors; `null` when `bytes` is not a document (the caller shows
   * it as binary). An ODF or legacy document is shown as the view of its OOXML copy, converted by
   * LibreOffice where an engine is available (else refused `UNSUPPORTED convert-first`).
   */
  read(path: string, bytes: Uint8Array, request: DocumentReadRequest): Promise<Outcome<string> | null>
  /** `office_edit`: all edits of a DOCX, XLSX or PPTX, or a precise refusal (nothing is written either way). */
  edit(path: string, bytes: Uint8Array, edits: readonly DocumentEdit[]): Promise<Outcome<DocumentEdited>>
  /** `pdf_annotate`: annotations added or removed, saved as an incremental update. */
  annotate(path: string, bytes: Uint8Array, annotations: readonly PdfAnnotationEdit[]): Promise<Outcome<DocumentEdited>>
  /** What changed inside a document between two versions (null: absent side), within `budgetMs`. */
  diff(
    path: string,
    before: Uint8Array | null,
    after: Uint8Array | null,
    budgetMs?: number,
  ): Promise<DocumentDiffOutcome>
  dispose(): void
}

/** A protocol code and one of its declared reasons. */
type Refusal<C extends 'INVALID_REQUEST' | 'NOT_FOUND' | 'UNSUPPORTED' | 'TOO_LARGE'> = readonly [
  code: C,
  reason: FailureReasonOf<C>,
]

/**
 * Each patcher refusal as a protocol failure: a named thing that is not there is NOT_FOUND; a
 * change that does not fit the document is INVALID_REQUEST; a document the tools cannot open
 * safely is UNSUPPORTED; over a bound is TOO_LARGE. Typed from the protocol's table, so every
 * reason sent is one a view can match.
 */
const REFUSALS: {
  [R in DocumentEditRefusalReason]:
    Refusal<'INVALID_REQUEST'> | Refusal<'NOT_FOUND'> | Refusal<'UNSUPPORTED'> | Refusal<'TOO_LARGE'>
} = {
  'missing-anchor': ['NOT_FOUND', 'missing-anchor'],
  'no-such-sheet': ['NOT_FOUND', 'no-such-sheet'],
  'no-such-slide': ['NOT_FOUND', 'no-such-slide'],
  'no-such-annotation': ['NOT_FOUND', 'no-such-annotation'],
  'no-text-found': ['NOT_FOUND', 'no-text-found'],
  'merged-cell': ['INVALID_REQUEST', 'merged-cell'],
  'shape-mismatch': ['INVALID_REQUEST', 'shape-mismatch'],
  'wrong-format': ['INVALID_REQUEST', 'wrong-format'],
  damaged: ['INVALID_REQUEST', 'damaged'],
  encrypted: ['UNSUPPORTED', 'encrypted'],
  'unsupported-content': ['UNSUPPORTED', 'unsupported-content'],
  'too-large': ['TOO_LARGE', 'document-limit'],
}

const KIND_NAMES: Record<DocumentKind, string> = { docx: 'DOCX', xlsx: 'XLSX', pptx: 'PPTX', pdf: 'PDF' }

function encryptedFailure(path: string) {
  return fail('UNSUPPORTED', `"${path}" is protected with a password; its content cannot be read or changed.`, {
    path,
    reason: 'encrypted',
  })
}

/** The command that makes the OOXML copy of `path` next to it, for the model to run with bash. */
function conversionCommand(path: string, target: OoxmlKind): string {
  const slash = path.lastIndexOf('/')
  const folder = slash === -1 ? '.' : path.slice(0, slash)
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`
  // A name starting with "-" would be taken for an option.
  const file = path.startsWith('-') ? `./${path}` : path
  return `soffice --headless --convert-to ${target} --outdir ${quote(folder)} ${quote(file)}`
}

function convertFirstFailure(path: string, extension: string, target: OoxmlKind) {
  // Decision: ODF and the legacy binary formats are not edited in place — their writers are
  // LibreOffice's, whose round trip is not byte-faithful to untouched content. The message names
  // both ways to the OOXML copy: the person's Convert in the Office view, or the exact command
  // for the agent's bash where LibreOffice is installed (a new file beside the original, journaled
  // and reviewable like any other change); the converted copy is then a document here.
  return fail(
    'UNSUPPORTED',
    `"${path}" is a .${extension} file; only DOCX, XLSX, PPTX and PDF are changed as documents. Convert it to OOXML first (${target.toUpperCase()}): ask the person to use Convert in the Office view, or run \`${conversionCommand(path, target)}\` with bash where LibreOffice is installed; then read and change the converted file.`,
    { path, reason: 'convert-first' },
  )
}

/** A worker outcome that is not a value: the protocol failure the tools answer with. */
function runFailure(path: string, outcome: Exclude<DocumentRunOutcome, { kind: 'done' }>, editCount: number) {
  const tail = editCount > 0 ? ' Nothing was changed.' : ''
  switch (outcome.kind) {
    case 'refused': {
      const [code, reason] = REFUSALS[outcome.reason]
      const which =
        outcome.edit_index !== null && editCount > 1 ? ` (change ${outcome.edit_index + 1} of ${editCount})` : ''
      return fail(code, `${outcome.message}${which}${tail}`, {
        path,
        reason,
        ...(outcome.edit_index !== null ? { edit_index: outcome.edit_index } : {}),
      })
    }
    case 'limit':
      return outcome.limit === 'time'
        ? fail('TOO_LARGE', `${outcome.message}${tail}`, { path, reason: 'time', limit: outcome.value })
        : outcome.limit === 'memory'
          ? fail('TOO_LARGE', `${outcome.message}${tail}`, {
              path,
              reason: 'memory',
              limit: outcome.value,
            })
          : fail('TOO_LARGE', `"${path}": ${outcome.message}${tail}`, {
              path,
              reason: 'document-limit',
              limit: outcome.value,
            })
    case 'failed':
      switch (outcome.cause) {
        case 'encrypted':
          return encryptedFailure(path)
        case 'too-large':
          return fail('TOO_LARGE', `"${path}": ${outcome.message}${tail}`, { path, reason: 'document-limit' })
        case 'timeout':
          return fail('TOO_LARGE', `"${path}": ${outcome.message}${tail}`, { path, reason: 'time' })
        case 'wrong-format':
          return fail('INVALID_REQUEST', `"${path}": ${outcome.message}${tail}`, { path, reason: 'wrong-format' })
        case 'damaged':
        case undefined:
          return fail('INVALID_REQUEST', `"${path}" could not be read as a document (${outcome.message}).${tail}`, {
            path,
            reason: 'damaged',
          })
      }
  }
}

function unreadableOf(outcome: Exclude<DocumentRunOutcome, { kind: 'done' }>): DocumentDiffOutcome {
  switch (outcome.kind) {
    case 'refused': {
      const reason: UnreadableReason =
        outcome.reason === 'encrypted'
          ? 'encrypted'
          : outcome.reason === 'too-large'
            ? 'too-large'
            : outcome.reason === 'wrong-format'
              ? 'not-a-document'
              : 'damaged'
      return { kind: 'unreadable', reason, message: outcome.message }
    }
    case 'limit':
      return {
        kind: 'unreadable',
        reason: outcome.limit === 'time' ? 'timeout' : 'too-large',
        message: outcome.message,
      }
    case 'failed': {
      const reasons: Record<NonNullable<typeof outcome.cause>, UnreadableReason> = {
        encrypted: 'encrypted',
        damaged: 'damaged',
        'too-large': 'too-large',
        timeout: 'timeout',
        'wrong-format': 'not-a-document',
      }
      return outcome.cause === undefined
        ? { kind: 'unreadable', reason: 'damaged', message: `The document could not be read (${outcome.message}).` }
        : { kind: 'unreadable', reason: reasons[outcome.cause], message: outcome.message }
    }
  }
}

/** A fresh buffer of the bytes alone: a Node Buffer may be a view into a shared pool, which cannot be transferred. */
function copyOf(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength)
  copy.set(bytes)
  return copy.buffer
}

/**
 * The budget counts from the caller's ask, waiting for the worker included: an approval card or a
 * Review pane never waits behind another document's job past its own budget. The job itself goes
 * on until it ends or the runner stops it at its own budget.
 */
async function withinWallTime(job: Promise<DocumentRunOutcome>, budgetMs: number): Promise<DocumentRunOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<DocumentRunOutcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          kind: 'limit',
          limit: 'time',
          value: budgetMs,
          message: `Comparing the document took longer than ${Math.max(1, Math.round(budgetMs / 1000))} s.`,
        }),
      budgetMs,
    )
  })
  try {
    return await Promise.race([job, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Converted copies kept for paging: a few documents' worth, never more than one large one. */
const READING_CACHE_BYTES = 64 * 1024 * 1024

export function createDocumentsModule(
  options: {
    limits?: Partial<DocumentLimits> | undefined
    /** ODF and legacy documents are read through it where LibreOffice is available (issue 26). */
    convertForReading?: ConvertForReading | undefined
  } = {},
): DocumentsModule {
  const limits: DocumentLimits = { ...DOCUMENT_LIMITS, ...options.limits }
  const runner = createDocumentRunner(limits)
  const conversions = createReadingConversions(options.convertForReading, {
    timeoutMs: limits.convertTimeMs,
    maxInputBytes: limits.convertMaxInputBytes,
    maxOutputBytes: limits.maxInputBytes,
    cacheBytes: READING_CACHE_BYTES,
  })

  async function view(path: string, format: DocumentKind, bytes: Uint8Array, request: DocumentReadRequest) {
    const outcome = await runner.run({ op: 'read', format, bytes: copyOf(bytes), request })
    if (outcome.kind !== 'done') return runFailure(path, outcome, 0)
    if (outcome.value.op !== 'read') throw new Error(`documents worker answered ${outcome.value.op} to a read`)
    return ok(outcome.value.text)
  }

  async function change(
    path: string,
    bytes: Uint8Array,
    expected: 'ooxml' | 'pdf',
    run: (format: DocumentKind) => Promise<DocumentRunOutcome>,
    editCount: number,
  ): Promise<Outcome<DocumentEdited>> {
    const sniffed = sniffDocument(path, bytes)
    if (sniffed.kind === 'encrypted') return encryptedFailure(path)
    if (sniffed.kind === 'convert-first') return convertFirstFailure(path, sniffed.extension, sniffed.target)
    const tool = expected === 'pdf' ? 'pdf_annotate' : 'office_edit'
    if (sniffed.kind === 'none' || (sniffed.format === 'pdf') !== (expected === 'pdf')) {
      const what =
        sniffed.kind === 'none' ? 'not a DOCX, XLSX, PPTX or PDF document' : `a ${KIND_NAMES[sniffed.format]}`
      const use =
        sniffed.kind === 'document' ? ` Use ${sniffed.format === 'pdf' ? 'pdf_annotate' : 'office_edit'}.` : ''
      return fail('INVALID_REQUEST', `"${path}" is ${what}; ${tool} cannot change it.${use}`, {
        path,
        reason: 'wrong-format',
      })
    }
    const outcome = await run(sniffed.format)
    if (outcome.kind !== 'done') return runFailure(path, outcome, editCount)
    if (outcome.value.op !== 'edit') throw new Error(`documents worker answered ${outcome.value.op} to an edit`)
    return ok({ bytes: Buffer.from(outcome.value.bytes), summary: outcome.value.summary, format: sniffed.format })
  }

  return {
    limits,
    async read(path, bytes, request) {
      const sniffed = sniffDocument(path, bytes)
      if (sniffed.kind === 'none') return null
      if (sniffed.kind === 'encrypted') return encryptedFailure(path)
      if (sniffed.kind === 'convert-first') {
        const copy = await conversions.copyOf(path, sniffed.extension, bytes)
        if (copy.kind === 'no-engine') return convertFirstFailure(path, sniffed.extension, sniffed.target)
        if (copy.kind === 'error') return copy
        // A copy the converter made is as hostile as any input: the same worker, bounds and refusals.
        const shown = await view(path, copy.format, copy.bytes, request)
        return shown.kind === 'error' ? shown : ok(`${CONVERTED_NOTICE}\n${shown.result}`)
      }
      return view(path, sniffed.format, bytes, request)
    },
    edit: (path, bytes, edits) =>
      change(
        path,
        bytes,
        'ooxml',
        (format) =>
          format === 'pdf'
            ? Promise.reject(new Error('unreachable: a PDF is never an OOXML edit'))
            : runner.run({ op: 'edit', format, bytes: copyOf(bytes), edits }),
        edits.length,
      ),
    annotate: (path, bytes, annotations) =>
      change(
        path,
        bytes,
        'pdf',
        () => runner.run({ op: 'annotate', bytes: copyOf(bytes), annotations }),
        annotations.length,
      ),
    async diff(path, before, after, budgetMs) {
      const sides = [before, after].filter((side): side is Uint8Array => side !== null)
      const sniffs = sides.map((side) => sniffDocument(path, side))
      if (sniffs.length === 0)
        return { kind: 'unreadable', reason: 'not-a-document', message: 'Both sides are absent.' }
      if (sniffs.some((sniffed) => sniffed.kind === 'encrypted')) {
        return { kind: 'unreadable', reason: 'encrypted', message: 'The document is protected with a password.' }
      }
      const formats = new Set(sniffs.map((sniffed) => (sniffed.kind === 'document' ? sniffed.format : null)))
      const [format] = [...formats]
      if (formats.size !== 1 || format === null || format === undefined) {
        // A document's name on content that is not one (or one kind turned into another) is damage
        // to the person reading Review, not a silent "not a document".
        return mayBeDocument(path) && sniffs.length > 0
          ? { kind: 'unreadable', reason: 'damaged', message: 'One side is not a readable document of this kind.' }
          : {
              kind: 'unreadable',
              reason: 'not-a-document',
              message: 'This file is not a DOCX, XLSX, PPTX or PDF document.',
            }
      }
      const job = runner.run(
        { op: 'diff', format, before: before && copyOf(before), after: after && copyOf(after) },
        budgetMs,
      )
      const outcome = budgetMs === undefined ? await job : await withinWallTime(job, budgetMs)
      if (outcome.kind !== 'done') return unreadableOf(outcome)
      if (outcome.value.op !== 'diff') throw new Error(`documents worker answered ${outcome.value.op} to a diff`)
      return { kind: 'diff', diff: outcome.value.diff }
    },
    dispose: () => runner.dispose(),
  }
}
