import { lookup } from 'mime-types'

const MAGIC: ReadonlyArray<{ mime: string; bytes: readonly number[]; offset?: number }> = [
  { mime: 'application/pdf', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { mime: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mime: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { mime: 'image/gif', bytes: [0x47, 0x49, 0x46, 0x38] },
  { mime: 'image/webp', bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 },
  { mime: 'image/vnd.adobe.photoshop', bytes: [0x38, 0x42, 0x50, 0x53] },
  { mime: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { mime: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  // "BM", then a reserved zero word at 6 and a DIB header size of 12/40/52/56/108/124 at 14.
  { mime: 'image/bmp', bytes: [0x42, 0x4d] },
  { mime: 'audio/wav', bytes: [0x57, 0x41, 0x56, 0x45], offset: 8 },
  { mime: 'audio/ogg', bytes: [0x4f, 0x67, 0x67, 0x53] },
  { mime: 'audio/flac', bytes: [0x66, 0x4c, 0x61, 0x43] },
  { mime: 'audio/mpeg', bytes: [0x49, 0x44, 0x33] },
  // EBML: WebM or Matroska; the name tells which (`.mkv`), WebM otherwise.
  { mime: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { mime: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { mime: 'application/gzip', bytes: [0x1f, 0x8b] },
]

/** ISO base media files (`ftyp` at 4): the brand says MP4, QuickTime, AVIF, HEIC or M4A. */
const FTYP_BRANDS: ReadonlyArray<[RegExp, string]> = [
  [/^avi[fs]/, 'image/avif'],
  [/^(heic|heix|mif1|msf1)/, 'image/heic'],
  [/^qt {2}/, 'video/quicktime'],
  [/^M4A /, 'audio/mp4'],
]

const utf8 = new TextDecoder('utf-8', { fatal: true })

export type ContentClass = { kind: 'text'; text: string } | { kind: 'binary'; mime: string }

/**
 * Text is valid UTF-8 with no NUL byte; everything else is binary and described by its magic
 * number first (the content decides), then by its extension. Binary bytes are never decoded.
 */
export function classifyContent(name: string, bytes: Uint8Array): ContentClass {
  const looksBinary = bytes.subarray(0, 8192).includes(0)
  if (!looksBinary) {
    try {
      return { kind: 'text', text: utf8.decode(bytes) }
    } catch {
      // not UTF-8: fall through to binary
    }
  }
  return { kind: 'binary', mime: sniffMime(name, bytes) }
}

export function sniffMime(name: string, bytes: Uint8Array): string {
  for (const magic of MAGIC) {
    const offset = magic.offset ?? 0
    if (magic.bytes.every((byte, i) => bytes[offset + i] === byte)) {
      // A zip container is more specific by extension (docx, xlsx, pptx, jar…).
      if (magic.mime === 'application/zip') return lookup(name) || magic.mime
      if (magic.mime === 'image/bmp' && !isBmp(bytes)) continue
      if (magic.mime === 'video/webm' && /\.mkv$/i.test(name)) return 'video/x-matroska'
      if (magic.mime === 'audio/ogg' && /\.(ogv|ogm)$/i.test(name)) return 'video/ogg'
      return magic.mime
    }
  }
  if (bytes.length >= 12 && String.fromCharCode(...bytes.subarray(4, 8)) === 'ftyp') {
    const brand = String.fromCharCode(...bytes.subarray(8, 12))
    return FTYP_BRANDS.find(([pattern]) => pattern.test(brand))?.[1] ?? 'video/mp4'
  }
  return lookup(name) || 'application/octet-stream'
}

function isBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 18 || bytes[6] !== 0 || bytes[7] !== 0 || bytes[8] !== 0 || bytes[9] !== 0) return false
  const header = (bytes[14] ?? 0) | ((bytes[15] ?? 0) << 8) | ((bytes[16] ?? 0) << 16) | ((bytes[17] ?? 0) << 24)
  return [12, 40, 52, 56, 64, 108, 124].includes(header)
}
