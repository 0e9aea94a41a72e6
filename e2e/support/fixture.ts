import { mkdirSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'

export const FIXTURE_ROOT_FILES = 150

/**
 * A project folder a person could have: >100 entries at the root (so the explorer pages), nested
 * sources, a real PNG, and a sparse file over the 64 MiB read limit.
 */
export function writeFixtureProject(root: string): void {
  mkdirSync(join(root, 'src', 'lib'), { recursive: true })
  mkdirSync(join(root, 'docs'))
  writeFileSync(
    join(root, 'src', 'main.ts'),
    ['// Retrace fixture', "import { greet } from './lib/greet'", '', "console.log(greet('world'))", ''].join('\n'),
  )
  writeFileSync(join(root, 'src', 'lib', 'greet.ts'), 'export const greet = (name: string) => `hello ${name}`\n')
  writeFileSync(join(root, 'docs', 'guide.md'), '# Guide\n\nThe quick brown fox.\n')
  for (let i = 0; i < FIXTURE_ROOT_FILES; i++) {
    writeFileSync(join(root, `note-${String(i).padStart(3, '0')}.txt`), `note number ${i}\n`)
  }
  writeFileSync(join(root, 'pixel.png'), tinyPng())
  const huge = join(root, 'huge.log')
  writeFileSync(huge, '')
  truncateSync(huge, 64 * 1024 * 1024 + 1)
}

/** A valid 1×1 RGBA PNG, built from its chunks so it is a real image, not bytes with a name. */
export function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const sum = Buffer.alloc(4)
    sum.writeUInt32BE(crc(body))
    return Buffer.concat([length, body, sum])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(1, 0)
  header.writeUInt32BE(1, 4)
  header.set([8, 6, 0, 0, 0], 8)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 0x2f, 0x6f, 0xed, 0xff]))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A valid one-page PDF showing `text`, with a correct cross-reference table. */
export function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 36 Tf 40 120 Td (${text.replace(/[()\\]/g, '')}) Tj ET`
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, i) => {
    offsets.push(body.length)
    body += `${i + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}
