import { useCallback, useEffect, useMemo, useState } from 'react'
import { formatBytes, useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { MountOptions } from '../types'
import { blobOf, ConvertToPng, imagePng } from './common'
import { EDIT_LIMITS, imageInfo, type EditVerdict, type ImageInfo } from './image-info'
import { onResize } from '../zoom-input'
import { FIT, useZoomInput, ZoomControls, type ImageZoom } from './zoom'

const FORMAT_NAMES: Record<ImageInfo['format'], string> = {
  png: 'PNG',
  jpeg: 'JPEG',
  webp: 'WebP',
  gif: 'GIF',
  bmp: 'BMP',
  svg: 'SVG',
  other: '',
}

export const isSvg = (path: string, mime: string) => mime === 'image/svg+xml' || /\.svgz?$/i.test(path)

/**
 * A bitmap or SVG shown as an `<img>` from a blob URL — SVG too, so its scripts never run and its
 * external references are never fetched (an image document loads no subresources; spec 11). Says
 * why it is preview-only, and offers "Convert to PNG" (a new file) where that is useful.
 */
export function ImagePreview(props: {
  bytes: Uint8Array
  mime: string
  path: string
  compact: boolean
  /** Why the editor is off (a bitmap the editor would handle but for this). */
  verdict?: EditVerdict
  createCopy: MountOptions['createCopy']
  openFile: MountOptions['openFile']
}) {
  const { t } = useI18n()
  const svg = isSvg(props.path, props.mime)
  const info = useMemo(() => imageInfo(props.bytes, props.path), [props.bytes, props.path])
  const url = useMemo(
    () => URL.createObjectURL(blobOf(props.bytes, svg ? 'image/svg+xml' : props.mime)),
    [props.bytes, props.mime, svg],
  )
  useEffect(() => () => URL.revokeObjectURL(url), [url])
  const [image, setImage] = useState<HTMLImageElement | null>(null)
  const [broken, setBroken] = useState(false)
  const [source, setSource] = useState(false)
  const { zoom, shown, setZoom, setFrame, setView, measure, imageStyle } = useViewZoom(image, props.compact)
  const reason =
    props.verdict?.kind === 'preview'
      ? props.verdict.reason
      : info.animated
        ? 'animated'
        : info.bitDepth > 8
          ? 'deep'
          : null
  const note = (() => {
    switch (reason) {
      case 'animated':
        return t('image.reason.animated')
      case 'deep':
        return t('image.reason.deep', { bits: info.bitDepth })
      case 'bytes':
        return t('image.reason.bytes', { limit: formatBytes(EDIT_LIMITS.bytes) })
      case 'pixels':
        return t('image.reason.pixels', { pixels: (((info.width ?? 0) * (info.height ?? 0)) / 1e6).toFixed(1) })
      case 'side':
        return t('image.reason.side', { width: info.width ?? 0, height: info.height ?? 0 })
      case 'unreadable':
        return t('image.reason.unreadable')
      default:
        // A read-only view of a file the editor could open (History, Review): nothing to explain.
        if (props.verdict?.kind === 'editable') return ''
        return svg ? t('svg.note') : t('image.reason.format', { format: FORMAT_NAMES[info.format] || props.mime })
    }
  })()
  return (
    <div className="image-preview" data-testid="image-preview" data-reason={reason ?? info.format} ref={setFrame}>
      {!props.compact && (
        <div className="image-preview-bar" role="toolbar" aria-label={t('image.tools')}>
          <span className="badge">{t('image.previewOnly')}</span>
          <span className="image-preview-note" data-testid="image-preview-note">
            {note}
          </span>
          {svg && (
            <button type="button" className="image-tool" aria-pressed={source} onClick={() => setSource((s) => !s)}>
              {source ? t('svg.image') : t('svg.source')}
            </button>
          )}
          {!source && !broken && <ZoomControls zoom={zoom} shown={shown} onZoom={setZoom} />}
          {image && !broken && (
            <ConvertToPng toPng={() => imagePng(image)} createCopy={props.createCopy} openFile={props.openFile} />
          )}
        </div>
      )}
      {source ? (
        <pre className="image-source" data-testid="svg-source" tabIndex={0}>
          {new TextDecoder().decode(props.bytes)}
        </pre>
      ) : (
        <div
          className={`image-view image-view-${props.compact ? 'compact' : 'full'}${zoom.kind === 'scale' ? ' image-view-zoomed' : ''}`}
          ref={setView}
          tabIndex={props.compact ? undefined : 0}
          aria-label={props.compact ? undefined : props.path}
        >
          {broken ? (
            <ErrorLine className="viewer-note" message={t('image.undecodable')} />
          ) : (
            <img
              ref={setImage}
              src={url}
              alt={props.path}
              data-testid="image-view"
              style={imageStyle}
              onLoad={(event) => {
                event.currentTarget.dataset.rendered = 'true'
                measure()
              }}
              onError={() => setBroken(true)}
            />
          )}
        </div>
      )}
    </div>
  )
}

/**
 * The preview's zoom: fitted into the pane until the person zooms, then a scale of the image's own
 * pixels (the pane scrolls). The fitted scale is measured from the image on screen, again whenever
 * the pane changes size. A compact preview (Review, History) stays fitted: it has no toolbar.
 */
function useViewZoom(image: HTMLImageElement | null, compact: boolean) {
  const [zoom, setZoomState] = useState<ImageZoom>(FIT)
  const [fitted, setFitted] = useState<number | null>(null)
  const [frame, setFrame] = useState<HTMLDivElement | null>(null)
  const [view, setView] = useState<HTMLDivElement | null>(null)
  const fitting = zoom.kind === 'fit'
  const measure = useCallback(() => {
    if (image && image.naturalWidth > 0) setFitted(image.getBoundingClientRect().width / image.naturalWidth)
  }, [image])
  useEffect(() => {
    if (!view || !fitting) return
    const abort = new AbortController()
    onResize(view, measure, abort.signal)
    return () => abort.abort()
  }, [view, fitting, measure])
  const shown = fitting ? fitted : zoom.scale
  const setZoom = useCallback(
    (next: ImageZoom, at?: { clientX: number; clientY: number }) => {
      setZoomState(next)
      if (!view || shown === null) return
      // The point under the pointer (or the pane's middle) keeps the same image pixel under it.
      const box = view.getBoundingClientRect()
      const x = (at?.clientX ?? box.left + box.width / 2) - box.left
      const y = (at?.clientY ?? box.top + box.height / 2) - box.top
      const from = { left: view.scrollLeft + x, top: view.scrollTop + y }
      requestAnimationFrame(() => {
        if (next.kind === 'fit') return measure()
        const ratio = next.scale / shown
        view.scrollTo({ left: from.left * ratio - x, top: from.top * ratio - y })
      })
    },
    [view, shown, measure],
  )
  useZoomInput(compact ? null : frame, view, shown, setZoom)
  const imageStyle =
    zoom.kind === 'scale' && image && image.naturalWidth > 0
      ? {
          width: `${image.naturalWidth * zoom.scale}px`,
          height: `${image.naturalHeight * zoom.scale}px`,
          maxWidth: 'none',
          maxHeight: 'none',
        }
      : undefined
  return { zoom, shown, setZoom, setFrame, setView, measure, imageStyle }
}
