/// <reference lib="webworker" />
import * as UTIFModule from 'utif2'

// utif2 is CommonJS assigning its functions at run time: an ESM namespace import may hold them
// only under `default`.
const UTIF = (UTIFModule as unknown as { default?: typeof UTIFModule }).default ?? UTIFModule

// utif2 reaches for `window` when converting CMYK; in a worker that is the worker scope.
;(self as unknown as { window?: unknown }).window ??= self

const scope = self as unknown as DedicatedWorkerGlobalScope

/**
 * A page larger than this is not decoded: the view says so instead. Decision: spec 09's 16
 * megapixels bound editing; this is a preview, and 24–50 MP is an ordinary camera or scanner page.
 * 50 MP decodes to 200 MB of RGBA once, in this worker, and is then handed over as a bitmap.
 */
const MAX_PIXELS = 50_000_000

/**
 * Encodings utif2 decodes wrongly without an error (it draws stripes or noise): JPEG-compressed
 * pages with more than three samples (an alpha channel) and the floating-point predictor. The view
 * says the page cannot be shown rather than showing garbage.
 */
function unsupportedEncoding(ifd: UTIFModule.IFD): 'jpeg-alpha' | 'float-predictor' | null {
  const compression = num(ifd.t259, 1)
  if ((compression === 6 || compression === 7) && num(ifd.t277, 1) > 3) return 'jpeg-alpha'
  if (num(ifd.t317, 1) === 3) return 'float-predictor'
  return null
}

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
      unsupported: 'jpeg-alpha' | 'float-predictor' | null
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
    const tooLarge = width * height > MAX_PIXELS
    const unsupported = unsupportedEncoding(ifd)
    if (tooLarge || unsupported) {
      scope.postMessage({
        kind: 'page',
        index: request.index,
        width,
        height,
        image: null,
        bits,
        cmyk,
        tooLarge,
        unsupported,
      } satisfies TiffResponse)
      return
    }
    UTIF.decodeImage(buffer, ifd)
    const rgba = UTIF.toRGBA8(ifd)
    // utif2 keeps the decoded samples on the IFD, and the IFDs live as long as the file is open.
    delete (ifd as { data?: unknown }).data
    const image = await createImageBitmap(
      new ImageData(
        new Uint8ClampedArray(rgba.buffer as ArrayBuffer, rgba.byteOffset, width * height * 4),
        width,
        height,
      ),
    )
    scope.postMessage(
      {
        kind: 'page',
        index: request.index,
        width,
        height,
        image,
        bits,
        cmyk,
        tooLarge: false,
        unsupported: null,
      } satisfies TiffResponse,
      [image],
    )
  } catch (error) {
    scope.postMessage({
      kind: 'failed',
      message: error instanceof Error ? error.message : String(error),
    } satisfies TiffResponse)
  }
}
