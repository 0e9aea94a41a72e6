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
  { mime: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { mime: 'application/gzip', bytes: [0x1f, 0x8b] },
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
      return magic.mime
    }
  }
  return lookup(name) || 'application/octet-stream'
}
