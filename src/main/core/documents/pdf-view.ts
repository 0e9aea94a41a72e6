import {
  DOCUMENT_READ_MAX_CHARS,
  type DocumentReadOutcome,
  type DocumentReadRequest,
} from '../../../shared/office/document-edits'
import { annotationLine, pageAnnotations } from './pdf-annotations'
import { loadPdf, PdfBudget, refusalOf } from './pdf-load'
import { pageText, pageTextItems } from './pdf-text'

/** Pages one read shows when the request names no limit, and the most it may ask for. */
export const PDF_VIEW_DEFAULT_PAGES = 20
export const PDF_VIEW_MAX_PAGES = 200

/** The text view `read` gives the model for a PDF: pages' text and existing annotations with ids (issue 26). */
export async function readPdfView(bytes: Uint8Array, request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  const budget = new PdfBudget()
  const loaded = await loadPdf(bytes, budget)
  if (loaded.kind === 'refused') {
    return { kind: 'refused', reason: loaded.reason, message: loaded.message, edit_index: null }
  }
  const { doc } = loaded
  try {
    const pageCount = doc.numPages
    const first = Math.max(1, Math.floor(request.offset ?? 1))
    const limit = Math.min(PDF_VIEW_MAX_PAGES, Math.max(1, Math.floor(request.limit ?? PDF_VIEW_DEFAULT_PAGES)))
    const title = await documentTitle(doc, budget)
    const header = `PDF: ${pageCount} page${pageCount === 1 ? '' : 's'}${title ? `, title "${title}"` : ''}`
    const out: string[] = [header]
    let size = header.length
    if (first > pageCount) {
      out.push(`(offset ${first} is past the last page, ${pageCount})`)
      return { kind: 'ok', text: out.join('\n') }
    }
    const last = Math.min(pageCount, first + limit - 1)
    for (let number = first; number <= last; number++) {
      budget.check()
      const page = await budget.run(doc.getPage(number))
      const items = await pageTextItems(page, budget)
      const annotations = await pageAnnotations(page, number, items, budget)
      const text = pageText(items)
      const block = [
        `--- page ${number} ---`,
        text === '' ? '(no text on this page: a scanned or drawn page)' : text,
        ...annotations.map((entry) => annotationLine(entry.info)),
      ].join('\n')
      page.cleanup()
      if (size + block.length + 1 > DOCUMENT_READ_MAX_CHARS) {
        // A page that alone overflows is cut, so a read always moves forward.
        if (number === first) out.push(block.slice(0, DOCUMENT_READ_MAX_CHARS - size - 200))
        const next = number === first ? number + 1 : number
        out.push(
          `[output limit of ${DOCUMENT_READ_MAX_CHARS} characters reached${number === first ? ` inside page ${number}` : ''}` +
            (next <= pageCount ? `; read on with offset ${next}]` : ']'),
        )
        return { kind: 'ok', text: out.join('\n') }
      }
      out.push(block)
      size += block.length + 1
    }
    if (last < pageCount) out.push(`[pages ${last + 1}–${pageCount} not shown; read on with offset ${last + 1}]`)
    return { kind: 'ok', text: out.join('\n') }
  } catch (error) {
    return { kind: 'refused', ...refusalOf(error), edit_index: null }
  } finally {
    await loaded.close()
  }
}

async function documentTitle(
  doc: { getMetadata: () => Promise<{ info: unknown }> },
  budget: PdfBudget,
): Promise<string | null> {
  try {
    const { info } = await budget.run(doc.getMetadata())
    const title = (info as { Title?: unknown } | null)?.Title
    return typeof title === 'string' && title.trim() !== '' ? title.trim().slice(0, 300) : null
  } catch {
    // Metadata is optional; a broken Info dictionary does not stop the read.
    return null
  }
}
