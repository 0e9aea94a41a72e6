import { createHash, type Hash } from 'node:crypto'
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { PdfAnnotationChange, PdfAnnotationInfo, PdfDiff } from '../../../shared/protocol/documents'
import { pageAnnotations } from './pdf-annotations'
import { loadPdf, PdfBudget, PdfBudgetExceeded, type PdfLoadOutcome } from './pdf-load'
import { pageTextItems } from './pdf-text'

/**
 * What changed between two PDFs for Review (issue 26): annotations added, removed or changed, and
 * pages whose own content (text or drawing, annotations aside) differs.
 *
 * Matching annotations: by id (the object reference, which incremental saves keep) when both sides
 * have it with the same type; then, for what is left (inline annotations without a reference, or a
 * file rewritten with new object numbers), by page, type and rect rounded to whole points; whatever
 * is still unmatched is added or removed.
 *
 * Pages: a page's fingerprint is a SHA-256 of its text content (strings and positions) and of
 * pdf.js's operator list with annotations left out (AnnotationMode.DISABLE), so adding a highlight
 * never marks a page as changed while any change to its drawing does. Document-specific object
 * names in the operator list (`g_d3_f1`: font 1 of the 4th document loaded) are normalised so the
 * same page in two loads hashes the same. Pages only the after side has are listed as changed (by
 * their after-side number); past PDF_DIFF_CONTENT_BUDGET_MS only the text is compared; pages only the before side had show in `page_count` only. With a side
 * absent (null) nothing is compared page by page: everything is new or gone.
 */

/** Pages read on each side; annotations and page changes past it are not listed. */
export const PDF_DIFF_MAX_PAGES = 300
/** Annotation changes listed; the counts stay exact. */
export const PDF_DIFF_MAX_CHANGES = 1_000
export const PDF_DIFF_TIME_BUDGET_MS = 30_000
/**
 * Time spent comparing pages' drawing (operator lists); past it, pages whose text is the same are
 * taken as unchanged, so a long PDF still gets its annotation changes listed within the budget.
 */
export const PDF_DIFF_CONTENT_BUDGET_MS = 15_000

export type PdfDiffFailureReason = 'encrypted' | 'damaged' | 'too-large' | 'timeout'

/** Why a diff could not be computed; the review module answers `{ kind: 'unreadable', reason, message }`. */
export class PdfDiffError extends Error {
  constructor(
    readonly reason: PdfDiffFailureReason,
    message: string,
    readonly side: 'before' | 'after',
  ) {
    super(message)
    this.name = 'PdfDiffError'
  }
}

/** Annotations added/removed/changed and pages whose content changed between two PDFs; null is an absent side (issue 26). */
export async function diffPdf(before: Uint8Array | null, after: Uint8Array | null): Promise<PdfDiff> {
  const budget = new PdfBudget(PDF_DIFF_TIME_BUDGET_MS)
  const contentDeadline = Date.now() + PDF_DIFF_CONTENT_BUDGET_MS
  const left = before ? await open(before, 'before', budget) : null
  try {
    const right = after ? await open(after, 'after', budget) : null
    try {
      const annotations = { before: [] as PdfAnnotationInfo[], after: [] as PdfAnnotationInfo[] }
      const pagesChanged: number[] = []
      const last = Math.min(Math.max(left?.doc.numPages ?? 0, right?.doc.numPages ?? 0), PDF_DIFF_MAX_PAGES)
      await guarded(
        async () => {
          for (let number = 1; number <= last; number++) {
            budget.check()
            const a = left && number <= left.doc.numPages ? await readPage(left, number, budget) : null
            const b = right && number <= right.doc.numPages ? await readPage(right, number, budget) : null
            if (a) annotations.before.push(...a.annotations)
            if (b) annotations.after.push(...b.annotations)
            if (left && right && b) {
              // Text first (cheap); drawing only when the text is the same and there is time left:
              // operator lists parse every font and image of the page.
              let changed = !a || a.textHash !== b.textHash
              if (!changed && a && Date.now() < contentDeadline) {
                changed = (await drawingHash(left, a, budget)) !== (await drawingHash(right, b, budget))
              }
              if (changed) pagesChanged.push(number)
            }
            a?.page.cleanup()
            b?.page.cleanup()
          }
        },
        right ? 'after' : 'before',
      )
      const changes = matchAnnotations(annotations.before, annotations.after)
      const count = (kind: PdfAnnotationChange['change']) => changes.filter((c) => c.change === kind).length
      return {
        kind: 'pdf',
        counts: {
          added: count('added'),
          removed: count('removed'),
          changed: count('changed'),
          pages_changed: pagesChanged.length,
        },
        annotations: changes.slice(0, PDF_DIFF_MAX_CHANGES),
        pages_changed: pagesChanged,
        page_count: { before: left?.doc.numPages ?? 0, after: right?.doc.numPages ?? 0 },
      }
    } finally {
      await right?.close()
    }
  } finally {
    await left?.close()
  }
}

type Loaded = Extract<PdfLoadOutcome, { kind: 'ok' }>

async function open(bytes: Uint8Array, side: 'before' | 'after', budget: PdfBudget): Promise<Loaded> {
  const loaded = await loadPdf(bytes, budget)
  if (loaded.kind === 'refused')
    throw new PdfDiffError(loaded.timedOut ? 'timeout' : loaded.reason, loaded.message, side)
  return loaded
}

async function guarded<T>(work: () => Promise<T>, side: 'before' | 'after'): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof PdfDiffError) throw error
    if (error instanceof PdfBudgetExceeded) throw new PdfDiffError('timeout', error.message, side)
    const detail = error instanceof Error ? error.message : String(error)
    throw new PdfDiffError('damaged', `the PDF cannot be read: ${detail}`, side)
  }
}

interface PageSummary {
  readonly page: PDFPageProxy
  readonly annotations: PdfAnnotationInfo[]
  readonly textHash: string
}

async function readPage(loaded: Loaded, number: number, budget: PdfBudget): Promise<PageSummary> {
  const page = await budget.run(loaded.doc.getPage(number))
  const items = await pageTextItems(page, budget)
  const annotations = (await pageAnnotations(page, number, items, budget)).map((entry) => entry.info)
  const hash = createHash('sha256')
  for (const item of items) hash.update(`${item.str}\u0000${item.transform.map((v) => v.toFixed(2)).join(',')}\u0001`)
  return { page, annotations, textHash: hash.digest('hex') }
}

async function drawingHash(loaded: Loaded, summary: PageSummary, budget: PdfBudget): Promise<string> {
  const operators = await budget.run(
    summary.page.getOperatorList({ annotationMode: loaded.lib.AnnotationMode.DISABLE }),
  )
  const hash = createHash('sha256')
  const names = new Map<string, string>()
  hashValue(hash, operators.fnArray, names)
  hashValue(hash, operators.argsArray, names)
  return hash.digest('hex')
}

/**
 * pdf.js names fonts and cached images per loaded document and in the order it first meets them
 * (`g_d0_f1`; an annotation's appearance read earlier takes the next number): such names are
 * replaced by their order of first use on the page, so the same page hashes the same in two loads.
 */
const DOCUMENT_OBJECT_ID = /_d\d+_/u

function hashValue(hash: Hash, value: unknown, names: Map<string, string>): void {
  if (value === null || value === undefined) {
    hash.update('n')
  } else if (typeof value === 'string') {
    let name = value
    if (DOCUMENT_OBJECT_ID.test(value)) {
      name = names.get(value) ?? `#${names.size}`
      names.set(value, name)
    }
    hash.update(`s${name}\u0000`)
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    hash.update(`v${String(value)}\u0000`)
  } else if (ArrayBuffer.isView(value)) {
    hash.update('b')
    hash.update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength))
  } else if (Array.isArray(value)) {
    hash.update(`a${value.length}[`)
    for (const element of value) hashValue(hash, element, names)
    hash.update(']')
  } else if (typeof value === 'object') {
    hash.update('{')
    for (const key of Object.keys(value).sort()) {
      hash.update(`${key}:`)
      hashValue(hash, (value as Record<string, unknown>)[key], names)
    }
    hash.update('}')
  }
}

const rectKey = (info: PdfAnnotationInfo) =>
  `${info.page}|${info.type}|${info.rect.map((v) => Math.round(v)).join(',')}`

function same(a: PdfAnnotationInfo, b: PdfAnnotationInfo): boolean {
  return (
    a.page === b.page &&
    a.type === b.type &&
    a.color === b.color &&
    a.contents === b.contents &&
    a.quoted === b.quoted &&
    a.rect.every((v, i) => Math.abs(v - (b.rect[i] ?? 0)) < 0.5)
  )
}

function matchAnnotations(
  before: readonly PdfAnnotationInfo[],
  after: readonly PdfAnnotationInfo[],
): PdfAnnotationChange[] {
  const changes: PdfAnnotationChange[] = []
  const unmatchedBefore = new Set(before)
  const unmatchedAfter = new Set(after)
  const afterById = new Map<string, PdfAnnotationInfo>()
  for (const info of after) if (/^\d+R$/u.test(info.id)) afterById.set(info.id, info)
  const pair = (a: PdfAnnotationInfo, b: PdfAnnotationInfo) => {
    unmatchedBefore.delete(a)
    unmatchedAfter.delete(b)
    if (!same(a, b)) changes.push({ change: 'changed', before: a, after: b })
  }
  for (const a of before) {
    const b = afterById.get(a.id)
    if (b && b.type === a.type && unmatchedAfter.has(b)) pair(a, b)
  }
  const afterByRect = new Map<string, PdfAnnotationInfo[]>()
  for (const b of unmatchedAfter) {
    const list = afterByRect.get(rectKey(b)) ?? []
    list.push(b)
    afterByRect.set(rectKey(b), list)
  }
  for (const a of [...unmatchedBefore]) {
    const b = afterByRect.get(rectKey(a))?.shift()
    if (b) pair(a, b)
  }
  for (const a of unmatchedBefore) changes.push({ change: 'removed', before: a, after: null })
  for (const b of unmatchedAfter) changes.push({ change: 'added', before: null, after: b })
  const pageOf = (c: PdfAnnotationChange) => c.after?.page ?? c.before?.page ?? 0
  const topOf = (c: PdfAnnotationChange) => -((c.after ?? c.before)?.rect[3] ?? 0)
  return changes.sort((x, y) => pageOf(x) - pageOf(y) || topOf(x) - topOf(y))
}
