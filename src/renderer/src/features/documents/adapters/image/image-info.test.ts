import { encode as encodePng } from 'fast-png'
import { describe, expect, test } from 'vitest'
import { editVerdict, imageInfo, isLosslessWebp } from './image-info'

const png = (width: number, height: number) =>
  encodePng({ width, height, data: new Uint8Array(width * height * 3), channels: 3, depth: 8 })

const png16 = (width: number, height: number) =>
  encodePng({ width, height, data: new Uint16Array(width * height * 3), channels: 3, depth: 16 })

/** A 2×2 GIF with `frames` image descriptors (one-colour frames, no global palette). */
function gif(frames: number): Uint8Array {
  const frame = [0x2c, 0, 0, 0, 0, 2, 0, 2, 0, 0x80, 0, 0, 0, 255, 255, 255, 0x02, 0x02, 0x44, 0x01, 0x00]
  return new Uint8Array([
    ...[0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 2, 0, 2, 0, 0x00, 0, 0],
    ...Array.from({ length: frames }, () => frame).flat(),
    0x3b,
  ])
}

/** A minimal APNG header: signature, IHDR, then an acTL chunk announcing `frames` frames. */
function apngHeader(frames: number): Uint8Array {
  const plain = png(4, 4)
  const actl = new Uint8Array(20)
  const view = new DataView(actl.buffer)
  view.setUint32(0, 8)
  actl.set([0x61, 0x63, 0x54, 0x4c], 4)
  view.setUint32(8, frames)
  const out = new Uint8Array(plain.length + actl.length)
  out.set(plain.subarray(0, 33), 0)
  out.set(actl, 33)
  out.set(plain.subarray(33), 53)
  return out
}

describe('image headers decide what the editor may open', () => {
  test('an 8-bit PNG within the limits is editable', () => {
    const info = imageInfo(png(300, 200))
    expect(info).toMatchObject({ format: 'png', width: 300, height: 200, animated: false, bitDepth: 8 })
    expect(editVerdict(info, 1000)).toEqual({ kind: 'editable' })
  })

  test('animated GIF and APNG, 16-bit PNG and GIF at all are preview-only, each with its reason', () => {
    expect(editVerdict(imageInfo(gif(3)), 500)).toEqual({ kind: 'preview', reason: 'format' })
    expect(imageInfo(gif(3)).animated).toBe(true)
    expect(imageInfo(gif(1)).animated).toBe(false)
    expect(editVerdict(imageInfo(apngHeader(3)), 500)).toEqual({ kind: 'preview', reason: 'animated' })
    expect(imageInfo(apngHeader(1)).animated).toBe(false)
    expect(editVerdict(imageInfo(png16(8, 8)), 500)).toEqual({ kind: 'preview', reason: 'deep' })
  })

  test('the limits: 64 MiB, 16 megapixels, 16 384 px on a side', () => {
    const header = (width: number, height: number) => {
      const bytes = png(1, 1)
      const view = new DataView(bytes.buffer, bytes.byteOffset)
      view.setUint32(16, width)
      view.setUint32(20, height)
      return imageInfo(bytes)
    }
    expect(editVerdict(header(4000, 4000), 1000)).toEqual({ kind: 'editable' })
    expect(editVerdict(header(4001, 4000), 1000)).toEqual({ kind: 'preview', reason: 'pixels' })
    expect(editVerdict(header(16_385, 10), 1000)).toEqual({ kind: 'preview', reason: 'side' })
    expect(editVerdict(header(100, 100), 64 * 1024 * 1024 + 1)).toEqual({ kind: 'preview', reason: 'bytes' })
  })

  test('JPEG size comes from its start-of-frame; WebP from VP8X/VP8L/VP8 and its animation flag', () => {
    // SOI, an APP0 segment, then SOF0 with 8-bit precision, height 480, width 640.
    const jpeg = new Uint8Array([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03,
    ])
    expect(imageInfo(new Uint8Array([...jpeg, ...new Array(20).fill(0)]))).toMatchObject({
      format: 'jpeg',
      width: 640,
      height: 480,
    })
    const webp = new Uint8Array(40)
    webp.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    )
    webp.set(
      [...'WEBPVP8X'].map((c) => c.charCodeAt(0)),
      8,
    )
    webp[20] = 0x02 // animation
    webp.set([99, 0, 0, 49, 0, 0], 24) // 100 × 50
    expect(imageInfo(webp)).toMatchObject({ format: 'webp', width: 100, height: 50, animated: true })
  })
})

describe('lossless WebP', () => {
  const riff = (...chunks: Array<[string, number]>) => {
    const parts = chunks.map(([id, size]) => {
      const chunk = new Uint8Array(8 + size + (size % 2))
      chunk.set(
        [...id].map((c) => c.charCodeAt(0)),
        0,
      )
      new DataView(chunk.buffer).setUint32(4, size, true)
      return chunk
    })
    const body = parts.reduce((total, part) => total + part.length, 0)
    const file = new Uint8Array(12 + body)
    file.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    )
    new DataView(file.buffer).setUint32(4, 4 + body, true)
    file.set(
      [...'WEBP'].map((c) => c.charCodeAt(0)),
      8,
    )
    let at = 12
    for (const part of parts) {
      file.set(part, at)
      at += part.length
    }
    return file
  }
  test('finds VP8L after the extended header and an odd-sized chunk; VP8 is lossy', () => {
    expect(isLosslessWebp(riff(['VP8X', 10], ['ICCP', 3], ['VP8L', 12]))).toBe(true)
    expect(isLosslessWebp(riff(['VP8X', 10], ['VP8 ', 12]))).toBe(false)
    expect(isLosslessWebp(new Uint8Array([1, 2, 3]))).toBe(false)
  })
})
