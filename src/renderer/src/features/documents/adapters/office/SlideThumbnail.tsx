import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import { readSlideTexts } from '../../../../../../shared/office'
import { loadPdfjs, type PdfjsLib } from '../pdf/pdfjs'
import { documentParams } from '../pdf/pdfjs-setup'
import { fitSlideText } from './slide-editor/fit-text'
import { pdfPageForSlide, sanitizeSlide, slideHeight } from './slide-render'

/** The approximate renderer lays a slide out at the slide view's width; a thumbnail scales it down. */
const LAYOUT_WIDTH = 720

type RenderedDeck = { readonly html: readonly string[]; readonly height: number }

// One conversion per recorded version, whichever and however many of its slides are shown: the
// renderer converts the whole deck at once. Keyed by the bytes object, so a dropped version frees it.
const decks = new WeakMap<Uint8Array, Promise<RenderedDeck>>()

function renderDeck(bytes: Uint8Array): Promise<RenderedDeck> {
  let deck = decks.get(bytes)
  if (!deck) {
    deck = Promise.all([import('@jvmr/pptx-to-html'), slideHeight(bytes, LAYOUT_WIDTH)]).then(
      async ([{ pptxToHtml }, height]) => ({
        html: (
          await pptxToHtml(bytes.slice().buffer, { width: LAYOUT_WIDTH, height, scaleToFit: true, letterbox: false })
        ).map(sanitizeSlide),
        height,
      }),
    )
    decks.set(bytes, deck)
  }
  return deck
}

/**
 * One slide of a deck, small and read-only (Review's before/after of a changed slide): the same
 * approximate rendering as the slide view, sanitised and inert, text fitted as there, scaled to
 * `width`. Never editable: it has no editing layer and takes no focus.
 */
export function SlideThumbnail(props: { bytes: Uint8Array; slide: number; width: number; label: string }) {
  const [deck, setDeck] = useState<RenderedDeck | 'failed' | null>(null)
  const [element, setElement] = useState<HTMLDivElement | null>(null)
  useEffect(() => {
    let live = true
    renderDeck(props.bytes).then(
      (rendered) => live && setDeck(rendered),
      () => live && setDeck('failed'),
    )
    return () => {
      live = false
    }
  }, [props.bytes])
  const html = deck !== null && deck !== 'failed' ? (deck.html[props.slide - 1] ?? null) : null
  useLayoutEffect(() => {
    if (element && html !== null) fitSlideText(element)
  }, [element, html])
  const scale = props.width / LAYOUT_WIDTH
  const height = deck !== null && deck !== 'failed' ? deck.height : Math.round((LAYOUT_WIDTH * 9) / 16)
  return (
    <div
      className="slide-thumbnail"
      role="img"
      aria-label={props.label}
      data-state={deck === null ? 'loading' : html === null ? 'failed' : 'shown'}
      // Styled here: the thumbnail is shown outside the Office view, whose stylesheet may not be loaded.
      style={{
        width: props.width,
        height: Math.round(height * scale),
        overflow: 'hidden',
        background: '#fff',
        color: '#000',
        border: '1px solid var(--border, #ccc)',
      }}
    >
      {html !== null && (
        <div style={{ transform: `scale(${scale})`, transformOrigin: 'top left', width: LAYOUT_WIDTH }}>
          <div
            ref={setElement}
            className="slide-preview"
            inert
            aria-hidden
            style={{ position: 'relative', overflow: 'hidden', width: LAYOUT_WIDTH, height }}
            // Sanitised in renderDeck; inert and without scripts by the app's CSP as well.
            dangerouslySetInnerHTML={{ __html: html }}
          />
        </div>
      )}
    </div>
  )
}

const pdfDocuments = new WeakMap<Uint8Array, Promise<PdfjsLib.PDFDocumentProxy>>()

function openPdf(bytes: Uint8Array): Promise<PdfjsLib.PDFDocumentProxy> {
  let opened = pdfDocuments.get(bytes)
  if (!opened) {
    opened = loadPdfjs().then((pdfjs) => pdfjs.lib.getDocument(documentParams(pdfjs, bytes)).promise)
    pdfDocuments.set(bytes, opened)
  }
  return opened
}

/**
 * Page `page` of a PDF drawn once into a small canvas (Review: LibreOffice's rendering of a
 * deck, page N being slide N). A page the PDF does not have shows as an empty frame.
 */
export function PdfPageThumbnail(props: { pdf: Uint8Array; page: number; width: number; label: string }) {
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const [state, setState] = useState<'loading' | 'shown' | 'failed'>('loading')
  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    let live = true
    void (async () => {
      try {
        const document = await openPdf(props.pdf)
        if (props.page < 1 || props.page > document.numPages) throw new Error('no such page')
        const page = await document.getPage(props.page)
        const base = page.getViewport({ scale: 1 })
        const ratio = Math.min(2, window.devicePixelRatio || 1)
        const viewport = page.getViewport({ scale: (props.width * ratio) / base.width })
        if (!live) return
        canvas.width = Math.round(viewport.width)
        canvas.height = Math.round(viewport.height)
        canvas.style.width = `${props.width}px`
        await page.render({ canvas, viewport }).promise
        if (live) setState('shown')
      } catch {
        if (live) setState('failed')
      }
    })()
    return () => {
      live = false
    }
  }, [props.pdf, props.page, props.width])
  return (
    <canvas
      ref={canvasRef}
      className="slide-thumbnail"
      role="img"
      aria-label={props.label}
      data-state={state}
      style={{ width: props.width, border: '1px solid var(--border, #ccc)', background: '#fff' }}
    />
  )
}

const hiddenSlides = new WeakMap<Uint8Array, Promise<readonly boolean[]>>()

async function pdfPageOf(deck: Uint8Array, slide: number): Promise<number | null> {
  let hidden = hiddenSlides.get(deck)
  if (!hidden) {
    hidden = readSlideTexts(deck).then((slides) => slides.map((entry) => entry.hidden))
    hiddenSlides.set(deck, hidden)
  }
  return pdfPageForSlide(await hidden, slide)
}

/**
 * A slide of a recorded deck version: LibreOffice's page of it when `pdf` (that version's pages)
 * is given and the slide has one, else the built-in approximate rendering.
 */
export function DeckSlideThumbnail(props: {
  deck: Uint8Array
  pdf: Uint8Array | null
  slide: number
  width: number
  label: string
}) {
  const { deck, pdf, slide } = props
  const [page, setPage] = useState<{ pdf: Uint8Array; number: number | null } | null>(null)
  useEffect(() => {
    if (!pdf) return
    let live = true
    pdfPageOf(deck, slide).then(
      (number) => live && setPage({ pdf, number }),
      () => live && setPage({ pdf, number: null }),
    )
    return () => {
      live = false
    }
  }, [deck, pdf, slide])
  if (pdf && page?.pdf === pdf && page.number !== null)
    return <PdfPageThumbnail pdf={pdf} page={page.number} width={props.width} label={props.label} />
  return <SlideThumbnail bytes={deck} slide={slide} width={props.width} label={props.label} />
}
