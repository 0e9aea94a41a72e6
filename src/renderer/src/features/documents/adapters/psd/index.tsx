import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { bytesOf, canvasPng, ConvertToPng, mountReactView } from '../image/common'
import type { DocumentAdapter, MountOptions, MountedDocument } from '../types'
import type { PsdLayerNode, PsdRequest, PsdResponse, PsdSource } from './protocol'
import '../image/image.css'
import './psd.css'

/** Past this a PSD's decoding is abandoned (the worker is terminated) and the view says so. */
const DECODE_TIMEOUT_MS = 60_000

/**
 * Photoshop documents, read-only (spec 09 "PSD"): ag-psd decodes in a worker; the view shows the
 * saved composite (or, when that is empty, the embedded thumbnail or the visible layers stacked,
 * and says which) and the layer tree. Toggling a layer re-composites a preview in the worker; the
 * file is never written.
 */
export const psdAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    return mountReactView(container, options, 'psd-adapter', (content, revision) => (
      <PsdView key={revision} bytes={bytesOf(content)} options={options} />
    ))
  },
}

type Shown =
  { kind: 'decoding' } | { kind: 'failed'; reason: string } | { kind: 'shown'; source: PsdSource | 'preview' }

function collect(layers: readonly PsdLayerNode[], into: Map<number, PsdLayerNode> = new Map()) {
  for (const layer of layers) {
    into.set(layer.id, layer)
    if (layer.children) collect(layer.children, into)
  }
  return into
}

function PsdView(props: { bytes: Uint8Array; options: MountOptions }) {
  const { t } = useI18n()
  const canvas = useRef<HTMLCanvasElement>(null)
  const worker = useRef<Worker | null>(null)
  const [shown, setShown] = useState<Shown>({ kind: 'decoding' })
  const [layers, setLayers] = useState<readonly PsdLayerNode[]>([])
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set())
  const [saved, setSaved] = useState<{
    hidden: ReadonlySet<number>
    source: PsdSource
    image: ImageBitmap | null
  } | null>(null)
  const compact = props.options.size === 'compact'

  useEffect(() => {
    const created = new Worker(new URL('./psd.worker.ts', import.meta.url), { type: 'module', name: 'psd' })
    worker.current = created
    const timer = setTimeout(() => {
      created.terminate()
      setShown({ kind: 'failed', reason: t('tiff.timeout', { seconds: DECODE_TIMEOUT_MS / 1000 }) })
    }, DECODE_TIMEOUT_MS)
    const paint = (image: ImageBitmap | null) => {
      const element = canvas.current
      if (!element || !image) return
      element.width = image.width
      element.height = image.height
      element.getContext('2d')?.drawImage(image, 0, 0)
      element.dataset.rendered = String(Number(element.dataset.rendered ?? 0) + 1)
    }
    created.onmessage = (event: MessageEvent<PsdResponse>) => {
      const message = event.data
      clearTimeout(timer)
      if (message.kind === 'failed') {
        const reason =
          message.reason === 'color-mode'
            ? t('psd.reason.colorMode')
            : message.reason === 'depth'
              ? t('psd.reason.depth', { bits: psdBitDepth(props.bytes) })
              : message.message
        setShown({ kind: 'failed', reason })
        return
      }
      if (message.kind === 'opened') {
        const all = collect(message.layers)
        const initiallyHidden = new Set([...all.values()].filter((l) => l.hidden).map((l) => l.id))
        setLayers(message.layers)
        setHidden(initiallyHidden)
        setSaved({ hidden: initiallyHidden, source: message.source, image: message.image })
        paint(message.image)
        setShown({ kind: 'shown', source: message.source })
        return
      }
      paint(message.image)
      message.image.close()
      setShown({ kind: 'shown', source: 'preview' })
    }
    const copy = props.bytes.slice().buffer
    created.postMessage({ kind: 'open', bytes: copy } satisfies PsdRequest, [copy])
    return () => {
      clearTimeout(timer)
      created.terminate()
      worker.current = null
    }
  }, [props.bytes, t])

  const toggle = (id: number) => {
    const next = new Set(hidden)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setHidden(next)
    worker.current?.postMessage({ kind: 'composite', hidden: [...next] } satisfies PsdRequest)
  }
  const reset = () => {
    if (!saved) return
    setHidden(saved.hidden)
    if (saved.source === 'stacked' || saved.source === 'layers' || !saved.image) {
      worker.current?.postMessage({ kind: 'composite', hidden: [...saved.hidden] } satisfies PsdRequest)
      return
    }
    const element = canvas.current
    if (element) {
      element.getContext('2d')?.clearRect(0, 0, element.width, element.height)
      element.getContext('2d')?.drawImage(saved.image, 0, 0)
    }
    setShown({ kind: 'shown', source: saved.source })
  }

  const note =
    shown.kind === 'shown'
      ? shown.source === 'composite'
        ? t('psd.composite')
        : shown.source === 'thumbnail'
          ? t('psd.thumbnail')
          : shown.source === 'stacked'
            ? t('psd.stacked')
            : shown.source === 'layers'
              ? t('psd.layersOnly')
              : t('psd.recomposited')
      : shown.kind === 'decoding'
        ? t('psd.decoding')
        : ''

  return (
    <div
      className="psd-view"
      data-testid="psd-preview"
      data-source={shown.kind === 'shown' ? shown.source : shown.kind}
    >
      {!compact && (
        <div className="image-preview-bar" role="toolbar" aria-label={t('image.tools')}>
          <span className="badge">{t('image.previewOnly')}</span>
          <span className="image-preview-note" role="status" data-testid="psd-note">
            {note}
          </span>
          {shown.kind === 'shown' && shown.source === 'preview' && (
            <button type="button" className="image-tool" onClick={reset}>
              {t('psd.reset')}
            </button>
          )}
          {shown.kind === 'shown' && (
            <ConvertToPng
              toPng={async () => (canvas.current ? canvasPng(canvas.current) : new Uint8Array())}
              createCopy={props.options.createCopy}
              openFile={props.options.openFile}
            />
          )}
        </div>
      )}
      {shown.kind === 'failed' ? (
        <ErrorLine
          className="viewer-note viewer-error"
          testId="psd-unavailable"
          message={t('psd.unavailable', { reason: shown.reason })}
        />
      ) : (
        <div className="psd-body">
          <div className="image-view image-view-full psd-canvas">
            <canvas ref={canvas} data-testid="psd-canvas" aria-label={props.options.path} role="img" />
          </div>
          {!compact && layers.length > 0 && (
            <section className="psd-layers" aria-label={t('psd.layers')}>
              <h3>{t('psd.layers')}</h3>
              <ul role="tree" aria-label={t('psd.layers')}>
                {layers.map((layer) => (
                  <LayerRow key={layer.id} layer={layer} hidden={hidden} onToggle={toggle} />
                ))}
              </ul>
            </section>
          )}
        </div>
      )}
    </div>
  )
}

function LayerRow(props: { layer: PsdLayerNode; hidden: ReadonlySet<number>; onToggle: (id: number) => void }) {
  const { t } = useI18n()
  const { layer } = props
  const name = layer.name || `#${layer.id}`
  return (
    <li role="treeitem" aria-label={name} aria-expanded={layer.group ? true : undefined} data-testid="psd-layer">
      <label className="psd-layer">
        <input
          type="checkbox"
          checked={!props.hidden.has(layer.id)}
          aria-label={t('psd.visible', { name })}
          onChange={() => props.onToggle(layer.id)}
        />
        <span className="psd-layer-name">{name}</span>
        <span className="psd-layer-meta">
          {[
            layer.group ? t('psd.group') : null,
            layer.blendMode,
            t('psd.opacity', { value: layer.opacity }),
            layer.group
              ? null
              : t('psd.bounds', {
                  width: layer.bounds.width,
                  height: layer.bounds.height,
                  left: layer.bounds.left,
                  top: layer.bounds.top,
                }),
            layer.text !== undefined ? t('psd.textLayer', { text: layer.text }) : null,
          ]
            .filter(Boolean)
            .join(' · ')}
        </span>
      </label>
      {layer.children && layer.children.length > 0 && (
        <ul role="group">
          {layer.children.map((child) => (
            <LayerRow key={child.id} layer={child} hidden={props.hidden} onToggle={props.onToggle} />
          ))}
        </ul>
      )}
    </li>
  )
}

/**
 * Bits per channel from the PSD header (big-endian at byte 22). The decoder's own message for an
 * unsupported depth is not fit to show (and misspelled), so the view names the depth itself.
 */
function psdBitDepth(bytes: Uint8Array): string {
  return bytes.length >= 24 ? String((bytes[22] ?? 0) * 256 + (bytes[23] ?? 0)) : '?'
}
