import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd'
import { encode as encodePng } from 'fast-png'
import { GIFEncoder } from 'gifenc'
import * as UTIFModule from 'utif2'

// utif2 is CommonJS assigning its functions at run time: an ESM namespace import may hold them
// only under `default`.
const UTIF = (UTIFModule as unknown as { default?: typeof UTIFModule }).default ?? UTIFModule

/**
 * Images for the e2e tests, written by scripts (no binary fixtures in the repo): PNGs with
 * fast-png, an animated GIF with gifenc, a layered PSD with ag-psd itself, a multi-page TIFF with
 * utif2's IFD writer, a WAV by hand. JPEG, WebP and WebM come from the browser under test
 * (e2e/images.test.ts), which is the only encoder for them available here.
 */

export type Pixel = readonly [number, number, number, number]

/** The test pattern of the editing test: four vertical bands, the top half lighter. */
export function patternPixel(x: number, y: number): Pixel {
  const band = Math.floor(x / 50)
  return [band * 60, y < 50 ? 200 : 100, 255 - band * 60, 255]
}

export function rgba(width: number, height: number, pixel: (x: number, y: number) => Pixel): Uint8Array {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4)
  return data
}

export function png(width: number, height: number, pixel: (x: number, y: number) => Pixel): Uint8Array {
  return encodePng({ width, height, data: rgba(width, height, pixel), channels: 4, depth: 8 })
}

/** A 16-bit-per-channel RGB PNG (a gradient): preview-only, editing would lose precision. */
export function png16(width: number, height: number): Uint8Array {
  const data = new Uint16Array(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set([(x * 65535) / width, (y * 65535) / height, 30000], (y * width + x) * 3)
  return encodePng({ width, height, data, channels: 3, depth: 16 })
}

/** A PNG whose header declares `width`×`height` but that is cheap to write (one flat colour). */
export function largePng(width: number, height: number): Uint8Array {
  return encodePng({ width, height, data: new Uint8Array(width * height * 3).fill(180), channels: 3, depth: 8 })
}

/** Three frames of a moving square. */
export function animatedGif(): Uint8Array {
  const gif = GIFEncoder()
  const palette = [
    [255, 255, 255],
    [220, 40, 40],
  ]
  for (let frame = 0; frame < 3; frame++) {
    const index = new Uint8Array(60 * 40)
    for (let y = 10; y < 30; y++) for (let x = 5 + frame * 15; x < 25 + frame * 15; x++) index[y * 60 + x] = 1
    gif.writeFrame(index, 60, 40, { palette, delay: 200, repeat: 0 })
  }
  gif.finish()
  return gif.bytes()
}

/** An SVG with a script and an external image: neither may run or load. */
export function hostileSvg(externalUrl: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80" viewBox="0 0 120 80">
  <rect width="120" height="80" fill="#3b82f6"/>
  <circle cx="60" cy="40" r="25" fill="#facc15"/>
  <image href="${externalUrl}" x="0" y="0" width="20" height="20"/>
  <script>window.parent.__svgRan = true; document.title = 'svg script ran'; fetch('${externalUrl}?script')</script>
</svg>
`
}

function layerPixels(width: number, height: number, color: Pixel): Layer['imageData'] {
  return { width, height, data: new Uint8ClampedArray(rgba(width, height, () => color)) }
}

/**
 * A layered PSD: a white background, a red square, a group holding a blue square and a text
 * layer. `layers` extra flat layers make the benchmark's 50-layer document. The composite is the
 * layers flattened (as Photoshop's "maximize compatibility" writes it) unless `emptyComposite`.
 */
export function layeredPsd(
  options: { extraLayers?: number; size?: number; emptyComposite?: boolean | 'black' } = {},
): Uint8Array {
  const size = options.size ?? 120
  const s = size / 120
  const red: Pixel = [220, 30, 30, 255]
  const blue: Pixel = [30, 60, 220, 255]
  const square = (name: string, color: Pixel, left: number, top: number, side: number): Layer => ({
    name,
    left: Math.round(left * s),
    top: Math.round(top * s),
    imageData: layerPixels(Math.round(side * s), Math.round(side * s), color),
  })
  const extra: Layer[] = []
  for (let i = 0; i < (options.extraLayers ?? 0); i++) {
    extra.push({
      ...square(
        `Tile ${i + 1}`,
        [(i * 37) % 255, (i * 91) % 255, (i * 53) % 255, 255],
        (i % 10) * 11,
        Math.floor(i / 10) * 11,
        10,
      ),
      opacity: 0.8,
      blendMode: i % 3 === 0 ? 'multiply' : 'normal',
    })
  }
  const composite = new Uint8ClampedArray(
    rgba(size, size, (x, y) => {
      if (options.emptyComposite === 'black') return [0, 0, 0, 255]
      if (options.emptyComposite) return [0, 0, 0, 0]
      const inBlue = x >= 60 * s && x < 100 * s && y >= 60 * s && y < 100 * s
      const inRed = x >= 20 * s && x < 60 * s && y >= 20 * s && y < 60 * s
      return inBlue ? blue : inRed ? red : [255, 255, 255, 255]
    }),
  )
  const psd: Psd = {
    width: size,
    height: size,
    imageData: { width: size, height: size, data: composite },
    children: [
      { ...square('Background', [255, 255, 255, 255], 0, 0, 120) },
      { ...square('Red square', red, 20, 20, 40) },
      ...extra,
      {
        name: 'Details',
        opened: true,
        children: [
          { ...square('Blue square', blue, 60, 60, 40), blendMode: 'normal', opacity: 1 },
          {
            name: 'Caption',
            left: 5,
            top: 100,
            text: {
              text: 'Hello PSD',
              transform: [1, 0, 0, 1, 5, 110],
              style: { font: { name: 'ArialMT' }, fontSize: 12, fillColor: { r: 0, g: 0, b: 0 } },
            },
          },
        ],
      },
    ],
  }
  return writePsdUint8Array(psd, { noBackground: false, invalidateTextLayers: false })
}

/** The same document declared CMYK in its header (colour mode 4): the decoder refuses it. */
export function cmykPsd(): Uint8Array {
  const bytes = layeredPsd()
  bytes[24] = 0
  bytes[25] = 4
  return bytes
}

/**
 * A two-page TIFF: page 1 8-bit RGB (green), page 2 16-bit RGB (a red gradient) — the viewer
 * converts page 2 for display and says so. Strips are uncompressed, big-endian.
 */
export function twoPageTiff(): Uint8Array {
  const w = 64
  const h = 48
  const page1 = new Uint8Array(w * h * 3)
  for (let i = 0; i < w * h; i++) page1.set([40, 180, 60], i * 3)
  const page2 = new Uint8Array(w * h * 6)
  const view = new DataView(page2.buffer)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 6
      view.setUint16(o, Math.round((x / (w - 1)) * 65535))
      view.setUint16(o + 2, 2000)
      view.setUint16(o + 4, 2000)
    }
  const offset1 = 4096
  const offset2 = offset1 + page1.length
  const ifd = (bits: number, offset: number, bytes: number) => ({
    t256: [w],
    t257: [h],
    t258: [bits, bits, bits],
    t259: [1],
    t262: [2],
    t273: [offset],
    t277: [3],
    t278: [h],
    t279: [bytes],
    t284: [1],
  })
  const header = new Uint8Array(
    UTIF.encode([ifd(8, offset1, page1.length), ifd(16, offset2, page2.length)] as unknown as UTIFModule.IFD[]),
  )
  if (header.length > offset1) throw new Error('TIFF header too long')
  const file = new Uint8Array(offset2 + page2.length)
  file.set(header, 0)
  file.set(page1, offset1)
  file.set(page2, offset2)
  return file
}

/**
 * A 32-bit float RGB page, Deflate with the floating-point predictor (what ImageMagick writes for
 * `-define quantum:format=floating-point`). Its strip is not real Deflate data: a viewer that
 * knows it cannot decode this encoding must say so before trying.
 */
export function floatPredictorTiff(): Uint8Array {
  const w = 32
  const h = 16
  const strip = new Uint8Array(w * h * 12).fill(0x55)
  const offset = 4096
  const header = new Uint8Array(
    UTIF.encode([
      {
        t256: [w],
        t257: [h],
        t258: [32, 32, 32],
        t259: [8],
        t262: [2],
        t273: [offset],
        t277: [3],
        t278: [h],
        t279: [strip.length],
        t284: [1],
        t317: [3],
        t339: [3, 3, 3],
      },
    ] as unknown as UTIFModule.IFD[]),
  )
  const file = new Uint8Array(offset + strip.length)
  file.set(header, 0)
  file.set(strip, offset)
  return file
}

/** One second of a 440 Hz tone, 8 kHz mono 16-bit PCM. */
export function wav(): Uint8Array {
  const rate = 8000
  const samples = rate
  const buffer = new ArrayBuffer(44 + samples * 2)
  const view = new DataView(buffer)
  const text = (offset: number, value: string) =>
    [...value].forEach((c, i) => view.setUint8(offset + i, c.charCodeAt(0)))
  text(0, 'RIFF')
  view.setUint32(4, 36 + samples * 2, true)
  text(8, 'WAVE')
  text(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, rate, true)
  view.setUint32(28, rate * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  text(36, 'data')
  view.setUint32(40, samples * 2, true)
  for (let i = 0; i < samples; i++)
    view.setInt16(44 + i * 2, Math.round(Math.sin((i / rate) * 2 * Math.PI * 440) * 12000), true)
  return new Uint8Array(buffer)
}
