import { bindZoomInput, onResize } from '../zoom-input'
import type { PdfjsViewer } from './pdfjs'

type PDFViewer = PdfjsViewer.PDFViewer

/** pdf.js's zoom values that follow the pane's size. */
const FITS = new Set(['page-width', 'page-fit', 'auto'])
/** How long pdf.js keeps scaling the drawn canvas before it redraws at a pinch's new zoom. */
const PINCH_REDRAW_DELAY_MS = 400

export interface ReaderZoomTarget {
  readonly container: HTMLElement
  readonly frame: () => HTMLElement
  readonly viewer: () => PDFViewer | null
  /** The zoom as the toolbar shows it (a preset name or a number as text). */
  readonly scaleValue: () => string
  /**
   * Where Ctrl+0 goes: the zoom a reader opens at (Fit width, or Fit page in a compact reader),
   * as pdf.js's own viewer goes back to its default zoom rather than to 100 %.
   */
  readonly initialFit: string
  readonly signal: AbortSignal
}

/**
 * The reader's zoom keys and Ctrl+wheel / pinch (zooming around the pointer, as pdf.js's viewer
 * does), and Fit width / Fit page applied again whenever the pages' pane changes size — pdf.js's
 * PDFViewer computes a fit once, when it is chosen (its full viewer app refits on window resize,
 * which a pane inside the app never sees).
 */
export function bindReaderZoom(target: ReaderZoomTarget): void {
  bindZoomInput({
    frame: target.frame,
    surface: target.container,
    signal: target.signal,
    onCommand: (command) => {
      const viewer = target.viewer()
      if (!viewer) return
      if (command.kind === 'in') viewer.increaseScale()
      else if (command.kind === 'out') viewer.decreaseScale()
      else viewer.currentScaleValue = target.initialFit
    },
    onWheel: (zoom) => {
      const viewer = target.viewer()
      if (!viewer) return
      const origin = [zoom.clientX, zoom.clientY]
      if (zoom.kind === 'steps') viewer.updateScale({ steps: zoom.steps, origin })
      else viewer.updateScale({ scaleFactor: zoom.factor, origin, drawingDelay: PINCH_REDRAW_DELAY_MS })
    },
  })
  onResize(
    target.container,
    () => {
      const viewer = target.viewer()
      const value = target.scaleValue()
      if (viewer && viewer.pagesCount > 0 && FITS.has(value)) viewer.currentScaleValue = value
    },
    target.signal,
  )
}
