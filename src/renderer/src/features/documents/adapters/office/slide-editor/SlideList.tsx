import { useRef, useState, type KeyboardEvent } from 'react'
import { useI18n } from '../../../../../i18n'
import { Dialog } from '../../../../../ui/Dialog'

/** Only slides dragged within this list are dropped on it (not files or text from elsewhere). */
const SLIDE_DRAG_TYPE = 'application/x-retrace-slide'

export type SlideOperation =
  | { op: 'add_slide'; after: number }
  | { op: 'duplicate_slide'; slide: number }
  | { op: 'delete_slide'; slide: number }
  | { op: 'move_slide'; slide: number; to: number }

/**
 * The slide list and what it does to slides: add (after the current one, with its layout),
 * duplicate, delete (after a confirmation: it takes the slide's notes with it) and move. Keyboard:
 * the arrows walk the list, Alt+Up/Down move the current slide, Delete asks to delete it; a slide
 * can also be dragged onto another's place.
 */
export function SlideList(props: {
  slides: ReadonlyArray<{ index: number; hidden: boolean; title: string }>
  current: number
  readOnly: boolean
  busy: boolean
  onSelect: (slide: number) => void
  onOperation: (operation: SlideOperation) => void
}) {
  const { t } = useI18n()
  const [confirming, setConfirming] = useState<number | null>(null)
  const [dropTarget, setDropTarget] = useState<number | null>(null)
  const list = useRef<HTMLElement>(null)
  const count = props.slides.length
  const { current } = props
  const locked = props.readOnly || props.busy

  const focusSlide = (slide: number) =>
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>(`[data-slide="${slide}"]`)?.focus())

  const onKey = (event: KeyboardEvent<HTMLElement>) => {
    const move = event.key === 'ArrowUp' ? -1 : event.key === 'ArrowDown' ? 1 : 0
    if (move !== 0 && event.altKey) {
      event.preventDefault()
      const to = current + move
      if (locked || to < 1 || to > count) return
      props.onOperation({ op: 'move_slide', slide: current, to })
      focusSlide(to)
    } else if (move !== 0 && !event.ctrlKey && !event.metaKey) {
      event.preventDefault()
      const next = Math.min(count, Math.max(1, current + move))
      props.onSelect(next)
      focusSlide(next)
    } else if ((event.key === 'Delete' || event.key === 'Backspace') && !locked && count > 1) {
      event.preventDefault()
      setConfirming(current)
    }
  }

  return (
    <div className="slide-list-pane">
      <div className="slide-actions" role="group" aria-label={t('office.slideActions')}>
        <button type="button" disabled={locked} onClick={() => props.onOperation({ op: 'add_slide', after: current })}>
          {t('office.addSlide')}
        </button>
        <button
          type="button"
          disabled={locked || count === 0}
          onClick={() => props.onOperation({ op: 'duplicate_slide', slide: current })}
        >
          {t('office.duplicateSlide')}
        </button>
        <button type="button" disabled={locked || count <= 1} onClick={() => setConfirming(current)}>
          {t('office.deleteSlide')}
        </button>
        <button
          type="button"
          aria-keyshortcuts="Alt+ArrowUp"
          disabled={locked || current <= 1}
          onClick={() => props.onOperation({ op: 'move_slide', slide: current, to: current - 1 })}
        >
          {t('office.moveSlideUp')}
        </button>
        <button
          type="button"
          aria-keyshortcuts="Alt+ArrowDown"
          disabled={locked || current >= count}
          onClick={() => props.onOperation({ op: 'move_slide', slide: current, to: current + 1 })}
        >
          {t('office.moveSlideDown')}
        </button>
      </div>
      <nav ref={list} className="slide-list" aria-label={t('office.slides')} onKeyDown={onKey}>
        {props.slides.map((slide) => (
          <button
            key={slide.index}
            type="button"
            data-slide={slide.index}
            aria-current={slide.index === current ? 'true' : undefined}
            aria-keyshortcuts={props.readOnly ? undefined : 'Alt+ArrowUp Alt+ArrowDown Delete'}
            tabIndex={slide.index === current ? 0 : -1}
            draggable={!locked}
            data-drop-target={dropTarget === slide.index || undefined}
            onClick={() => props.onSelect(slide.index)}
            onDragStart={(event) => {
              event.dataTransfer.effectAllowed = 'move'
              event.dataTransfer.setData(SLIDE_DRAG_TYPE, String(slide.index))
            }}
            onDragOver={(event) => {
              if (locked || !event.dataTransfer.types.includes(SLIDE_DRAG_TYPE)) return
              event.preventDefault()
              setDropTarget(slide.index)
            }}
            onDragLeave={() => setDropTarget(null)}
            onDrop={(event) => {
              setDropTarget(null)
              const from = Number(event.dataTransfer.getData(SLIDE_DRAG_TYPE))
              if (locked || !Number.isInteger(from) || from < 1 || from > count || from === slide.index) return
              event.preventDefault()
              // The dragged slide takes the place of the one it is dropped on.
              props.onOperation({ op: 'move_slide', slide: from, to: slide.index })
            }}
          >
            <span>{t('office.slideNumber', { number: slide.index })}</span>
            {slide.hidden ? ` · ${t('office.hiddenSlide')}` : ''}
            {slide.title && <span className="slide-list-title">{slide.title}</span>}
          </button>
        ))}
      </nav>
      {confirming !== null && (
        <Dialog
          title={t('office.deleteSlideTitle', { number: confirming })}
          onClose={() => setConfirming(null)}
          className="slide-confirm"
          backdropClassName="slide-confirm-backdrop"
          testId="slide-delete-confirm"
          initialFocus="button[data-confirm]"
        >
          <p>{t('office.deleteSlideBody')}</p>
          <div className="slide-confirm-actions">
            <button
              type="button"
              data-confirm=""
              onClick={() => {
                props.onOperation({ op: 'delete_slide', slide: confirming })
                setConfirming(null)
                focusSlide(Math.min(confirming, count - 1))
              }}
            >
              {t('office.deleteSlideConfirm')}
            </button>
            <button type="button" onClick={() => setConfirming(null)}>
              {t('office.deleteSlideCancel')}
            </button>
          </div>
        </Dialog>
      )}
    </div>
  )
}
