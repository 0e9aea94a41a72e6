import type { PdfjsLib } from './pdfjs'

/** CSS width of a thumbnail in the 180 px sidebar. */
export const THUMBNAIL_WIDTH = 120
/** At most this many thumbnails hold pixels at once; the rest are placeholders (a 500-page file stays small). */
export const MAX_RENDERED_THUMBNAILS = 40
/** Height ÷ width is clamped so a strip or a banner page cannot make a huge or invisible thumbnail. */
const MIN_ASPECT = 0.2
const MAX_ASPECT = 3

export const clampAspect = (aspect: number) =>
  Number.isFinite(aspect) && aspect > 0 ? Math.min(MAX_ASPECT, Math.max(MIN_ASPECT, aspect)) : 1.294

/**
 * Draws page thumbnails on demand, one at a time, for the pages that are on screen, and keeps
 * only the most recently needed ones: each drawn thumbnail is a small canvas, and the oldest is
 * released when the cap is reached. Nothing is drawn for pages never scrolled to.
 */
export class ThumbnailRenderer {
  private readonly canvases = new Map<number, HTMLCanvasElement>()
  private readonly wanted = new Set<number>()
  private readonly listeners = new Set<(page: number) => void>()
  private running = false
  private disposed = false

  constructor(private readonly document: PdfjsLib.PDFDocumentProxy) {}

  /** The drawn canvas of `page`, if it is still held. */
  canvas(page: number): HTMLCanvasElement | undefined {
    const canvas = this.canvases.get(page)
    if (canvas) {
      // Most recently used last: the first entry is the one released next.
      this.canvases.delete(page)
      this.canvases.set(page, canvas)
    }
    return canvas
  }

  get renderedCount(): number {
    return this.canvases.size
  }

  onRendered(listener: (page: number) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** `page` is on screen (or not any more): draw it when its turn comes. */
  want(page: number, visible: boolean) {
    if (visible) this.wanted.add(page)
    else this.wanted.delete(page)
    if (visible && !this.canvases.has(page)) void this.pump()
  }

  private async pump() {
    if (this.running) return
    this.running = true
    try {
      for (;;) {
        if (this.disposed) return
        const next = [...this.wanted].find((page) => !this.canvases.has(page))
        if (next === undefined) return
        await this.draw(next)
      }
    } finally {
      this.running = false
    }
  }

  private async draw(pageNumber: number) {
    let canvas: HTMLCanvasElement
    try {
      const page = await this.document.getPage(pageNumber)
      const base = page.getViewport({ scale: 1 })
      const ratio = Math.min(2, window.devicePixelRatio || 1)
      const width = THUMBNAIL_WIDTH * ratio
      const scale = width / base.width
      const height = Math.round(width * clampAspect(base.height / base.width))
      const viewport = page.getViewport({ scale })
      canvas = document.createElement('canvas')
      canvas.width = Math.round(width)
      canvas.height = height
      await page.render({ canvas, viewport }).promise
    } catch {
      // A page that cannot be drawn keeps its placeholder (its number still shows).
      this.wanted.delete(pageNumber)
      return
    }
    if (this.disposed) return
    this.canvases.set(pageNumber, canvas)
    while (this.canvases.size > MAX_RENDERED_THUMBNAILS) {
      // Thumbnails on screen are never released (only ~a dozen fit in the sidebar at once).
      const oldest = [...this.canvases.keys()].find((page) => !this.wanted.has(page))
      if (oldest === undefined) break
      const released = this.canvases.get(oldest)
      this.canvases.delete(oldest)
      if (released) {
        // Give the pixels back now rather than when the element is collected.
        released.width = 0
        released.height = 0
        released.remove()
      }
      for (const listener of this.listeners) listener(oldest)
    }
    for (const listener of this.listeners) listener(pageNumber)
  }

  dispose() {
    this.disposed = true
    for (const canvas of this.canvases.values()) {
      canvas.width = 0
      canvas.height = 0
    }
    this.canvases.clear()
    this.listeners.clear()
  }
}
