import { readerLinkService } from './link-service'
import type { Pdfjs, PdfjsLib, PdfjsViewer } from './pdfjs'
import { HIGHLIGHT_COLORS, MAX_CANVAS_DIM, MAX_CANVAS_PIXELS } from './reader-state'

/** How the reader sets up pdf.js: the loading task's parameters and the viewer's components. */

/** The parameters of `getDocument` for one document's bytes, with the assets staged beside pdf.js. */
export function documentParams(pdfjs: Pdfjs, bytes: Uint8Array): Parameters<typeof PdfjsLib.getDocument>[0] {
  const url = (folder: string) => new URL(`${folder}/`, pdfjs.assets).href
  return {
    // getDocument detaches the buffer it is given: the original stays ours (Download, undo-all).
    data: bytes.slice(),
    cMapUrl: url('cmaps'),
    cMapPacked: true,
    standardFontDataUrl: url('standard_fonts'),
    wasmUrl: url('wasm'),
    iccUrl: url('iccs'),
    enableXfa: false,
    stopAtErrors: false,
    maxImageSize: MAX_CANVAS_PIXELS * 4,
    canvasMaxAreaInBytes: MAX_CANVAS_PIXELS * 4,
  }
}

export interface ViewerComponents {
  readonly eventBus: PdfjsViewer.EventBus
  readonly linkService: PdfjsViewer.PDFLinkService
  readonly findController: PdfjsViewer.PDFFindController
  readonly viewer: PdfjsViewer.PDFViewer
}

/** pdf.js's viewer components for one reader, linked to each other; no document is set yet. */
export function createViewerComponents(
  pdfjs: Pdfjs,
  host: { container: HTMLDivElement; viewerElement: HTMLDivElement; editable: boolean; signal: AbortSignal },
): ViewerComponents {
  const { lib, viewer: components } = pdfjs
  const eventBus = new components.EventBus()
  const linkService = new (readerLinkService(components))({
    eventBus,
    externalLinkTarget: components.LinkTarget.BLANK,
    externalLinkRel: 'noopener noreferrer nofollow',
  })
  const findController = new components.PDFFindController({ eventBus, linkService })
  const viewer = new components.PDFViewer({
    container: host.container,
    viewer: host.viewerElement,
    eventBus,
    linkService,
    findController,
    // Forms are shown as drawn, not filled in: the reader edits highlights and notes only.
    annotationMode: lib.AnnotationMode.ENABLE,
    annotationEditorMode: host.editable ? lib.AnnotationEditorType.NONE : lib.AnnotationEditorType.DISABLE,
    annotationEditorHighlightColors: HIGHLIGHT_COLORS.map((c) => `${c.name}=${c.value}`).join(','),
    maxCanvasPixels: MAX_CANVAS_PIXELS,
    maxCanvasDim: MAX_CANVAS_DIM,
    // Pages get a shadow on the canvas instead of pdf.js's transparent 9 px border.
    removePageBorders: true,
    // The icons of sticky notes and other annotations, staged with pdf.js (a 404 without it).
    imageResourcesPath: new URL('images/', pdfjs.assets).href,
    enableAutoLinking: true,
    abortSignal: host.signal,
  } as ConstructorParameters<typeof components.PDFViewer>[0])
  linkService.setViewer(viewer)
  return { eventBus, linkService, findController, viewer }
}

/** Marks a page pdf.js drew, and its canvas, for Review's previews and tests to find. */
export function markPageDrawn(pageDiv: HTMLElement): void {
  pageDiv.dataset.rendered = 'true'
  const canvas = pageDiv.querySelector<HTMLCanvasElement>('.canvasWrapper canvas')
  if (canvas) {
    canvas.dataset.testid = 'pdf-page'
    canvas.dataset.rendered = 'true'
  }
}
