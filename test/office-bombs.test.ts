import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDeflateRaw, crc32 } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { watchEngine } from './support/liveness'
import { openProject, startCore } from './support/core'
import { makeDocx } from './support/office-fixtures'
import { tempDir } from './support/temp'

/**
 * Crafted Office packages (issue 23 item 9). Each is a valid ZIP written by hand, so an entry can
 * declare any size it likes; its parts are deflate streams of a repeated pattern, small on disk
 * and huge once inflated. The engine must refuse them with a precise TOO_LARGE, keep answering
 * while it does, and not balloon.
 */

const MiB = 1024 * 1024
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'
const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'

interface DeflatedPart {
  /** Raw deflate bytes (ZIP method 8). */
  readonly data: Buffer
  readonly crc: number
  /** What it really inflates to. */
  readonly size: number
}

/** `unit` repeated up to `total` bytes, deflated as a stream: never held inflated in memory. */
async function deflatedRepeat(unit: Buffer, total: number): Promise<DeflatedPart> {
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
function paragraphUnit(bytes = 8192): Buffer {
  const open = '<w:p><w:r><w:t>'
  const close = '</w:t></w:r></w:p>'
  const text = randomBytes(bytes)
    .toString('hex')
    .slice(0, bytes - open.length - close.length)
  return Buffer.from(open + text + close)
}

/** `<w:p/>` over and over: compresses about 1000:1. */
const EMPTY_PARAGRAPHS = Buffer.from('<w:p/>'.repeat(1024))

type ZipPart = { name: string; stored: string } | { name: string; deflated: DeflatedPart; declaredSize?: number }

/** A ZIP with exactly these entries; `declaredSize` is what the headers claim, true or not. */
function zip(parts: ZipPart[]): Buffer {
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
function craftedDocx(document: ZipPart | null, headers: DeflatedPart[], declaredHeaderSize?: number): Buffer {
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

type Case = {
  name: string
  build: () => Promise<Buffer>
  /** A TOO_LARGE reason, or the inspection state a lying package gets. */
  expected: { reason: string } | { state: 'corrupt' }
}

const CASES: Case[] = [
  {
    // The issue's file in small: header parts that honestly declare 250 MB each (under the old
    // 256 MiB bound, about 150:1 — under the old ratio bound too), so only their size stops them.
    name: 'header parts that each inflate to 250 MB',
    expected: { reason: 'part-bytes' },
    build: async () => {
      const header = await deflatedRepeat(paragraphUnit(), 250 * 1000 * 1000)
      expect(header.size / header.data.length).toBeLessThan(200)
      return craftedDocx(null, [header, header])
    },
  },
  {
    name: 'header parts each under the part bound that together inflate past the package bound',
    expected: { reason: 'package-bytes' },
    build: async () => {
      const header = await deflatedRepeat(paragraphUnit(), 60 * MiB)
      return craftedDocx(null, [header, header, header])
    },
  },
  {
    name: 'a document part with a 1000:1 compression ratio',
    expected: { reason: 'compression-ratio' },
    build: async () => {
      const body = await deflatedRepeat(EMPTY_PARAGRAPHS, 48 * MiB)
      expect(body.size / body.data.length).toBeGreaterThan(500)
      return craftedDocx({ name: 'word/document.xml', deflated: body }, [])
    },
  },
  {
    // zip.js stops inflating a part at the size it declares: the lie makes the file damaged, and
    // costs no more than the declared bytes.
    name: 'a document part that declares 4 KB and inflates to 512 MiB',
    expected: { state: 'corrupt' },
    build: async () => {
      const body = await deflatedRepeat(paragraphUnit(), 512 * MiB)
      return craftedDocx({ name: 'word/document.xml', deflated: body, declaredSize: 4096 }, [])
    },
  },
  {
    name: 'a 1000:1 document part that declares its stored size',
    expected: { state: 'corrupt' },
    build: async () => {
      const body = await deflatedRepeat(EMPTY_PARAGRAPHS, 48 * MiB)
      return craftedDocx({ name: 'word/document.xml', deflated: body, declaredSize: body.data.length }, [])
    },
  },
]

async function bombProject(name: string, bytes: Buffer, inspectLimits?: { timeMs: number }) {
  const root = tempDir('retrace-office-bomb-')
  writeFileSync(join(root, name), bytes)
  const core = startCore({
    office: {
      detect: async () => ({ kind: 'missing', reason: 'not needed' }),
      ...(inspectLimits ? { inspectLimits } : {}),
    },
  })
  return { core, ...(await openProject(core, root)) }
}

describe('crafted Office packages are refused within bounds', () => {
  test.each(CASES)(
    '$name → $expected; app.info answers throughout, memory stays bounded',
    async (bomb) => {
      const bytes = await bomb.build()
      expect(bytes.length).toBeLessThan(8 * MiB)
      const { core, call } = await bombProject('crafted.docx', bytes)
      const { value: answer, liveness } = await watchEngine(core, () =>
        call('office.inspect', { path: 'crafted.docx' }),
      )
      console.log(
        `${bomb.name}: ${(bytes.length / MiB).toFixed(1)} MiB on disk; app.info ${liveness.answers}× while inspecting, ` +
          `slowest ${liveness.maxLatencyMs.toFixed(0)} ms; RSS +${liveness.rssGrowthMiB.toFixed(0)} MiB`,
      )
      if ('reason' in bomb.expected) {
        expect(answer).toMatchObject({
          status: 'error',
          error: { code: 'TOO_LARGE', details: { path: 'crafted.docx', reason: bomb.expected.reason } },
        })
        expect((answer as { error: { message: string } }).error.message).toMatch(/^"crafted\.docx" cannot be opened: /)
      } else {
        expect(answer).toMatchObject({ status: 'ok', result: { format: 'docx', state: bomb.expected.state } })
      }
      // Liveness, not speed: the engine answered while the file was being inspected, and was never
      // blocked for long (before the fix a single part's scan froze it for seconds).
      expect(liveness.answers).toBeGreaterThanOrEqual(1)
      expect(liveness.maxLatencyMs).toBeLessThan(1_500)
      expect(liveness.rssGrowthMiB).toBeLessThan(384)
    },
    60_000,
  )

  test('preview and convert of a crafted package answer the same TOO_LARGE before any engine sees it', async () => {
    const header = await deflatedRepeat(paragraphUnit(), 100 * MiB)
    const { core, call, projectId } = await bombProject('crafted.docx', craftedDocx(null, [header]))
    expect(await call('office.preview', { path: 'crafted.docx' })).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { reason: 'part-bytes', part: 'word/header1.xml' } },
    })
    const converted = await core.handle({
      request_id: randomUUID(),
      action: 'office.convert',
      owner: { project_id: projectId },
      idempotency_key: randomUUID(),
      payload: { path: 'crafted.docx', to: 'odt' },
    })
    expect(converted).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { reason: 'part-bytes' } },
    })
  })

  test('an inspection past its time budget is stopped and refused as TOO_LARGE (time)', async () => {
    // A 1 ms budget ends every inspection: the worker is terminated wherever it was.
    const plain = Buffer.from(await makeDocx('<w:p><w:r><w:t>Hi</w:t></w:r></w:p>'))
    const { call } = await bombProject('plain.docx', plain, { timeMs: 1 })
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await call('office.inspect', { path: 'plain.docx' })).toMatchObject({
        status: 'error',
        error: { code: 'TOO_LARGE', details: { reason: 'time', limit: 1 } },
      })
    }
  })
})
