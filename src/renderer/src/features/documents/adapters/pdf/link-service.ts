import type { PdfjsLib, PdfjsViewer } from './pdfjs'

type PDFDocumentProxy = PdfjsLib.PDFDocumentProxy
type PDFViewer = PdfjsViewer.PDFViewer

/**
 * pdf.js's link service, except where a destination leads: pdf.js also moves the focus to the
 * target page's text layer once that layer is drawn, and when the page was already drawn that wait
 * outlives the jump — the next redraw (a zoom) focuses the old page and scrolls back to it. Here a
 * destination only scrolls.
 */
export function readerLinkService(components: typeof PdfjsViewer) {
  return class ReaderLinkService extends components.PDFLinkService {
    override async goToDestination(dest: string | unknown[]): Promise<void> {
      const pdf = this.pdfDocument as PDFDocumentProxy | null
      const viewer = this.pdfViewer as PDFViewer | null
      if (!pdf || !viewer) return
      const explicit = typeof dest === 'string' ? await pdf.getDestination(dest) : dest
      if (!Array.isArray(explicit)) return
      const [target] = explicit as [unknown]
      let pageNumber: number | null = null
      if (target && typeof target === 'object') {
        const ref = target as { num: number; gen: number }
        pageNumber = pdf.cachedPageNumber(ref) ?? null
        if (!pageNumber) {
          try {
            pageNumber = (await pdf.getPageIndex(ref)) + 1
          } catch {
            return
          }
        }
      } else if (Number.isInteger(target)) {
        pageNumber = (target as number) + 1
      }
      if (!pageNumber || pageNumber < 1 || pageNumber > viewer.pagesCount) return
      viewer.scrollPageIntoView({ pageNumber, destArray: explicit } as Parameters<PDFViewer['scrollPageIntoView']>[0])
    }
  }
}
