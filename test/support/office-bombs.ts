import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createDeflateRaw, crc32 } from 'node:zlib'

/**
 * Crafted Office packages (issue 23 item 9), shared by the engine's tests and the document view's
 * e2e. Each is a valid ZIP written by hand, so an entry can declare any size it likes; its parts
 * are deflate streams of a repeated pattern, small on disk and huge once inflated.
 */
export const MiB = 1024 * 1024
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'
const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'

export interface DeflatedPart {
  /** Raw deflate bytes (ZIP method 8). */
  readonly data: Buffer
  readonly crc: number
  /** What it really inflates to. */
  readonly size: number
}

/** `unit` repeated up to `total` bytes, deflated as a stream: never held inflated in memory. */
export async function deflatedRepeat(unit: Buffer, total: number): Promise<DeflatedPart> {
  const chunk = Buffer.concat(Array.from({ length: Math.ceil(MiB / unit.length) }, () => unit)).subarray(0, MiB)
  const deflate = createDeflateRaw({ level: 6 })
  const out: Buffer[] = []
  deflate.on('data', (piece: Buffer) => out.push(piece))
  let crc = 0
  let written = 0
  while (written < total) {
    const piece = chunk.subarray(0, Math.min(chunk.length, total - written))
    crc = crc32(piece, crc)
    written += piece.length
    if (!deflate.write(piece)) await once(deflate, 'drain')
  }
  deflate.end()
  await once(deflate, 'end')
  return { data: Buffer.concat(out), crc, size: total }
}

/** WordprocessingML paragraphs of random hex text: compresses about 150:1 when repeated, under the 200:1 bound. */
export function paragraphUnit(bytes = 8192): Buffer {
  const open = '<w:p><w:r><w:t>'
  const close = '</w:t></w:r></w:p>'
  const text = randomBytes(bytes)
    .toString('hex')
    .slice(0, bytes - open.length - close.length)
  return Buffer.from(open + text + close)
}

/** `<w:p/>` over and over: compresses about 1000:1. */
export const EMPTY_PARAGRAPHS = Buffer.from('<w:p/>'.repeat(1024))

export type ZipPart = { name: string; stored: string } | { name: string; deflated: DeflatedPart; declaredSize?: number }

/** A ZIP with exactly these entries; `declaredSize` is what the headers claim, true or not. */
export function zip(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const part of parts) {
    const name = Buffer.from(part.name)
    const body = 'stored' in part ? Buffer.from(part.stored) : part.deflated.data
    const method = 'stored' in part ? 0 : 8
    const crc = 'stored' in part ? crc32(body) : part.deflated.crc
    const declared = 'stored' in part ? body.length : (part.declaredSize ?? part.deflated.size)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(method, 8)
    local.writeUInt16LE(0x21, 12) // 1980-01-01
    local.writeUInt32LE(crc >>> 0, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(declared, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(method, 10)
    central.writeUInt16LE(0x21, 14)
    central.writeUInt32LE(crc >>> 0, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(declared, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += local.length + name.length + body.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A DOCX whose document and header parts are the given bodies (a header per extra part). */
export function craftedDocx(document: ZipPart | null, headers: DeflatedPart[], declaredHeaderSize?: number): Buffer {
  const headerNames = headers.map((_, i) => `word/header${i + 1}.xml`)
  return zip([
    {
      name: '[Content_Types].xml',
      stored: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      stored: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: 'word/_rels/document.xml.rels',
      stored: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}">${headerNames
        .map((name, i) => `<Relationship Id="rIdH${i}" Type="${REL}/header" Target="${name.slice('word/'.length)}"/>`)
        .join('')}</Relationships>`,
    },
    document ?? {
      name: 'word/document.xml',
      stored: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W_NS}"><w:body><w:p><w:r><w:t>Hello</w:t></w:r></w:p></w:body></w:document>`,
    },
    ...headers.map((deflated, i) => ({
      name: headerNames[i] ?? '',
      deflated,
      ...(declaredHeaderSize !== undefined ? { declaredSize: declaredHeaderSize } : {}),
    })),
  ])
}
