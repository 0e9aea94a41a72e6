/// <reference lib="webworker" />
import * as UTIFModule from 'utif2'

// utif2 is CommonJS assigning its functions at run time: an ESM namespace import may hold them
// only under `default`.
const UTIF = (UTIFModule as unknown as { default?: typeof UTIFModule }).default ?? UTIFModule

// utif2 reaches for `window` when converting CMYK; in a worker that is the worker scope.
;(self as unknown as { window?: unknown }).window ??= self

const scope = self as unknown as DedicatedWorkerGlobalScope

/** A page larger than this is not decoded (spec 09 image limits): the view says so instead. */
const MAX_PIXELS = 16_000_000

export type TiffRequest = { kind: 'open'; bytes: ArrayBuffer } | { kind: 'page'; index: number }
export type TiffResponse =
  | { kind: 'opened'; pages: number }
  | {
      kind: 'page'
      index: number
      width: number
      height: number
      image: ImageBitmap | null
      /** Converted for display: bits per sample over 8, or CMYK. */
      bits: number
      cmyk: boolean
      tooLarge: boolean
    }
  | { kind: 'failed'; message: string }

let buffer: ArrayBuffer | null = null
let pages: UTIFModule.IFD[] = []

const num = (tag: unknown, fallback: number) => (Array.isArray(tag) && typeof tag[0] === 'number' ? tag[0] : fallback)

scope.onmessage = async (event: MessageEvent<TiffRequest>) => {
  const request = event.data
  try {
    if (request.kind === 'open') {
      buffer = request.bytes
      // Only the top-level images are pages (sub-IFDs are thumbnails or masks).
      pages = UTIF.decode(buffer).filter((ifd) => ifd.t256 !== undefined)
      scope.postMessage({ kind: 'opened', pages: pages.length } satisfies TiffResponse)
      return
    }
    const ifd = pages[request.index]
    if (!ifd || !buffer) throw new Error(`no page ${request.index + 1}`)
    const width = num(ifd.t256, 0)
    const height = num(ifd.t257, 0)
    const bits = num(ifd.t258, 1)
    const cmyk = num(ifd.t262, 2) === 5
    if (width * height > MAX_PIXELS) {
      scope.postMessage({
        kind: 'page',
        index: request.index,
        width,
        height,
        image: null,
        bits,
        cmyk,
        tooLarge: true,
      } satisfies TiffResponse)
      return
    }
    UTIF.decodeImage(buffer, ifd)
    const rgba = UTIF.toRGBA8(ifd)
    const image = await createImageBitmap(
      new ImageData(
        new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, width * height * 4),
        width,
        height,
      ),
    )
    scope.postMessage(
      { kind: 'page', index: request.index, width, height, image, bits, cmyk, tooLarge: false } satisfies TiffResponse,
      [image],
    )
  } catch (error) {
    scope.postMessage({
      kind: 'failed',
      message: error instanceof Error ? error.message : String(error),
    } satisfies TiffResponse)
  }
}
