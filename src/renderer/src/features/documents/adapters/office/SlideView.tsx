import DOMPurify from 'dompurify'
import { useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react'
import { editSlideText, openPackage, readSlideTexts, type SlideText } from '../../../../../../shared/office'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeSession } from './session'

const COMMIT_DELAY_MS = 600
/** The preview's width in CSS pixels; its height follows the deck's own slide size. */
const PREVIEW_WIDTH = 720

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

/**
 * PPTX: an approximate slide preview (`@jvmr/pptx-to-html`, MIT — the cleanest of the measured
 * renderers, still approximate, so it says so) and the slide's text boxes as plain fields. A text
 * edit goes through the shared patcher: only that slide part changes, every other part stays
 * byte-identical. The preview HTML comes from the file, so it is sanitised (DOMPurify) and shown
 * inert: no script, no handler, no focus, no link can act from it.
 */
export function SlideView(props: { session: OfficeSession; readOnly: boolean }) {
  const { t } = useI18n()
  const { session } = props
  const bytes = useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.bytes,
  )
  const [slides, setSlides] = useState<SlideText[] | null>(null)
  const [previews, setPreviews] = useState<{ html: string[]; height: number } | null>(null)
  const [current, setCurrent] = useState(1)
  const [failed, setFailed] = useState<string | null>(null)

  useEffect(() => {
    let cancelled = false
    readSlideTexts(bytes).then(
      (list) => !cancelled && setSlides(list),
      (error: unknown) => !cancelled && setFailed(String(error)),
    )
    // The renderer is its own chunk and only approximate: a failure leaves the text editable.
    void Promise.all([import('@jvmr/pptx-to-html'), previewHeight(bytes)])
      .then(async ([{ pptxToHtml }, height]) => ({
        html: await pptxToHtml(bytes.slice().buffer, {
          width: PREVIEW_WIDTH,
          height,
          scaleToFit: true,
          letterbox: false,
        }),
        height,
      }))
      .then(
        ({ html, height }) => !cancelled && setPreviews({ html: html.map((slide) => sanitize(slide)), height }),
        () => !cancelled && setPreviews({ html: [], height: 0 }),
      )
    return () => {
      cancelled = true
    }
  }, [bytes])

  if (failed !== null) {
    return <ErrorLine className="viewer-note viewer-error" message={`${t('office.corrupt')} ${failed}`} />
  }
  if (!slides) return <p className="viewer-note">{t('office.reading')}</p>
  const slide = slides.find((s) => s.index === current) ?? slides[0]

  return (
    <div className="slide-view" data-testid="office-slides">
      <nav className="slide-list" aria-label={t('office.slides')}>
        {slides.map((s) => (
          <button
            key={s.index}
            type="button"
            aria-current={s.index === slide?.index ? 'true' : undefined}
            onClick={() => setCurrent(s.index)}
          >
            {t('office.slideNumber', { number: s.index })}
            {s.hidden ? ` · ${t('office.hiddenSlide')}` : ''}
          </button>
        ))}
      </nav>
      {slide && (
        <div className="slide-main">
          <figure className="slide-preview-frame">
            <figcaption>
              <span className="badge">{t('office.approximate')}</span> {t('office.slidePreviewNote')}
            </figcaption>
            <FitToWidth width={PREVIEW_WIDTH} height={previews?.height ?? Math.round((PREVIEW_WIDTH * 9) / 16)}>
              <div
                className="slide-preview"
                data-testid="slide-preview"
                role="img"
                aria-label={t('office.slidePreview', { number: slide.index })}
                inert
                style={{ width: PREVIEW_WIDTH, height: previews?.height ?? Math.round((PREVIEW_WIDTH * 9) / 16) }}
                // Sanitised above; inert and without scripts by the app's CSP as well.
                dangerouslySetInnerHTML={{ __html: previews?.html[slide.index - 1] ?? '' }}
              />
            </FitToWidth>
          </figure>
          <section className="slide-texts" aria-label={t('office.slideTexts', { number: slide.index })}>
            {slide.shapes.length === 0 && <p className="viewer-note">{t('office.noSlideText')}</p>}
            {slide.shapes.map((shape) => (
              <ShapeField
                key={`${slide.index}:${shape.id}`}
                label={t('office.shapeText', { name: shape.name || shape.id })}
                value={shape.paragraphs.join('\n')}
                readOnly={props.readOnly}
                session={session}
                onCommit={(text) =>
                  session.edit(async (before) => {
                    const outcome = await editSlideText(before, {
                      slide: slide.index,
                      shapeId: shape.id,
                      paragraphs: text.split('\n'),
                    })
                    return outcome.kind === 'ok' && outcome.changedParts.length > 0 ? outcome.bytes : null
                  })
                }
              />
            ))}
          </section>
        </div>
      )}
    </div>
  )
}

/** One text box: paragraphs are lines. Typing commits after a pause, and on leaving the field. */
function ShapeField(props: {
  label: string
  value: string
  readOnly: boolean
  session: OfficeSession
  onCommit: (text: string) => Promise<void>
}) {
  const [text, setText] = useState(props.value)
  const committed = useRef(props.value)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const latest = useRef(text)
  useEffect(() => {
    latest.current = text
  })
  const { onCommit } = props
  const flush = () => {
    if (timer.current) clearTimeout(timer.current)
    timer.current = null
    if (latest.current === committed.current) return
    committed.current = latest.current
    void onCommit(latest.current)
  }
  // Leaving the slide, an export or closing the tab commits what was typed.
  const flushRef = useRef(flush)
  useEffect(() => {
    flushRef.current = flush
  })
  useEffect(() => {
    const off = props.session.onFlush(() => flushRef.current())
    return () => {
      off()
      flushRef.current()
    }
  }, [props.session])
  useEffect(() => {
    // The file changed on disk (not by this field): show its text.
    if (props.value !== committed.current && timer.current === null) {
      committed.current = props.value
      setText(props.value)
    }
  }, [props.value])
  return (
    <label className="slide-text-field">
      <span>{props.label}</span>
      <textarea
        aria-label={props.label}
        value={text}
        readOnly={props.readOnly}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        onChange={(event) => {
          setText(event.target.value)
          if (timer.current) clearTimeout(timer.current)
          timer.current = setTimeout(flush, COMMIT_DELAY_MS)
        }}
        onBlur={flush}
      />
    </label>
  )
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
function FitToWidth(props: { width: number; height: number; children: ReactNode }) {
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
