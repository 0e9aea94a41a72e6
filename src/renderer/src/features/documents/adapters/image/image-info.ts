/**
 * What the header of an image file says, read without decoding it: enough to decide whether the
 * bitmap editor may open it (spec 09 "Images") before any pixel is decoded.
 */
export interface ImageInfo {
  readonly format: 'png' | 'jpeg' | 'webp' | 'gif' | 'bmp' | 'svg' | 'other'
  readonly width: number | null
  readonly height: number | null
  /** More than one frame (animated GIF, animated WebP, APNG). */
  readonly animated: boolean
  /** Bits per channel (PNG's IHDR; 8 elsewhere). */
  readonly bitDepth: number
}

/** The editor's limits (spec 09): past them editing is off, the image is still previewed. */
export const EDIT_LIMITS = { bytes: 64 * 1024 * 1024, pixels: 16_000_000, side: 16_384 } as const

export type EditVerdict =
  | { readonly kind: 'editable' }
  | {
      readonly kind: 'preview'
      readonly reason: 'animated' | 'deep' | 'format' | 'bytes' | 'pixels' | 'side' | 'unreadable'
    }

const u32be = (b: Uint8Array, i: number) =>
  (((b[i] ?? 0) << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) >>> 0
const u16be = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0)
const u16le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8)
const u24le = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16)
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n))

export function imageInfo(bytes: Uint8Array, path = ''): ImageInfo {
  if (ascii(bytes, 1, 3) === 'PNG') return pngInfo(bytes)
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpegInfo(bytes)
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return webpInfo(bytes)
  if (ascii(bytes, 0, 4) === 'GIF8') return gifInfo(bytes)
  if (ascii(bytes, 0, 2) === 'BM')
    return { format: 'bmp', width: u16le(bytes, 18), height: Math.abs(u16le(bytes, 22)), animated: false, bitDepth: 8 }
  if (/\.svgz?$/i.test(path)) return { format: 'svg', width: null, height: null, animated: false, bitDepth: 8 }
  return { format: 'other', width: null, height: null, animated: false, bitDepth: 8 }
}

function pngInfo(b: Uint8Array): ImageInfo {
  const width = u32be(b, 16)
  const height = u32be(b, 20)
  const bitDepth = b[24] ?? 8
  // An APNG has an acTL chunk before its first IDAT.
  let animated = false
  for (let i = 8; i + 8 <= b.length;) {
    const length = u32be(b, i)
    const type = ascii(b, i + 4, 4)
    if (type === 'acTL') animated = u32be(b, i + 8) > 1
    if (type === 'IDAT' || type === 'IEND') break
    i += 12 + length
  }
  return { format: 'png', width, height, animated, bitDepth }
}

function jpegInfo(b: Uint8Array): ImageInfo {
  for (let i = 2; i + 9 < b.length;) {
    if (b[i] !== 0xff) {
      i++
      continue
    }
    const marker = b[i + 1] ?? 0
    // Start-of-frame markers C0–CF, except DHT (C4), JPG (C8) and DAC (CC), carry the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        format: 'jpeg',
        width: u16be(b, i + 7),
        height: u16be(b, i + 5),
        animated: false,
        bitDepth: b[i + 4] ?? 8,
      }
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
      i += marker === 0xff ? 1 : 2
      continue
    }
    i += 2 + u16be(b, i + 2)
  }
  return { format: 'jpeg', width: null, height: null, animated: false, bitDepth: 8 }
}

function webpInfo(b: Uint8Array): ImageInfo {
  const chunk = ascii(b, 12, 4)
  if (chunk === 'VP8X') {
    const animated = ((b[20] ?? 0) & 0x02) !== 0
    return { format: 'webp', width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, animated, bitDepth: 8 }
  }
  if (chunk === 'VP8L') {
    const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24)
    return {
      format: 'webp',
      width: (bits & 0x3fff) + 1,
      height: ((bits >> 14) & 0x3fff) + 1,
      animated: false,
      bitDepth: 8,
    }
  }
  if (chunk === 'VP8 ')
    return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, animated: false, bitDepth: 8 }
  return { format: 'webp', width: null, height: null, animated: false, bitDepth: 8 }
}

/** Counts image descriptors (stopping at the second): more than one frame is an animation. */
function gifInfo(b: Uint8Array): ImageInfo {
  const width = u16le(b, 6)
  const height = u16le(b, 8)
  let i = 13
  const flags = b[10] ?? 0
  if (flags & 0x80) i += 3 * (1 << ((flags & 7) + 1))
  let frames = 0
  while (i < b.length && frames < 2) {
    const block = b[i]
    if (block === 0x3b) break
    if (block === 0x21) {
      i += 2
      while (i < b.length && b[i] !== 0) i += (b[i] ?? 0) + 1
      i++
    } else if (block === 0x2c) {
      frames++
      const local = b[i + 9] ?? 0
      i += 10
      if (local & 0x80) i += 3 * (1 << ((local & 7) + 1))
      i++ // LZW minimum code size
      while (i < b.length && b[i] !== 0) i += (b[i] ?? 0) + 1
      i++
    } else break
  }
  return { format: 'gif', width, height, animated: frames > 1, bitDepth: 8 }
}

/** Whether the bitmap editor may open this file, and if not, why (the preview says it). */
export function editVerdict(info: ImageInfo, size: number): EditVerdict {
  if (info.format !== 'png' && info.format !== 'jpeg' && info.format !== 'webp')
    return { kind: 'preview', reason: 'format' }
  if (info.animated) return { kind: 'preview', reason: 'animated' }
  if (info.bitDepth > 8) return { kind: 'preview', reason: 'deep' }
  if (size > EDIT_LIMITS.bytes) return { kind: 'preview', reason: 'bytes' }
  if (info.width === null || info.height === null || info.width === 0 || info.height === 0)
    return { kind: 'preview', reason: 'unreadable' }
  if (info.width > EDIT_LIMITS.side || info.height > EDIT_LIMITS.side) return { kind: 'preview', reason: 'side' }
  if (info.width * info.height > EDIT_LIMITS.pixels) return { kind: 'preview', reason: 'pixels' }
  return { kind: 'editable' }
}

/** Whether a WebP file holds a lossless (`VP8L`) image: walks its RIFF chunks from the header. */
export function isLosslessWebp(bytes: Uint8Array): boolean {
  const fourcc = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4))
  if (bytes.length < 20 || fourcc(0) !== 'RIFF' || fourcc(8) !== 'WEBP') return false
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let at = 12, seen = 0; at + 8 <= bytes.length && seen < 64; seen++) {
    const id = fourcc(at)
    if (id === 'VP8L') return true
    if (id === 'VP8 ') return false
    // Chunks are padded to an even size.
    at += 8 + view.getUint32(at + 4, true) + (view.getUint32(at + 4, true) % 2)
  }
  return false
}
