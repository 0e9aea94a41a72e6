import { randomUUID } from 'node:crypto'
import type { PDFDocumentProxy, PDFPageProxy, PageViewport } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type {
  DocumentEditOutcome,
  DocumentEditRefusalReason,
  PdfAnnotationEdit,
} from '../../../shared/office/document-edits'
import { pageAnnotations, type PdfAnnotationEntry } from './pdf-annotations'
import { appendObjects, pdfDate, pdfTextString, type ReplacedObject } from './pdf-incremental'
import { loadPdf, PdfBudget, refusalOf } from './pdf-load'
import { findText, pageTextItems, type PdfTextItem, type Quad } from './pdf-text'

/**
 * `pdf_annotate` (issue 26): the edits are fed to pdf.js's annotation storage exactly as its
 * editors serialize them (the shapes of pdf.js 6.3's HighlightEditor/FreeTextEditor `serialize()`
 * and `serializeDeleted()`), and pdf.js's `saveDocument()` writes them as the reader does: one
 * incremental update appended to the original bytes, which therefore stay a prefix of the result.
 * Sticky notes, which pdf.js cannot create, are a second small update (pdf-incremental.ts).
 * All or nothing: every edit is checked before anything is saved; the first refused edit refuses
 * the call with its index, and the caller writes nothing.
 */

/** pdf.js's key prefix for editor-made annotations (AnnotationEditorPrefix, not exported). */
const EDITOR_PREFIX = 'pdfjs_internal_editor_'
/** The reader's default highlight colour (HIGHLIGHT_COLORS yellow) and note colours. */
const DEFAULT_HIGHLIGHT = '#ffff98'
const DEFAULT_FREE_TEXT = '#000000'
const DEFAULT_STICKY = '#ffd400'
const FREE_TEXT_SIZE = 10
/** Characters a free-text line holds before it wraps at a space (pdf.js shrinks, never wraps, a long line). */
const FREE_TEXT_LINE = 60
const STICKY_SIZE = 20
/** The reader editor's popup box, beside the page (pdf.js AnnotationEditor.addComment). */
const POPUP_WIDTH = 180
const POPUP_HEIGHT = 100
const MARGIN = 8
/** Pages searched for an id to remove; a bigger document is searched up to here (and the time budget). */
const REMOVE_SEARCH_MAX_PAGES = 5_000

type Refusal = Extract<DocumentEditOutcome, { kind: 'refused' }>

const refuse = (reason: DocumentEditRefusalReason, message: string, index: number | null): Refusal => ({
  kind: 'refused',
  reason,
  message,
  edit_index: index,
})

function rgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16)
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255]
}

const quote = (text: string, max = 80) => {
  const flat = text.replace(/\s+/gu, ' ').trim()
  return `"${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}"`
}

interface PageCache {
  page: PDFPageProxy
  items: PdfTextItem[]
  viewport: PageViewport
}

/** What one checked edit adds to the save, and how to name its result afterwards. */
interface Planned {
  readonly kind: 'planned'
  readonly index: number
  readonly page: number
  /** The serialized editor value for pdf.js's annotationStorage. */
  readonly value: Record<string, unknown>
  /** The new annotation's type and rect, to find its object number in the saved file; null for a removal. */
  readonly created: { type: string; rect: readonly number[] } | null
  readonly sticky: { text: string; color: string; rect: readonly number[]; marker: string; pageRef: string } | null
  readonly describe: (id: string | null) => string
}

/** Applies `pdf_annotate`'s edits, saved as the reader saves (an incremental update); all or nothing (issue 26). */
export async function annotatePdf(
  bytes: Uint8Array,
  edits: readonly PdfAnnotationEdit[],
): Promise<DocumentEditOutcome> {
  // Nothing to do writes nothing (the tool's schema asks for at least one edit; this is its floor).
  if (edits.length === 0) return { kind: 'ok', bytes, summary: [] }
  const budget = new PdfBudget()
  const loaded = await loadPdf(bytes, budget)
  if (loaded.kind === 'refused') return refuse(loaded.reason, loaded.message, null)
  const { doc } = loaded
  try {
    const pages = new Map<number, PageCache>()
    const pageOf = async (number: number): Promise<PageCache> => {
      const cached = pages.get(number)
      if (cached) return cached
      const page = await budget.run(doc.getPage(number))
      const entry = { page, items: await pageTextItems(page, budget), viewport: page.getViewport({ scale: 1 }) }
      pages.set(number, entry)
      return entry
    }
    const existing = new AnnotationIndex(doc, budget)
    const removed = new Map<string, number>()
    const planned: Planned[] = []
    for (const [index, edit] of edits.entries()) {
      budget.check()
      if (edit.op === 'remove') {
        const previously = removed.get(edit.id)
        if (previously !== undefined) {
          return refuse('no-such-annotation', `annotation ${edit.id} is already removed by edit ${previously}`, index)
        }
        const found = await existing.find(edit.id)
        if (found.kind === 'missing') {
          return refuse(
            'no-such-annotation',
            `no annotation ${edit.id} in this PDF${found.searchedAll ? '' : ` (searched the first ${found.pages} pages)`}; read the PDF to see the ids`,
            index,
          )
        }
        if (!found.entry.linked) {
          // pdf.js (and this engine) can only rewrite annotations that are objects of their own.
          return refuse(
            'unsupported-content',
            `annotation ${edit.id} is written inside the page's annotation list, not as an object of its own; it cannot be removed`,
            index,
          )
        }
        removed.set(edit.id, index)
        const { info, pdfjsId, popupRef } = found.entry
        planned.push({
          kind: 'planned',
          index,
          page: info.page,
          value: { id: pdfjsId, deleted: true, pageIndex: info.page - 1, popupRef: popupRef ?? '' },
          created: null,
          sticky: null,
          describe: () => `page ${info.page}: removed ${info.type} ${info.id}`,
        })
        continue
      }
      if (!Number.isInteger(edit.page) || edit.page < 1 || edit.page > doc.numPages) {
        return refuse('missing-anchor', `page ${edit.page} does not exist: the PDF has ${doc.numPages} pages`, index)
      }
      const cache = await pageOf(edit.page)
      const plan = edit.op === 'highlight' ? planHighlight(edit, index, cache) : planNote(edit, index, cache)
      if (plan.kind === 'refused') return plan
      planned.push(plan)
    }

    for (const plan of planned) doc.annotationStorage.setValue(`${EDITOR_PREFIX}${plan.index}`, plan.value)
    let saved: Uint8Array
    try {
      saved = await budget.run(doc.saveDocument())
    } catch (error) {
      const failure = refusalOf(error)
      if (failure.reason === 'too-large') return refuse(failure.reason, failure.message, null)
      return refuse('unsupported-content', `pdf.js could not save the annotations: ${failure.message}`, null)
    }
    return await finish(saved, planned, budget)
  } catch (error) {
    const failure = refusalOf(error)
    return refuse(failure.reason, failure.message, null)
  } finally {
    await loaded.close()
  }
}

type PlanOutcome = Planned | Refusal

function planHighlight(
  edit: Extract<PdfAnnotationEdit, { op: 'highlight' }>,
  index: number,
  { items, viewport }: PageCache,
): PlanOutcome {
  const occurrence = edit.occurrence ?? 1
  const found = findText(items, edit.text, occurrence)
  if (found.kind === 'not-found') return refuseNotFound(edit.page, edit.text, occurrence, found, index)
  const { quads, rect, text } = found.match
  const note = edit.note?.trim() ? edit.note : undefined
  const pageRight = viewport.viewBox[2] ?? rect[2]
  return {
    kind: 'planned',
    index,
    page: edit.page,
    value: {
      annotationType: 9, // AnnotationEditorType.HIGHLIGHT
      pageIndex: edit.page - 1,
      rect,
      rotation: 0,
      structTreeParentId: null,
      popupRef: '',
      color: rgb(edit.color ?? DEFAULT_HIGHLIGHT),
      opacity: 1,
      thickness: 12,
      quadPoints: quads.flat(),
      outlines: quads.map(outlineOf),
      // A highlight's comment is a popup, as the reader's "comment" on a highlight saves it.
      ...(note
        ? {
            popup: {
              contents: note,
              rect: [pageRight + 1, rect[3] - POPUP_HEIGHT, pageRight + 1 + POPUP_WIDTH, rect[3]],
            },
          }
        : {}),
    },
    created: { type: 'highlight', rect },
    sticky: null,
    describe: (id) =>
      `page ${edit.page}: highlighted ${quote(text)}${id ? ` (${id})` : ''}${note ? ' with a note' : ''}`,
  }
}

/** The outline pdf.js draws a highlight's appearance from: the quad as a closed polygon. */
function outlineOf(quad: Quad): number[] {
  const [tlx, tly, trx, try_, blx, bly, brx, bry] = quad
  return [tlx, tly, trx, try_, brx, bry, blx, bly]
}

function refuseNotFound(
  page: number,
  text: string,
  occurrence: number,
  found: { found: number; nearby: string },
  index: number,
): Refusal {
  const what =
    found.found > 0
      ? `${quote(text)} occurs ${found.found} time${found.found === 1 ? '' : 's'} on page ${page}, not ${occurrence}`
      : `${quote(text)} is not on page ${page}`
  const nearby = found.nearby.trim() === '' ? 'the page has no text' : `the page has: ${quote(found.nearby, 200)}`
  return refuse('no-text-found', `${what}; ${nearby}`, index)
}

function wrap(text: string): string {
  return text
    .split('\n')
    .flatMap((line) => {
      const out: string[] = []
      let current = ''
      for (const word of line.split(' ')) {
        if (current !== '' && current.length + 1 + word.length > FREE_TEXT_LINE) {
          out.push(current)
          current = word
        } else {
          current = current === '' ? word : `${current} ${word}`
        }
      }
      out.push(current)
      return out
    })
    .join('\n')
}

function planNote(edit: Extract<PdfAnnotationEdit, { op: 'note' }>, index: number, cache: PageCache): PlanOutcome {
  const { items, viewport, page } = cache
  const sticky = edit.style === 'sticky'
  // Decision: a free-text note wraps at about 60 characters (a person typing a note in the reader
  // breaks lines; pdf.js would otherwise shrink one long line until it fits its box).
  const value = sticky ? edit.text : wrap(edit.text)
  const lines = value.split('\n')
  const width = sticky ? STICKY_SIZE : Math.max(...lines.map((l) => l.length)) * FREE_TEXT_SIZE * 0.55 + 8
  const height = sticky ? STICKY_SIZE : lines.length * FREE_TEXT_SIZE * 1.35 + 4
  // Where the note goes, in the page as shown (points from its top-left corner, rotation applied).
  let x: number
  let y: number
  if (edit.near_text !== undefined) {
    const found = findText(items, edit.near_text, 1)
    if (found.kind === 'not-found') return refuseNotFound(edit.page, edit.near_text, 1, found, index)
    const [px1, py1, px2, py2] = found.match.rect
    const [x1, y1] = viewport.convertToViewportPoint(px1, py1)
    const [x2, y2] = viewport.convertToViewportPoint(px2, py2)
    // Right of the text, at its top line; pulled back inside the page when the text ends near the edge.
    x = Math.max(x1, x2) + MARGIN
    y = Math.min(y1, y2)
  } else if (edit.at) {
    x = edit.at.x
    y = edit.at.y
  } else {
    x = MARGIN
    y = MARGIN
  }
  x = Math.max(0, Math.min(x, viewport.width - width - 2))
  y = Math.max(0, Math.min(y, viewport.height - height - 2))
  const [ax, ay] = viewport.convertToPdfPoint(x, y)
  const [bx, by] = viewport.convertToPdfPoint(x + width, y + height)
  const rect = [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)]
  const color = edit.color ?? (sticky ? DEFAULT_STICKY : DEFAULT_FREE_TEXT)
  const marker = `retrace-sticky-${randomUUID()}`
  const where = edit.near_text !== undefined ? ` next to ${quote(edit.near_text, 40)}` : ''
  return {
    kind: 'planned',
    index,
    page: edit.page,
    // A sticky note is first saved by pdf.js as a colourless free text carrying a marker: pdf.js
    // gives it an object number and lists it in the page's /Annots; that object is then redefined
    // as the Text annotation (pdf-incremental.ts).
    value: {
      annotationType: 3, // AnnotationEditorType.FREETEXT
      pageIndex: edit.page - 1,
      rect,
      rotation: page.rotate,
      structTreeParentId: null,
      popupRef: '',
      color: rgb(sticky ? DEFAULT_FREE_TEXT : color),
      fontSize: FREE_TEXT_SIZE,
      value: sticky ? marker : value,
    },
    created: { type: 'freetext', rect },
    sticky: sticky
      ? { text: edit.text, color, rect, marker, pageRef: `${page.ref?.num ?? 0} ${page.ref?.gen ?? 0} R` }
      : null,
    describe: (id) =>
      `page ${edit.page}: added a ${sticky ? 'sticky' : 'free-text'} note ${quote(edit.text)}${where}${id ? ` (${id})` : ''}`,
  }
}

/** Finds existing annotations by id, reading pages only as far as needed. */
class AnnotationIndex {
  private readonly byId = new Map<string, PdfAnnotationEntry>()
  private read = 0

  constructor(
    private readonly doc: PDFDocumentProxy,
    private readonly budget: PdfBudget,
  ) {}

  async find(
    id: string,
  ): Promise<{ kind: 'found'; entry: PdfAnnotationEntry } | { kind: 'missing'; searchedAll: boolean; pages: number }> {
    const last = Math.min(this.doc.numPages, REMOVE_SEARCH_MAX_PAGES)
    // An id like p3.a2 names its page: only that page needs reading.
    const pageOfId = /^p(\d+)\.a\d+$/u.exec(id)
    if (pageOfId) {
      const page = Number(pageOfId[1])
      if (page >= 1 && page <= this.doc.numPages) await this.readPage(page)
    }
    while (!this.byId.has(id) && this.read < last) {
      this.budget.check()
      await this.readPage(++this.read)
    }
    const entry = this.byId.get(id)
    return entry ? { kind: 'found', entry } : { kind: 'missing', searchedAll: last === this.doc.numPages, pages: last }
  }

  private async readPage(number: number): Promise<void> {
    const page = await this.budget.run(this.doc.getPage(number))
    // No text needed: a removal names the annotation by id, not by the words under it.
    for (const entry of await pageAnnotations(page, number, [], this.budget)) this.byId.set(entry.info.id, entry)
  }
}

/**
 * After pdf.js's save: reopen the result (it must load, or nothing is returned), name the new
 * annotations by their object numbers, and turn sticky stand-ins into Text annotations.
 */
async function finish(saved: Uint8Array, planned: readonly Planned[], budget: PdfBudget): Promise<DocumentEditOutcome> {
  const reloaded = await loadPdf(saved, budget)
  if (reloaded.kind === 'refused') {
    return refuse('damaged', `the annotated PDF does not reopen: ${reloaded.message}`, null)
  }
  const ids = new Map<number, string>()
  const replaced: ReplacedObject[] = []
  const now = new Date()
  try {
    const taken = new Set<string>()
    const byPage = new Map<number, PdfAnnotationEntry[]>()
    for (const plan of planned) {
      if (!plan.created) continue
      let entries = byPage.get(plan.page)
      if (!entries) {
        const page = await budget.run(reloaded.doc.getPage(plan.page))
        entries = await pageAnnotations(page, plan.page, [], budget)
        byPage.set(plan.page, entries)
      }
      const match = plan.sticky
        ? entries.find((e) => e.info.contents === plan.sticky?.marker)
        : entries.find(
            (e) =>
              !taken.has(e.info.id) &&
              e.info.type === plan.created?.type &&
              e.info.rect.every((v, k) => Math.abs(v - (plan.created?.rect[k] ?? 0)) < 1),
          )
      if (!match?.linked) continue
      taken.add(match.info.id)
      ids.set(plan.index, match.info.id)
      if (plan.sticky) {
        const { text, color, rect, pageRef } = plan.sticky
        const [r, g, b] = rgb(color).map((c) => Math.round((c / 255) * 1000) / 1000)
        replaced.push({
          num: Number.parseInt(match.info.id, 10),
          gen: 0,
          body:
            `<< /Type /Annot /Subtype /Text /Name /Comment /Rect [${rect.map((v) => Math.round(v * 100) / 100).join(' ')}] ` +
            `/Contents ${pdfTextString(text)} /C [${r} ${g} ${b}] /F 28 /P ${pageRef} ` +
            `/CreationDate ${pdfDate(now)} /M ${pdfDate(now)} >>`,
        })
      }
    }
  } finally {
    await reloaded.close()
  }
  let bytes = saved
  const stickies = planned.filter((p) => p.sticky)
  if (stickies.length > 0) {
    if (replaced.length !== stickies.length) {
      return refuse(
        'unsupported-content',
        'pdf.js did not save the sticky note as an object of its own',
        stickies[0]?.index ?? null,
      )
    }
    const appended = appendObjects(saved, replaced)
    if (appended.kind === 'unsupported') {
      const reason = appended.message.includes('encrypted') ? 'encrypted' : 'unsupported-content'
      return refuse(
        reason,
        `a sticky note cannot be added: ${appended.message}; a free_text note can`,
        stickies[0]?.index ?? null,
      )
    }
    // The hand-written update must reopen as well as pdf.js's own did.
    const check = await loadPdf(appended.bytes, budget)
    if (check.kind === 'refused') return refuse('damaged', `the annotated PDF does not reopen: ${check.message}`, null)
    await check.close()
    bytes = appended.bytes
  }
  return { kind: 'ok', bytes, summary: planned.map((plan) => plan.describe(ids.get(plan.index) ?? null)) }
}
