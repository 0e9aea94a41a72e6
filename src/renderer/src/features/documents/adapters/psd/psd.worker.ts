/// <reference lib="webworker" />
import { initializeCanvas, readPsd, type Layer, type Psd } from 'ag-psd'
import type { PsdLayerNode, PsdRequest, PsdResponse, PsdSource } from './protocol'

// ag-psd draws through canvases; in a worker those are OffscreenCanvas (same 2D API).
initializeCanvas(
  (width, height) => new OffscreenCanvas(width, height) as unknown as HTMLCanvasElement,
  (width, height) => new ImageData(width, height),
)

const scope = self as unknown as DedicatedWorkerGlobalScope

/** Photoshop blend modes the canvas has an equivalent for; the rest draw as normal. */
const BLEND: Record<string, GlobalCompositeOperation> = {
  normal: 'source-over',
  'pass through': 'source-over',
  multiply: 'multiply',
  screen: 'screen',
  overlay: 'overlay',
  darken: 'darken',
  lighten: 'lighten',
  'color dodge': 'color-dodge',
  'color burn': 'color-burn',
  'hard light': 'hard-light',
  'soft light': 'soft-light',
  difference: 'difference',
  exclusion: 'exclusion',
  hue: 'hue',
  saturation: 'saturation',
  color: 'color',
  luminosity: 'luminosity',
  'linear dodge': 'lighter',
}

let psd: Psd | null = null
const ids = new Map<Layer, number>()
const canvases = new Map<Layer, OffscreenCanvas>()

function node(layer: Layer): PsdLayerNode {
  const id = ids.size + 1
  ids.set(layer, id)
  const left = layer.left ?? 0
  const top = layer.top ?? 0
  return {
    id,
    name: layer.name ?? '',
    hidden: layer.hidden === true,
    opacity: Math.round((layer.opacity ?? 1) * 100),
    blendMode: layer.blendMode ?? 'normal',
    bounds: { left, top, width: (layer.right ?? left) - left, height: (layer.bottom ?? top) - top },
    group: layer.children !== undefined,
    ...(layer.text?.text !== undefined ? { text: layer.text.text } : {}),
    ...(layer.children ? { children: [...layer.children].reverse().map(node) } : {}),
  }
}

function layerCanvas(layer: Layer): OffscreenCanvas | null {
  const data = layer.imageData
  if (!data || data.width === 0 || data.height === 0) return null
  let canvas = canvases.get(layer)
  if (!canvas) {
    canvas = new OffscreenCanvas(data.width, data.height)
    const pixels = new ImageData(
      new Uint8ClampedArray(data.data.buffer as ArrayBuffer, data.data.byteOffset, data.data.length),
      data.width,
      data.height,
    )
    canvas.getContext('2d')?.putImageData(pixels, 0, 0)
    canvases.set(layer, canvas)
  }
  return canvas
}

/** Draws `layers` (bottom first, as ag-psd lists them) onto `target`, groups into their own canvas. */
function draw(target: OffscreenCanvasRenderingContext2D, layers: readonly Layer[], hidden: ReadonlySet<number>) {
  const { width, height } = target.canvas
  for (const layer of layers) {
    if (hidden.has(ids.get(layer) ?? -1)) continue
    const opacity = layer.opacity ?? 1
    if (layer.children) {
      if (layer.blendMode === 'pass through' && opacity === 1) {
        draw(target, layer.children, hidden)
        continue
      }
      const group = new OffscreenCanvas(width, height)
      const context = group.getContext('2d')
      if (!context) continue
      draw(context, layer.children, hidden)
      target.globalAlpha = opacity
      target.globalCompositeOperation = BLEND[layer.blendMode ?? 'normal'] ?? 'source-over'
      target.drawImage(group, 0, 0)
      continue
    }
    const canvas = layerCanvas(layer)
    if (!canvas) continue
    target.globalAlpha = opacity
    target.globalCompositeOperation = BLEND[layer.blendMode ?? 'normal'] ?? 'source-over'
    target.drawImage(canvas, layer.left ?? 0, layer.top ?? 0)
  }
  target.globalAlpha = 1
  target.globalCompositeOperation = 'source-over'
}

function stackCanvas(hidden: ReadonlySet<number>): OffscreenCanvas {
  const current = psd as Psd
  const canvas = new OffscreenCanvas(current.width, current.height)
  const context = canvas.getContext('2d')
  if (context) draw(context, current.children ?? [], hidden)
  return canvas
}

function stack(hidden: ReadonlySet<number>): ImageBitmap {
  return stackCanvas(hidden).transferToImageBitmap()
}

/**
 * A composite that is missing or fully transparent, or all black in a file that has layers: what
 * writers that keep no composite store instead (it has no alpha channel, so it reads as opaque
 * black). A picture whose layers really make solid black is then drawn from its layers: the same
 * black, just composed here.
 */
function emptyComposite(current: Psd): boolean {
  const data = current.imageData?.data
  if (!data || data.length === 0) return true
  let transparent = true
  let black = true
  for (let i = 0; i < data.length && (transparent || black); i += 4) {
    if (data[i + 3] !== 0) transparent = false
    if (data[i] !== 0 || data[i + 1] !== 0 || data[i + 2] !== 0) black = false
  }
  return transparent || (black && (current.children?.length ?? 0) > 0)
}

/**
 * Photoshop with "Maximize compatibility" off keeps no composite: its version resource says
 * `hasRealMergedData` = 0 and the stored image is plain white. That flag, in a file with layers,
 * means the picture is drawn from the layers (checked before the thumbnail, which is 160 px at
 * most). A file without the version resource (other writers) and a plain white composite is drawn
 * from its layers only when they make something else than plain white: a white picture stays the
 * saved composite, and says so.
 */
function layersInsteadOfComposite(current: Psd): OffscreenCanvas | null {
  if ((current.children?.length ?? 0) === 0) return null
  const merged = current.imageResources?.versionInfo?.hasRealMergedData
  if (merged === true) return null
  if (merged === false) return stackCanvas(storedHidden())
  const data = current.imageData?.data
  if (!data || data.length === 0 || !plainWhite(data)) return null
  const stacked = stackCanvas(storedHidden())
  const pixels = stacked.getContext('2d')?.getImageData(0, 0, stacked.width, stacked.height).data
  return pixels && !plainWhite(pixels, { emptyIsWhite: true }) ? stacked : null
}

/** `emptyIsWhite`: a transparent pixel counts as white (layers that draw nothing there). */
function plainWhite(data: ArrayLike<number>, options: { emptyIsWhite?: boolean } = {}): boolean {
  for (let i = 0; i < data.length; i += 4) {
    if (options.emptyIsWhite && data[i + 3] === 0) continue
    if (data[i] !== 255 || data[i + 1] !== 255 || data[i + 2] !== 255 || data[i + 3] !== 255) return false
  }
  return true
}

/** The ids of the layers the file itself saves hidden. */
function storedHidden(): Set<number> {
  const hidden = new Set<number>()
  for (const [layer, id] of ids) if (layer.hidden) hidden.add(id)
  return hidden
}

function reply(message: PsdResponse, transfer: Transferable[] = []) {
  scope.postMessage(message, transfer)
}

scope.onmessage = async (event: MessageEvent<PsdRequest>) => {
  const request = event.data
  const started = performance.now()
  if (request.kind === 'composite') {
    if (!psd) return
    const hidden = new Set(request.hidden)
    // Stored visibility applies, with the person's toggles on top (ids of layers they hid; the
    // view sends every hidden id, so a layer hidden in the file and shown in the view is absent).
    const image = stack(hidden)
    reply({ kind: 'composited', image, ms: performance.now() - started }, [image])
    return
  }
  try {
    psd = readPsd(request.bytes, { useImageData: true, useRawThumbnail: true, skipLinkedFilesData: true })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    reply({
      kind: 'failed',
      reason: /color mode/i.test(message) ? 'color-mode' : /bit|depth/i.test(message) ? 'depth' : 'other',
      message,
    })
    return
  }
  ids.clear()
  canvases.clear()
  const current = psd
  const layers = [...(current.children ?? [])].reverse().map(node)
  let image: ImageBitmap
  let source: PsdSource = 'composite'
  const fromLayers = layersInsteadOfComposite(current)
  if (fromLayers) {
    source = 'layers'
    image = fromLayers.transferToImageBitmap()
  } else if (!emptyComposite(current) && current.imageData) {
    const data = current.imageData
    image = await createImageBitmap(
      new ImageData(
        new Uint8ClampedArray(data.data.buffer as ArrayBuffer, data.data.byteOffset, data.data.length),
        data.width,
        data.height,
      ),
    )
  } else if (current.imageResources?.thumbnailRaw) {
    source = 'thumbnail'
    const raw = current.imageResources.thumbnailRaw
    image = await createImageBitmap(new Blob([raw.data as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }))
  } else {
    source = 'stacked'
    image = stack(storedHidden())
  }
  reply(
    {
      kind: 'opened',
      width: current.width,
      height: current.height,
      layers,
      image,
      source,
      ms: performance.now() - started,
    },
    image ? [image] : [],
  )
}
