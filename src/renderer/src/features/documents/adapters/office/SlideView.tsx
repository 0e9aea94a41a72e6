import { useCallback, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react'
import {
  editPptx,
  editSlideNotes,
  editSlideText,
  readShapeFrames,
  readSlideNotes,
  readSlideTexts,
  setShapeFrame,
  LINE_BREAK,
  type SlideFrames,
  type SlideText,
} from '../../../../../../shared/office'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeSession } from './session'
import { fitSlideText } from './slide-editor/fit-text'
import { sanitizeSlide, slideHeight } from './slide-render'
import { SlideCanvas } from './slide-editor/SlideCanvas'
import { SlideList, type SlideOperation } from './slide-editor/SlideList'
import { FIELD_BREAK, fieldParagraphs, fieldValue } from './slide-editor/text-editing'

const COMMIT_DELAY_MS = 600
/** The preview's width in CSS pixels; its height follows the deck's own slide size. */
const PREVIEW_WIDTH = 720
/** Ctrl+Z steps kept for slide operations, moves and on-slide text edits (whole decks, so few). */
const UNDO_DEPTH = 20

interface Deck {
  readonly slides: SlideText[]
  readonly notes: string[][]
}

/**
 * PPTX: the slide is the editor (issue 27). The approximate rendering (`@jvmr/pptx-to-html`, MIT;
 * sanitised with DOMPurify and inert: nothing in it can act) is drawn with every text box fitted
 * so no line is clipped, and an editing layer over it in the same coordinates lets a person select,
 * move, resize and type into shapes in place (`SlideCanvas`). The slide list adds, duplicates,
 * deletes and moves slides (`editPptx`: all or nothing, every untouched part byte-identical), and
 * speaker notes are edited under the slide. Each save goes through the session like every Office
 * save, so it is in History (one version per editing session, spec 08); Ctrl+Z outside a text
 * field undoes the last slide operation, move or on-slide text edit by saving the bytes before it. The text of every box stays listed as fields
 * under the slide too: the outline a screen reader or a long text is easier with.
 */
export function SlideView(props: { session: OfficeSession; readOnly: boolean }) {
  const { t } = useI18n()
  const { session } = props
  const bytes = useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.bytes,
  )
  const [deck, setDeck] = useState<Deck | null>(null)
  const [frames, setFrames] = useState<SlideFrames | null>(null)
  const [previews, setPreviews] = useState<{ html: string[]; height: number } | null>(null)
  const [current, setCurrent] = useState(1)
  const [failed, setFailed] = useState<string | null>(null)
  const [refused, setRefused] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [previewElement, setPreviewElement] = useState<HTMLDivElement | null>(null)
  const undo = useRef<Uint8Array[]>([])
  /** The bytes this view's last save produced: any other bytes came from outside (disk, a restore). */
  const ownBytes = useRef<Uint8Array | null>(null)
  // Bytes from elsewhere (the file changed on disk, History restored a version): undoing to the
  // bytes before an earlier operation would silently drop that change, so the steps are forgotten.
  useEffect(() => {
    if (bytes !== ownBytes.current) undo.current = []
  }, [bytes])

  useEffect(() => {
    let cancelled = false
    Promise.all([readSlideTexts(bytes), readSlideNotes(bytes).catch(() => [])]).then(
      ([slides, notes]) =>
        !cancelled && setDeck({ slides, notes: slides.map((s) => notes[s.index - 1]?.paragraphs ?? []) }),
      (error: unknown) => !cancelled && setFailed(String(error)),
    )
    // The renderer is its own chunk and only approximate: a failure leaves the text editable.
    void Promise.all([import('@jvmr/pptx-to-html'), slideHeight(bytes, PREVIEW_WIDTH)])
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
        ({ html, height }) => !cancelled && setPreviews({ html: html.map((slide) => sanitizeSlide(slide)), height }),
        () => !cancelled && setPreviews({ html: [], height: 0 }),
      )
    return () => {
      cancelled = true
    }
  }, [bytes])

  const count = deck?.slides.length ?? 0
  const shown = count === 0 ? 0 : Math.min(Math.max(1, current), count)

  useEffect(() => {
    let cancelled = false
    if (shown === 0) return
    readShapeFrames(bytes, shown).then(
      (read) => !cancelled && setFrames(read),
      () => !cancelled && setFrames(null),
    )
    return () => {
      cancelled = true
    }
  }, [bytes, shown])

  const html = previews?.html[shown - 1] ?? ''
  useLayoutEffect(() => {
    if (previewElement) fitSlideText(previewElement)
  }, [previewElement, html])

  /** One save: the patch runs on the session's latest bytes; `undoable` keeps the bytes before it. */
  const save = useCallback(
    (patch: (before: Uint8Array) => Promise<{ bytes: Uint8Array } | { message: string } | null>, undoable: boolean) => {
      setBusy(true)
      setRefused(null)
      return session
        .edit(async (before) => {
          const outcome = await patch(before)
          if (outcome === null) return null
          if ('message' in outcome) {
            setRefused(outcome.message)
            return null
          }
          if (outcome.bytes === before) return null
          if (undoable) undo.current = [...undo.current.slice(1 - UNDO_DEPTH), before]
          ownBytes.current = outcome.bytes
          return outcome.bytes
        })
        .catch((error: unknown) => setRefused(String(error)))
        .finally(() => setBusy(false))
    },
    [session],
  )

  const operate = (operation: SlideOperation) => {
    void save(async (before) => {
      const outcome = await editPptx(before, [operation])
      return outcome.kind === 'ok' ? { bytes: outcome.bytes } : { message: outcome.message }
    }, true)
    if (operation.op === 'add_slide') setCurrent(operation.after + 1)
    else if (operation.op === 'duplicate_slide') setCurrent(operation.slide + 1)
    else if (operation.op === 'move_slide') setCurrent(operation.to)
    else setCurrent(Math.max(1, Math.min(operation.slide, count - 1)))
  }

  // Ctrl+Z (Cmd+Z) outside any text field: the last slide operation, move or on-slide text edit
  // is undone as a new save of the bytes before it; History keeps what was saved, as for any save.
  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    if (props.readOnly || !(event.ctrlKey || event.metaKey) || event.shiftKey || event.key.toLowerCase() !== 'z') return
    const target = event.target as HTMLElement
    if (target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'INPUT') return
    const previous = undo.current.at(-1)
    if (!previous) return
    event.preventDefault()
    undo.current = undo.current.slice(0, -1)
    void save(async () => ({ bytes: previous }), false)
  }

  if (failed !== null) {
    return <ErrorLine className="viewer-note viewer-error" message={`${t('office.corrupt')} ${failed}`} />
  }
  if (!deck) return <p className="viewer-note">{t('office.reading')}</p>
  const slide = deck.slides[shown - 1]
  const height = previews?.height || Math.round((PREVIEW_WIDTH * 9) / 16)
  const texts = new Map((slide?.shapes ?? []).map((shape) => [shape.id, shape.paragraphs]))

  return (
    <div className="slide-view" data-testid="office-slides" onKeyDown={onKeyDown}>
      <SlideList
        slides={deck.slides.map((s) => ({
          index: s.index,
          hidden: s.hidden,
          title: (s.shapes[0]?.paragraphs[0] ?? '').split(LINE_BREAK).join(' ').slice(0, 60),
        }))}
        current={shown}
        readOnly={props.readOnly}
        busy={busy}
        onSelect={setCurrent}
        onOperation={operate}
      />
      {slide && (
        <div className="slide-main">
          <ErrorLine className="viewer-note viewer-error" message={refused} />
          <figure className="slide-preview-frame">
            <figcaption>
              <span className="badge">{t('office.approximate')}</span> {t('office.slidePreviewNote')}
              {!props.readOnly && <span className="slide-edit-hint"> {t('office.slideEditHint')}</span>}
            </figcaption>
            <FitToWidth width={PREVIEW_WIDTH} height={height}>
              <div className="slide-stage" style={{ width: PREVIEW_WIDTH, height }}>
                <div
                  ref={setPreviewElement}
                  className="slide-preview"
                  data-testid="slide-preview"
                  role="img"
                  aria-label={t('office.slidePreview', { number: slide.index })}
                  inert
                  style={{ width: PREVIEW_WIDTH, height }}
                  // Sanitised above; inert and without scripts by the app's CSP as well.
                  dangerouslySetInnerHTML={{ __html: html }}
                />
                {frames && (
                  <div
                    className="slide-shapes-scale"
                    style={{
                      transform: `scale(${(PREVIEW_WIDTH * 9525) / frames.width}, ${(height * 9525) / frames.height})`,
                    }}
                  >
                    <SlideCanvas
                      // Another slide starts with nothing selected or being edited.
                      key={slide.index}
                      slide={slide.index}
                      width={frames.width}
                      height={frames.height}
                      shapes={frames.shapes}
                      texts={texts}
                      readOnly={props.readOnly}
                      preview={previewElement}
                      onFrame={(shapeId, frame) =>
                        void save(async (before) => {
                          const outcome = await setShapeFrame(before, { slide: slide.index, shapeId, ...frame })
                          return outcome.kind === 'ok' ? { bytes: outcome.bytes } : { message: outcome.message }
                        }, true)
                      }
                      onText={(shapeId, paragraphs) =>
                        void save(async (before) => {
                          const outcome = await editSlideText(before, { slide: slide.index, shapeId, paragraphs })
                          return outcome.kind === 'ok' ? { bytes: outcome.bytes } : { message: outcome.message }
                        }, /* Typing on the slide is undone by Ctrl+Z like a move: its editor is gone by then. */ true)
                      }
                    />
                  </div>
                )}
              </div>
            </FitToWidth>
          </figure>
          <NotesField
            key={`notes:${slide.index}`}
            label={t('office.speakerNotes', { number: slide.index })}
            value={fieldValue(deck.notes[slide.index - 1] ?? [])}
            readOnly={props.readOnly}
            session={session}
            onCommit={(text) =>
              save(async (before) => {
                const outcome = await editSlideNotes(before, { slide: slide.index, paragraphs: fieldParagraphs(text) })
                return outcome.kind === 'ok' ? { bytes: outcome.bytes } : { message: outcome.message }
              }, false)
            }
          />
          <section className="slide-texts" aria-label={t('office.slideTexts', { number: slide.index })}>
            {slide.shapes.length === 0 && <p className="viewer-note">{t('office.noSlideText')}</p>}
            {slide.shapes.map((shape) => (
              <ShapeField
                key={`${slide.index}:${shape.id}`}
                label={t('office.shapeText', { name: shape.name || shape.id })}
                value={fieldValue(shape.paragraphs)}
                readOnly={props.readOnly}
                session={session}
                onCommit={(text) =>
                  save(async (before) => {
                    const outcome = await editSlideText(before, {
                      slide: slide.index,
                      shapeId: shape.id,
                      paragraphs: fieldParagraphs(text),
                    })
                    return outcome.kind === 'ok' ? { bytes: outcome.bytes } : { message: outcome.message }
                  }, false)
                }
              />
            ))}
          </section>
        </div>
      )}
    </div>
  )
}

function NotesField(props: {
  label: string
  value: string
  readOnly: boolean
  session: OfficeSession
  onCommit: (text: string) => Promise<void>
}) {
  return (
    <div className="slide-notes">
      <ShapeField {...props} />
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
    // The file changed (on disk, or through the slide): show its text.
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
        onKeyDown={(event) => {
          // Shift+Enter is a line break inside the paragraph, as in PowerPoint.
          if (event.key !== 'Enter' || !event.shiftKey || props.readOnly) return
          event.preventDefault()
          const area = event.currentTarget
          area.setRangeText(FIELD_BREAK, area.selectionStart, area.selectionEnd, 'end')
          area.dispatchEvent(new Event('input', { bubbles: true }))
        }}
        onBlur={flush}
      />
    </label>
  )
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
