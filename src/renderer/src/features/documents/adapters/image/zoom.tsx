import { useEffect } from 'react'
import { useI18n } from '../../../../i18n'
import { bindZoomInput, type WheelZoom, type ZoomCommand } from '../zoom-input'

/** How an image is shown: fitted into the pane (never enlarged past its size), or at a scale of its pixels. */
export type ImageZoom = { readonly kind: 'fit' } | { readonly kind: 'scale'; readonly scale: number }

export const FIT: ImageZoom = { kind: 'fit' }
/** The scales Zoom in / Zoom out step through (1 is the image's own size). */
export const IMAGE_ZOOM_STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8] as const
const MIN_SCALE = 0.1
const MAX_SCALE = 8

/** The next step up or down from the scale shown now (from a fit, the fitted scale). */
export function stepScale(shown: number, direction: 1 | -1): number {
  // A scale a hair off a step (a fit of 0.4999) goes to the next step, not to that one again.
  const next =
    direction > 0
      ? IMAGE_ZOOM_STEPS.find((step) => step > shown * 1.001)
      : IMAGE_ZOOM_STEPS.findLast((step) => step < shown * 0.999)
  return next ?? (direction > 0 ? MAX_SCALE : MIN_SCALE)
}

/** A pinch's continuous factor, kept within the steps' range. */
export function pinchScale(shown: number, factor: number): number {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, Math.round(shown * factor * 1000) / 1000))
}

/** The zoom a key or wheel gesture asks for, from the scale shown now. */
export function zoomFor(input: ZoomCommand | WheelZoom, shown: number): ImageZoom {
  switch (input.kind) {
    case 'in':
      return { kind: 'scale', scale: stepScale(shown, 1) }
    case 'out':
      return { kind: 'scale', scale: stepScale(shown, -1) }
    case 'reset':
      // Ctrl+0 is "back to how it opened": fitted, as in the browser's own image viewer.
      return FIT
    case 'steps':
      return { kind: 'scale', scale: stepScale(shown, input.steps > 0 ? 1 : -1) }
    case 'factor':
      return { kind: 'scale', scale: pinchScale(shown, input.factor) }
  }
}

/**
 * Ctrl/Cmd + `=` `-` `0` and Ctrl+wheel (or pinch) over an image view, once its scale on screen
 * (`shown`) is known.
 */
export function useZoomInput(
  frame: HTMLElement | null,
  surface: HTMLElement | null,
  shown: number | null,
  onZoom: (zoom: ImageZoom, at?: { clientX: number; clientY: number }) => void,
): void {
  useEffect(() => {
    if (!frame || !surface || shown === null) return
    const abort = new AbortController()
    const apply = (input: ZoomCommand | WheelZoom) => {
      // A wheel zooms around the pointer; a key around the middle of the pane.
      const at = 'clientX' in input ? { clientX: input.clientX, clientY: input.clientY } : undefined
      onZoom(zoomFor(input, shown), at)
    }
    bindZoomInput({ frame: () => frame, surface, signal: abort.signal, onCommand: apply, onWheel: apply })
    return () => abort.abort()
  }, [frame, surface, shown, onZoom])
}

/** Zoom out, Zoom in, Fit, 100 % and the scale shown now, for the image toolbars. */
export function ZoomControls(props: {
  zoom: ImageZoom
  /** The scale on screen (for a fit, what the fit came to); null until the image is measured. */
  shown: number | null
  disabled?: boolean
  onZoom: (zoom: ImageZoom) => void
}) {
  const { t } = useI18n()
  const { shown, zoom } = props
  const disabled = props.disabled || shown === null
  const button = (label: string, text: string, next: () => ImageZoom, pressed?: boolean, off?: boolean) => (
    <button
      type="button"
      className="image-tool"
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      disabled={disabled || off}
      onClick={() => props.onZoom(next())}
    >
      {text}
    </button>
  )
  const scale = shown ?? 1
  return (
    <span className="image-zoom" role="group" aria-label={t('image.zoom')}>
      {button(
        t('image.zoomOut'),
        '−',
        () => ({ kind: 'scale', scale: stepScale(scale, -1) }),
        undefined,
        scale <= MIN_SCALE,
      )}
      {button(
        t('image.zoomIn'),
        '+',
        () => ({ kind: 'scale', scale: stepScale(scale, 1) }),
        undefined,
        scale >= MAX_SCALE,
      )}
      {button(t('image.zoomFit'), t('image.zoomFit'), () => FIT, zoom.kind === 'fit')}
      {button(
        t('image.zoomActual'),
        t('image.percent', { percent: 100 }),
        () => ({ kind: 'scale', scale: 1 }),
        zoom.kind === 'scale' && zoom.scale === 1,
      )}
      <output className="image-zoom-level" aria-label={t('image.zoomLevel')} data-testid="image-zoom-level">
        {shown === null ? '' : t('image.percent', { percent: Math.round(shown * 100) })}
      </output>
    </span>
  )
}
