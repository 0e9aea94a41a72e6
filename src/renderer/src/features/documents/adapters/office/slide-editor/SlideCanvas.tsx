import {
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type PointerEvent,
} from 'react'
import type { ShapeFrame } from '../../../../../../../shared/office'
import { useI18n } from '../../../../../i18n'
import { editorParagraphs, fillEditor } from './text-editing'

/** EMU per CSS pixel at 96 dpi: the renderer lays a slide out at this size before scaling it. */
export const EMU_PER_PX = 9525
/** Arrow keys move a shape by this many base pixels (Shift: one pixel), as PowerPoint's nudge. */
const NUDGE_PX = 6
/** Nudges in a row become one save (one version in History) once the keys rest this long. */
const NUDGE_COMMIT_MS = 500
/** Below this a press is a click, not a drag: nothing is written. */
const DRAG_THRESHOLD_PX = 3

type Frame = Pick<ShapeFrame, 'x' | 'y' | 'cx' | 'cy'>
type Handle = 'n' | 's' | 'e' | 'w' | 'ne' | 'nw' | 'se' | 'sw'
const HANDLES: Handle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w']

interface Drag {
  readonly pointer: number
  readonly handle: Handle | 'move'
  readonly startX: number
  readonly startY: number
  /** Screen pixels per base pixel (the fit-to-pane scale times the slide's own). */
  readonly scale: number
  readonly from: Frame
  moved: boolean
}

/**
 * The slide's editing layer, over the inert approximate rendering and in its coordinates (base
 * pixels, EMU / 9525): one box per shape on the slide. Click or Tab selects a shape; drag moves it,
 * its handles resize it, the arrows nudge it; Enter or a double click on a text box edits its text
 * in place — the rendered text of that box is hidden and an editor with its font, colour and
 * alignment takes its place. Escape, Tab or clicking elsewhere ends editing and saves.
 */
export function SlideCanvas(props: {
  slide: number
  width: number
  height: number
  shapes: readonly ShapeFrame[]
  /** Paragraphs of each text shape by id (U+000B for a soft break). */
  texts: ReadonlyMap<string, readonly string[]>
  readOnly: boolean
  preview: HTMLElement | null
  onFrame: (shapeId: string, frame: Frame) => void
  onText: (shapeId: string, paragraphs: string[]) => void
}) {
  const { t } = useI18n()
  const layer = useRef<HTMLDivElement>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const [editing, setEditing] = useState<string | null>(null)
  // A frame being dragged or nudged, for the shapes as read when it started: a new reading (the
  // save came back) replaces it.
  const [draftState, setDraftState] = useState<{ id: string; frame: Frame; shapes: readonly ShapeFrame[] } | null>(null)
  const draft = draftState?.shapes === props.shapes ? draftState : null
  const setDraft = (next: { id: string; frame: Frame } | null) =>
    setDraftState(next && { ...next, shapes: props.shapes })
  const drag = useRef<Drag | null>(null)
  /** Escape ends editing and gives focus back to the shape's box, once it is drawn again. */
  const refocusShape = useRef<string | null>(null)
  useEffect(() => {
    const id = refocusShape.current
    if (editing !== null || id === null) return
    refocusShape.current = null
    layer.current?.querySelector<HTMLElement>(`[data-shape-id="${CSS.escape(id)}"]`)?.focus()
  }, [editing])
  const nudgeTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const baseWidth = props.width / EMU_PER_PX
  const baseHeight = props.height / EMU_PER_PX

  const frameOf = (shape: ShapeFrame): Frame => (draft !== null && draft.id === shape.id ? draft.frame : shape)

  const commitDraft = (id: string, frame: Frame) => {
    const shape = props.shapes.find((s) => s.id === id)
    if (!shape || (shape.x === frame.x && shape.y === frame.y && shape.cx === frame.cx && shape.cy === frame.cy)) {
      setDraft(null)
      return
    }
    props.onFrame(id, frame)
  }

  // While a shape is dragged or nudged, what the renderer drew for it follows (until the save
  // comes back and the slide is drawn again).
  useLayoutEffect(() => {
    if (!draft) return
    const shape = props.shapes.find((s) => s.id === draft.id)
    const element = shape ? renderedBox(props.preview, shape, shape.kind === 'text') : null
    if (!element) return
    const saved = element.style.cssText
    element.style.left = `${draft.frame.x / EMU_PER_PX}px`
    element.style.top = `${draft.frame.y / EMU_PER_PX}px`
    element.style.width = `${draft.frame.cx / EMU_PER_PX}px`
    element.style.height = `${draft.frame.cy / EMU_PER_PX}px`
    return () => {
      element.style.cssText = saved
    }
  }, [draft, props.preview, props.shapes])

  const screenScale = () => {
    const rect = layer.current?.getBoundingClientRect()
    return rect && rect.width > 0 ? rect.width / baseWidth : 1
  }

  const startDrag = (event: PointerEvent<HTMLElement>, shape: ShapeFrame, handle: Handle | 'move') => {
    if (props.readOnly || editing === shape.id || event.button !== 0) return
    event.stopPropagation()
    event.currentTarget.setPointerCapture(event.pointerId)
    setSelected(shape.id)
    drag.current = {
      pointer: event.pointerId,
      handle,
      startX: event.clientX,
      startY: event.clientY,
      scale: screenScale(),
      from: frameOf(shape),
      moved: false,
    }
  }

  const moveDrag = (event: PointerEvent<HTMLElement>, shape: ShapeFrame) => {
    const current = drag.current
    if (!current || current.pointer !== event.pointerId) return
    const dx = (event.clientX - current.startX) / current.scale
    const dy = (event.clientY - current.startY) / current.scale
    if (!current.moved && Math.hypot(dx, dy) * current.scale < DRAG_THRESHOLD_PX) return
    current.moved = true
    setDraft({ id: shape.id, frame: dragged(current.from, current.handle, dx * EMU_PER_PX, dy * EMU_PER_PX) })
  }

  const endDrag = (event: PointerEvent<HTMLElement>, shape: ShapeFrame) => {
    const current = drag.current
    if (!current || current.pointer !== event.pointerId) return
    drag.current = null
    if (!current.moved) return
    const dx = ((event.clientX - current.startX) / current.scale) * EMU_PER_PX
    const dy = ((event.clientY - current.startY) / current.scale) * EMU_PER_PX
    const frame = dragged(current.from, current.handle, dx, dy)
    setDraft({ id: shape.id, frame })
    commitDraft(shape.id, frame)
  }

  const nudge = (shape: ShapeFrame, dx: number, dy: number) => {
    const from = frameOf(shape)
    const frame = { ...from, x: from.x + dx * EMU_PER_PX, y: from.y + dy * EMU_PER_PX }
    setDraft({ id: shape.id, frame })
    if (nudgeTimer.current) clearTimeout(nudgeTimer.current)
    nudgeTimer.current = setTimeout(() => {
      nudgeTimer.current = null
      commitDraft(shape.id, frame)
    }, NUDGE_COMMIT_MS)
  }

  const onShapeKey = (event: KeyboardEvent<HTMLElement>, shape: ShapeFrame) => {
    if (editing === shape.id) return
    const step = event.shiftKey ? 1 : NUDGE_PX
    const arrows: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    }
    const arrow = arrows[event.key]
    if (arrow && !props.readOnly && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault()
      event.stopPropagation()
      setSelected(shape.id)
      nudge(shape, arrow[0], arrow[1])
    } else if ((event.key === 'Enter' || event.key === 'F2') && shape.kind === 'text' && !props.readOnly) {
      event.preventDefault()
      setSelected(shape.id)
      setEditing(shape.id)
    } else if (event.key === 'Escape' && selected !== null) {
      event.stopPropagation()
      setSelected(null)
    }
  }

  return (
    <div
      ref={layer}
      className="slide-shapes"
      role="group"
      aria-label={t('office.slideShapes', { number: props.slide })}
      style={{ width: baseWidth, height: baseHeight }}
      onPointerDown={(event) => {
        // A press on the slide outside every shape clears the selection.
        if (event.target === event.currentTarget) setSelected(null)
      }}
    >
      {props.shapes.map((shape) => {
        const frame = frameOf(shape)
        const isText = shape.kind === 'text' && props.texts.has(shape.id)
        // An empty placeholder draws nothing: like PowerPoint, its box and a prompt show where it is.
        const isEmpty = isText && (props.texts.get(shape.id) ?? []).every((p) => p.trim() === '')
        const label = t(isText ? 'office.shapeTextBox' : 'office.shapeObject', { name: shape.name || shape.id })
        const box = {
          left: frame.x / EMU_PER_PX,
          top: frame.y / EMU_PER_PX,
          width: frame.cx / EMU_PER_PX,
          height: frame.cy / EMU_PER_PX,
        }
        if (editing === shape.id) {
          // A sibling of the other boxes, not inside one: a button's content is not exposed as a textbox.
          return (
            <InPlaceEditor
              key={shape.id}
              label={t('office.editingShape', { name: shape.name || shape.id })}
              paragraphs={props.texts.get(shape.id) ?? []}
              frame={frame}
              style={box}
              preview={props.preview}
              onDone={(paragraphs, refocus) => {
                setEditing(null)
                if (refocus) refocusShape.current = shape.id
                if (paragraphs) props.onText(shape.id, paragraphs)
              }}
            />
          )
        }
        return (
          <div
            key={shape.id}
            className="slide-shape"
            data-shape-id={shape.id}
            data-selected={selected === shape.id || undefined}
            data-empty={isEmpty || undefined}
            role="button"
            tabIndex={0}
            aria-label={label}
            aria-pressed={selected === shape.id}
            aria-keyshortcuts={
              props.readOnly
                ? undefined
                : isText
                  ? 'Enter ArrowLeft ArrowRight ArrowUp ArrowDown'
                  : 'ArrowLeft ArrowRight ArrowUp ArrowDown'
            }
            style={box}
            onFocus={() => setSelected(shape.id)}
            onKeyDown={(event) => onShapeKey(event, shape)}
            onPointerDown={(event) => startDrag(event, shape, 'move')}
            onPointerMove={(event) => moveDrag(event, shape)}
            onPointerUp={(event) => endDrag(event, shape)}
            onDoubleClick={() => {
              if (isText && !props.readOnly) setEditing(shape.id)
            }}
          >
            {isEmpty && !props.readOnly && (
              <span className="slide-shape-prompt" aria-hidden="true">
                {t('office.emptyTextBox')}
              </span>
            )}
            {selected === shape.id &&
              !props.readOnly &&
              !shape.rotated &&
              HANDLES.map((handle) => (
                <span
                  key={handle}
                  className="slide-handle"
                  data-handle={handle}
                  aria-hidden="true"
                  onPointerDown={(event) => startDrag(event, shape, handle)}
                  onPointerMove={(event) => moveDrag(event, shape)}
                  onPointerUp={(event) => endDrag(event, shape)}
                />
              ))}
          </div>
        )
      })}
    </div>
  )
}

/** The frame after dragging `handle` by (dx, dy) EMU; a size never goes below one base pixel. */
function dragged(from: Frame, handle: Handle | 'move', dx: number, dy: number): Frame {
  if (handle === 'move') return { ...from, x: Math.round(from.x + dx), y: Math.round(from.y + dy) }
  let { x, y, cx, cy } = from
  if (handle.includes('e')) cx = Math.max(EMU_PER_PX, from.cx + dx)
  if (handle.includes('s')) cy = Math.max(EMU_PER_PX, from.cy + dy)
  if (handle.includes('w')) {
    cx = Math.max(EMU_PER_PX, from.cx - dx)
    x = from.x + from.cx - cx
  }
  if (handle.includes('n')) {
    cy = Math.max(EMU_PER_PX, from.cy - dy)
    y = from.y + from.cy - cy
  }
  return { x: Math.round(x), y: Math.round(y), cx: Math.round(cx), cy: Math.round(cy) }
}

/**
 * What the renderer drew for the shape at this frame (it places elements at EMU / 9525 pixels):
 * for text, the box holding text there.
 */
function renderedBox(preview: HTMLElement | null, frame: Frame, text = true): HTMLElement | null {
  if (!preview) return null
  let best: HTMLElement | null = null
  for (const box of preview.querySelectorAll<HTMLElement>('.slide > *')) {
    const left = Number.parseFloat(box.style.left)
    const top = Number.parseFloat(box.style.top)
    if (Math.abs(left - frame.x / EMU_PER_PX) < 1.5 && Math.abs(top - frame.y / EMU_PER_PX) < 1.5) {
      if (!text || box.textContent?.trim()) return box
      best ??= box
    }
  }
  return best
}

/**
 * Plain text with paragraphs (Enter) and soft breaks (Shift+Enter), in the look of the box it
 * replaces while it is open. What is typed is saved as the shape's paragraphs: the patcher keeps
 * the formatting of every run the edit does not touch.
 */
function InPlaceEditor(props: {
  label: string
  paragraphs: readonly string[]
  frame: Frame
  style: CSSProperties
  preview: HTMLElement | null
  /** `refocus`: Escape ended editing, so the keyboard goes back to the shape. */
  onDone: (paragraphs: string[] | null, refocus: boolean) => void
}) {
  const editor = useRef<HTMLDivElement>(null)
  const done = useRef(false)
  const { onDone } = props
  useLayoutEffect(() => {
    const element = editor.current
    if (!element) return
    fillEditor(element, props.paragraphs)
    const box = renderedBox(props.preview, props.frame)
    if (box) {
      const style = getComputedStyle(box)
      for (const name of [
        'fontFamily',
        'fontSize',
        'fontWeight',
        'color',
        'textAlign',
        'justifyContent',
        'padding',
      ] as const)
        element.style[name] = style[name]
      const run = box.querySelector<HTMLElement>('span, p')
      if (run) {
        const runStyle = getComputedStyle(run)
        element.style.fontSize = runStyle.fontSize
        element.style.fontWeight = runStyle.fontWeight
        element.style.color = runStyle.color
        element.style.fontStyle = runStyle.fontStyle
      }
      box.style.visibility = 'hidden'
    }
    element.focus()
    const range = document.createRange()
    range.selectNodeContents(element)
    range.collapse(false)
    getSelection()?.removeAllRanges()
    getSelection()?.addRange(range)
    return () => {
      if (box) box.style.visibility = ''
    }
    // Filled once when editing starts; the text typed since is the editor's own.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])
  const finish = (refocus: boolean) => {
    if (done.current || !editor.current) return
    done.current = true
    const paragraphs = editorParagraphs(editor.current)
    const same = paragraphs.length === props.paragraphs.length && paragraphs.every((p, i) => p === props.paragraphs[i])
    onDone(same ? null : paragraphs, refocus)
  }
  return (
    <div
      ref={editor}
      className="slide-shape-editor"
      role="textbox"
      aria-multiline="true"
      aria-label={props.label}
      contentEditable
      suppressContentEditableWarning
      onPointerDown={(event) => event.stopPropagation()}
      onDoubleClick={(event) => event.stopPropagation()}
      style={props.style}
      onBlur={() => finish(false)}
      onKeyDown={(event) => {
        event.stopPropagation()
        if (event.key === 'Escape') {
          event.preventDefault()
          finish(true)
        } else if (event.key === 'Enter') {
          // Enter starts a paragraph, Shift+Enter a line break inside it, as in PowerPoint.
          event.preventDefault()
          document.execCommand(event.shiftKey ? 'insertLineBreak' : 'insertParagraph')
        }
      }}
      onPaste={(event) => {
        // Only text comes in: formatting from elsewhere would not be saved anyway.
        event.preventDefault()
        const text = event.clipboardData.getData('text/plain').replace(/\r\n?/g, '\n')
        text.split('\n').forEach((line, i) => {
          if (i > 0) document.execCommand('insertParagraph')
          if (line !== '') document.execCommand('insertText', false, line)
        })
      }}
    />
  )
}
