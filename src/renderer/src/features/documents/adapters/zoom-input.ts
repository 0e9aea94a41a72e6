/**
 * Zoom from the keyboard and the wheel for a document view (the PDF reader, the image viewer and
 * editor): Ctrl/Cmd + `=`/`+`, `-`, `0`, and Ctrl/Cmd + wheel (a touchpad pinch arrives as a wheel
 * event with `ctrlKey` set). The keys belong to the view only while the person is there: the
 * focus is inside it, or nothing has the focus and the pointer is over it. Anywhere else they are
 * left alone, so the window's own shortcuts and a text field's keys keep working.
 */

export type ZoomCommand = { readonly kind: 'in' } | { readonly kind: 'out' } | { readonly kind: 'reset' }

/** A wheel gesture: whole steps from a mouse wheel, a continuous factor from a pinch. */
export type WheelZoom =
  | { readonly kind: 'steps'; readonly steps: number; readonly clientX: number; readonly clientY: number }
  | { readonly kind: 'factor'; readonly factor: number; readonly clientX: number; readonly clientY: number }

/** The zoom command a key press is, if it is one (layouts differ: `+` may need Shift, `=` not). */
export function zoomCommandOf(
  event: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey' | 'key' | 'code'>,
): ZoomCommand | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey) return null
  switch (event.key) {
    case '=':
    case '+':
      return { kind: 'in' }
    case '-':
    case '_':
      return { kind: 'out' }
    case '0':
      return { kind: 'reset' }
    default:
      // The numeric keypad's keys, whatever the layout prints on them.
      if (event.code === 'NumpadAdd') return { kind: 'in' }
      if (event.code === 'NumpadSubtract') return { kind: 'out' }
      if (event.code === 'Numpad0') return { kind: 'reset' }
      return null
  }
}

/**
 * A mouse wheel reports about 100 px (or 3 lines) a notch; a touchpad pinch a few pixels per event.
 * Below this many pixels a delta is a pinch, zoomed continuously; above it, one step a notch.
 */
const PINCH_MAX_PIXELS = 50
/** Pixels of pinch that scale by e (pdf.js's own viewer uses the same exponential). */
const PINCH_PIXELS_PER_E = 100
/** `WheelEvent.DOM_DELTA_PIXEL`, spelled out so the mapping is testable without a DOM. */
const DOM_DELTA_PIXEL = 0

export function wheelZoomOf(
  event: Pick<WheelEvent, 'ctrlKey' | 'metaKey' | 'deltaY' | 'deltaMode' | 'clientX' | 'clientY'>,
): WheelZoom | null {
  if (!(event.ctrlKey || event.metaKey) || event.deltaY === 0) return null
  const at = { clientX: event.clientX, clientY: event.clientY }
  if (event.deltaMode === DOM_DELTA_PIXEL && Math.abs(event.deltaY) < PINCH_MAX_PIXELS) {
    return { kind: 'factor', factor: Math.exp(-event.deltaY / PINCH_PIXELS_PER_E), ...at }
  }
  return { kind: 'steps', steps: event.deltaY < 0 ? 1 : -1, ...at }
}

export interface ZoomInputTarget {
  /** The whole view (toolbar included): where the focus and the pointer are looked for. */
  readonly frame: () => HTMLElement
  /** The scrolled surface: Ctrl+wheel over it zooms it instead of the page. */
  readonly surface: HTMLElement
  readonly onCommand: (command: ZoomCommand) => void
  readonly onWheel: (zoom: WheelZoom) => void
  readonly signal: AbortSignal
}

/** Listens for the zoom keys and Ctrl+wheel until `signal` aborts. */
export function bindZoomInput(target: ZoomInputTarget): void {
  const { surface, signal } = target
  let pointerInside = false
  // Tracked on the document, so it is right even for a frame that was mounted under the pointer.
  document.addEventListener(
    'pointerover',
    (event) => (pointerInside = event.target instanceof Node && target.frame().contains(event.target)),
    { capture: true, signal },
  )
  document.addEventListener(
    'pointerout',
    (event) => {
      if (event.relatedTarget === null) pointerInside = false
    },
    { capture: true, signal },
  )
  const ownsKey = (): boolean => {
    const frame = target.frame()
    if (!frame.isConnected || frame.getClientRects().length === 0) return false
    const active = document.activeElement
    if (active && active !== document.body && active !== document.documentElement) return frame.contains(active)
    return pointerInside
  }
  // On the window, in the bubble phase: a handler nearer the focus (a dialog, the palette) that
  // took the key has marked it handled, and then the view leaves it.
  window.addEventListener(
    'keydown',
    (event) => {
      if (event.defaultPrevented) return
      const command = zoomCommandOf(event)
      if (!command || !ownsKey()) return
      event.preventDefault()
      target.onCommand(command)
    },
    { signal },
  )
  // Not passive: the page itself must not zoom (Chromium zooms the whole window on Ctrl+wheel).
  surface.addEventListener(
    'wheel',
    (event) => {
      const zoom = wheelZoomOf(event)
      if (!zoom) return
      event.preventDefault()
      target.onWheel(zoom)
    },
    { passive: false, signal },
  )
}

/**
 * Calls `refit` when `element` changes size (the pane was resized, the agent pane hidden), at most
 * once a frame; never while the element is not laid out (a hidden tab measures 0 × 0).
 */
export function onResize(element: HTMLElement, refit: () => void, signal: AbortSignal): void {
  let frame = 0
  let last = { width: element.clientWidth, height: element.clientHeight }
  const observer = new ResizeObserver(() => {
    if (frame !== 0) return
    frame = requestAnimationFrame(() => {
      frame = 0
      const size = { width: element.clientWidth, height: element.clientHeight }
      if (size.width === 0 || size.height === 0) return
      if (size.width === last.width && size.height === last.height) return
      last = size
      refit()
    })
  })
  observer.observe(element)
  signal.addEventListener('abort', () => {
    observer.disconnect()
    if (frame !== 0) cancelAnimationFrame(frame)
  })
}
