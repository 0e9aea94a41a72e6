import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type * as PdfjsLib from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { DocumentEditRefusalReason } from '../../../shared/office/document-edits'

/**
 * pdf.js in the engine (issue 26): the legacy build runs in Node with its "fake" worker (the worker
 * code in this thread), so no canvas and no worker file to stage. Every use is bounded:
 * - bytes: a PDF over PDF_MAX_BYTES is refused before parsing;
 * - pages: callers stop at their page caps (a 2 000-page file is read up to the limit);
 * - time: a `PdfBudget` deadline is checked between pdf.js calls and each call is raced against
 *   it, so a hostile file that makes pdf.js wait forever (or loop through pages) ends with
 *   `too-large` and the document is destroyed.
 * Decision: in-thread with a deadline rather than a worker thread. pdf.js parses in chunks between
 * awaits, so the deadline fires between them; a single pathological synchronous parse step is the
 * remaining risk, written down in the known gaps rather than paid for with a second bundle entry.
 */

export const PDF_MAX_BYTES = 256 * 1024 * 1024
const CLOSE_WAIT_MS = 2_000
/** Wall-clock budget of one view, edit or diff of one PDF. */
export const PDF_TIME_BUDGET_MS = 20_000

export type PdfLoadOutcome =
  | { kind: 'ok'; doc: PDFDocumentProxy; lib: typeof PdfjsLib; close: () => Promise<void> }
  | {
      kind: 'refused'
      reason: Extract<DocumentEditRefusalReason, 'encrypted' | 'damaged' | 'too-large'>
      message: string
      /** The time budget ran out (reason `too-large`): Review says "timeout" for it. */
      timedOut: boolean
    }

/** Thrown when a budget runs out; the public functions turn it into a `too-large` refusal. */
export class PdfBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`the PDF took longer than ${Math.round(budgetMs / 1000)} s to process`)
    this.name = 'PdfBudgetExceeded'
  }
}

export class PdfBudget {
  private readonly deadline: number
  constructor(readonly budgetMs: number = PDF_TIME_BUDGET_MS) {
    this.deadline = Date.now() + budgetMs
  }

  check(): void {
    if (Date.now() > this.deadline) throw new PdfBudgetExceeded(this.budgetMs)
  }

  /** The promise's value, or PdfBudgetExceeded when the deadline comes first. */
  async run<T>(promise: Promise<T>): Promise<T> {
    this.check()
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PdfBudgetExceeded(this.budgetMs)), Math.max(0, this.deadline - Date.now()))
    })
    try {
      return await Promise.race([promise, expired])
    } finally {
      clearTimeout(timer)
    }
  }
}

let pdfjsModule: Promise<typeof PdfjsLib> | null = null

function loadPdfjs(): Promise<typeof PdfjsLib> {
  pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs').catch((error: unknown) => {
    pdfjsModule = null
    throw error
  })
  return pdfjsModule
}

/** pdf.js's own folder, for its cMaps (CJK text) and standard font metrics. */
function pdfjsFolder(): string | null {
  try {
    return dirname(createRequire(__filename).resolve('pdfjs-dist/package.json'))
  } catch {
    return null
  }
}

export async function loadPdf(bytes: Uint8Array, budget: PdfBudget): Promise<PdfLoadOutcome> {
  if (bytes.byteLength > PDF_MAX_BYTES) {
    return {
      kind: 'refused',
      reason: 'too-large',
      message: `the PDF is ${bytes.byteLength} bytes; the limit is ${PDF_MAX_BYTES}`,
      timedOut: false,
    }
  }
  const lib = await loadPdfjs()
  const folder = pdfjsFolder()
  let task: ReturnType<typeof lib.getDocument>
  try {
    task = lib.getDocument({
      // getDocument detaches the buffer it is given: a copy keeps the caller's bytes intact (they
      // are the prefix of the saved file and the journal's before-blob). `new Uint8Array` rather
      // than `slice()`: a Node Buffer's slice is a view of the same memory, and pdf.js refuses Buffers.
      data: new Uint8Array(bytes),
      ...(folder
        ? {
            cMapUrl: join(folder, 'cmaps') + '/',
            cMapPacked: true,
            standardFontDataUrl: join(folder, 'standard_fonts') + '/',
          }
        : {}),
      disableFontFace: true,
      useSystemFonts: false,
      enableXfa: false,
      stopAtErrors: false,
      verbosity: lib.VerbosityLevel.ERRORS,
    })
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    return { kind: 'refused', reason: 'damaged', message: `the PDF cannot be read: ${detail}`, timedOut: false }
  }
  // Closing must not become the wait it was meant to end: a document stuck mid-parse is dropped
  // after CLOSE_WAIT_MS whether or not pdf.js has finished tearing it down.
  const close = async () => {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      task.destroy().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS)
      }),
    ])
    clearTimeout(timer)
  }
  try {
    const doc = await budget.run(task.promise)
    ignoreRepeatedFonts(doc)
    return { kind: 'ok', doc, lib, close }
  } catch (error) {
    await close()
    if (error instanceof PdfBudgetExceeded)
      return { kind: 'refused', reason: 'too-large', message: error.message, timedOut: true }
    const name = error instanceof Error ? error.name : ''
    const detail = error instanceof Error ? error.message : String(error)
    if (name === 'PasswordException') {
      return { kind: 'refused', reason: 'encrypted', message: 'the PDF is password-protected', timedOut: false }
    }
    return { kind: 'refused', reason: 'damaged', message: `the PDF cannot be read: ${detail}`, timedOut: false }
  }
}

/**
 * pdf.js 6.3 sends a font to the document twice when two pages' new free-text annotations are
 * saved in one `saveDocument()` (one evaluator per page), and the second arrival, while the first
 * is still being bound, resolves the same object again: `Object already resolved g_d2_f2`, thrown
 * inside a promise callback nobody awaits — an unhandled rejection, which ends a Node process. The
 * font data is the same both times, so the document's shared object store is made to keep the
 * first one. (Seen with two FreeText annotations on two pages; one page or one note does not.)
 */
function ignoreRepeatedFonts(doc: PDFDocumentProxy): void {
  const transport = (doc as unknown as { _transport?: { commonObjs?: unknown } })._transport
  const objects = transport?.commonObjs as
    { has: (id: string) => boolean; resolve: (id: string, data?: unknown) => void } | undefined
  if (!objects || typeof objects.resolve !== 'function' || typeof objects.has !== 'function') return
  const resolve = objects.resolve.bind(objects)
  objects.resolve = (id: string, data?: unknown) => {
    if (!objects.has(id)) resolve(id, data)
  }
}

/** What a failure inside a loaded document means for the caller. */
export function refusalOf(error: unknown): { reason: 'too-large' | 'damaged'; message: string } {
  if (error instanceof PdfBudgetExceeded) return { reason: 'too-large', message: error.message }
  const detail = error instanceof Error ? error.message : String(error)
  return { reason: 'damaged', message: `the PDF cannot be read: ${detail}` }
}
