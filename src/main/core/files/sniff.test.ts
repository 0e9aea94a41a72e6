import { expect, test } from 'vitest'
import { sniffMime } from './sniff'

const bytes = (...parts: Array<string | number[]>) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...part].map((c) => c.charCodeAt(0)) : part)))

test('media containers and BMP are recognised by their content, whatever the name says', () => {
  expect(sniffMime('a.bin', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).toBe('audio/wav')
  expect(sniffMime('a.bin', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp')
  expect(sniffMime('clip.bin', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))).toBe('video/webm')
  expect(sniffMime('clip.mkv', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))).toBe('video/x-matroska')
  expect(sniffMime('x', bytes([0, 0, 0, 0x18], 'ftypisom', [0, 0, 0, 0]))).toBe('video/mp4')
  expect(sniffMime('x', bytes([0, 0, 0, 0x18], 'ftypavif', [0, 0, 0, 0]))).toBe('image/avif')
  expect(sniffMime('x', bytes('OggS', [0, 2]))).toBe('audio/ogg')
  expect(sniffMime('x', bytes('fLaC'))).toBe('audio/flac')
  expect(sniffMime('x', bytes('ID3', [4, 0]))).toBe('audio/mpeg')
  const bmp = new Uint8Array(54)
  bmp.set(bytes('BM'), 0)
  bmp[14] = 40
  expect(sniffMime('picture.dat', bmp)).toBe('image/bmp')
  // "BM" alone (a binary blob that happens to start so) is not a bitmap.
  expect(sniffMime('blob.dat', bytes('BMxx', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]))).toBe(
    'application/octet-stream',
  )
})
