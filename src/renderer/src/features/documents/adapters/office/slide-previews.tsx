import DOMPurify from 'dompurify'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { openPackage } from '../../../../../../shared/office'
import './office.css'

/** The preview's width in CSS pixels; its height follows the deck's own slide size. */
export const PREVIEW_WIDTH = 720

/** Each slide's preview HTML (sanitised), in slide order, and the height they share at `PREVIEW_WIDTH`. */
export interface SlidePreviews {
  readonly html: readonly string[]
  readonly height: number
}

/**
 * The built-in slide rendering (`@jvmr/pptx-to-html`, MIT: approximate) of every slide of a deck,
 * for the slide editor and for Review's before/after thumbnails. Its own chunk; a deck it cannot
 * draw gives no previews (`html` empty) rather than an error.
 */
export async function loadSlidePreviews(bytes: Uint8Array): Promise<SlidePreviews> {
  try {
    const [{ pptxToHtml }, height] = await Promise.all([import('@jvmr/pptx-to-html'), previewHeight(bytes)])
    const html = await pptxToHtml(bytes.slice().buffer, {
      width: PREVIEW_WIDTH,
      height,
      scaleToFit: true,
      letterbox: false,
    })
    return { html: html.map((slide) => sanitize(slide)), height }
  } catch {
    return { html: [], height: 0 }
  }
}

/** Height for `PREVIEW_WIDTH` from `p:sldSz` (4:3, 16:9 or custom); 16:9 when it cannot be read. */
async function previewHeight(bytes: Uint8Array): Promise<number> {
  try {
    const xml = await (await openPackage(bytes)).text('ppt/presentation.xml')
    const size = /<p:sldSz\b[^>]*\bcx="(\d+)"[^>]*\bcy="(\d+)"/.exec(xml)
    const cx = Number(size?.[1])
    const cy = Number(size?.[2])
    if (cx > 0 && cy > 0) return Math.round((PREVIEW_WIDTH * cy) / cx)
  } catch {
    // fall through to 16:9
  }
  return Math.round((PREVIEW_WIDTH * 9) / 16)
}

function sanitize(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: [
      'style',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'object',
      'embed',
      'link',
      'meta',
    ],
    // Pictures stay embedded (data: URIs from the package); nothing may be fetched from elsewhere.
    ALLOWED_URI_REGEXP: /^data:image\//i,
  })
}

/**
 * Shows a fixed-size preview whole in a narrower pane: scaled down (never up) to the width it is
 * given, so a slide in an 800 px window is seen entirely rather than cut at its right edge.
 */
export function FitToWidth(props: { width: number; height: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null)
  const [scale, setScale] = useState(1)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const observer = new ResizeObserver(() => {
      const available = element.clientWidth
      setScale(available > 0 ? Math.min(1, available / props.width) : 1)
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [props.width])
  return (
    <div ref={box} className="slide-preview-fit" style={{ height: Math.ceil(props.height * scale) }}>
      <div style={{ transform: `scale(${scale})`, transformOrigin: 'top left', width: props.width }}>
        {props.children}
      </div>
    </div>
  )
}

/**
 * One slide's preview drawn small (Review's before/after of a changed slide): the same inert,
 * sanitised HTML as the editor's preview, scaled to `width`. A slide the renderer could not draw
 * is a blank frame of the same shape, so before and after still line up.
 */
export function SlideThumbnail(props: { previews: SlidePreviews; index: number; label: string; width: number }) {
  const { previews, width } = props
  const height = previews.height > 0 ? previews.height : Math.round((PREVIEW_WIDTH * 9) / 16)
  const scale = width / PREVIEW_WIDTH
  return (
    <div
      className="slide-thumbnail"
      role="img"
      aria-label={props.label}
      style={{ width, height: Math.ceil(height * scale), overflow: 'hidden' }}
    >
      <div
        className="slide-preview"
        inert
        style={{ width: PREVIEW_WIDTH, height, transform: `scale(${scale})`, transformOrigin: 'top left' }}
        // Sanitised by loadSlidePreviews; inert and without scripts by the app's CSP as well.
        dangerouslySetInnerHTML={{ __html: previews.html[props.index - 1] ?? '' }}
      />
    </div>
  )
}
