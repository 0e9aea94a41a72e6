import { createHash, randomBytes } from 'node:crypto'

/**
 * A small PDF writer for test fixtures: pages of positioned text in the standard fonts
 * (Helvetica, Courier) or a non-embedded CJK font (STSong-Light through the UniGB-UCS2-H CMap, so
 * pdf.js needs its local cMaps), link annotations, a nested outline, and the standard security
 * handler (RC4, 128-bit, revision 3) for password-protected files. The objects and the
 * cross-reference table are written by hand, so every byte of a fixture is known.
 */

export type FontName = 'helvetica' | 'courier' | 'cjk'

export interface TextRun {
  readonly x: number
  readonly y: number
  readonly size: number
  readonly text: string
  readonly font?: FontName
  /** Extra space after each word (the PDF `Tw` operator), to justify a line. */
  readonly wordSpacing?: number
}

export interface LinkSpec {
  /** [x1, y1, x2, y2] in page space. */
  readonly rect: readonly [number, number, number, number]
  readonly toPage?: number
  readonly uri?: string
}

export interface PageSpec {
  readonly width?: number
  readonly height?: number
  readonly texts: readonly TextRun[]
  readonly links?: readonly LinkSpec[]
  /** Sticky notes (`/Subtype /Text`, the "Comment" icon) with their text. */
  readonly notes?: ReadonlyArray<{ readonly rect: readonly [number, number, number, number]; readonly text: string }>
  /** Freehand ink annotations (`/Subtype /Ink`): strokes of [x1, y1, x2, y2, …] in page space. */
  readonly inks?: ReadonlyArray<{
    readonly rect: readonly [number, number, number, number]
    readonly strokes: ReadonlyArray<readonly number[]>
  }>
}

export interface OutlineSpec {
  readonly title: string
  readonly page: number
  readonly children?: readonly OutlineSpec[]
}

export interface PdfSpec {
  readonly pages: readonly PageSpec[]
  readonly outline?: readonly OutlineSpec[]
  readonly title?: string
  /** Encrypts strings and streams; the file then opens only with this user password. */
  readonly userPassword?: string
}

const FONT_KEYS: Record<FontName, string> = { helvetica: 'F1', courier: 'F2', cjk: 'F3' }

const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex')

function md5(...parts: Buffer[]): Buffer {
  const hash = createHash('md5')
  for (const part of parts) hash.update(part)
  return hash.digest()
}

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Uint8Array.from({ length: 256 }, (_, i) => i)
  const at = (index: number) => s[index] ?? 0
  const swap = (a: number, b: number) => {
    const t = at(a)
    s[a] = at(b)
    s[b] = t
  }
  let j = 0
  for (let i = 0; i < 256; i++) {
    j = (j + at(i) + (key[i % key.length] ?? 0)) & 255
    swap(i, j)
  }
  const out = Buffer.alloc(data.length)
  let i = 0
  j = 0
  for (let k = 0; k < data.length; k++) {
    i = (i + 1) & 255
    j = (j + at(i)) & 255
    swap(i, j)
    out[k] = (data[k] ?? 0) ^ at((at(i) + at(j)) & 255)
  }
  return out
}

const pad = (password: string) => Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32)

/** Standard security handler, V 2 / R 3 / 128-bit RC4 (PDF 1.4, ISO 32000-1 §7.6.3). */
function securityHandler(userPassword: string, id: Buffer) {
  const permissions = -4
  const ownerPassword = `${userPassword}-owner`
  let ownerKey = md5(pad(ownerPassword))
  for (let i = 0; i < 50; i++) ownerKey = md5(ownerKey)
  let owner = rc4(ownerKey, pad(userPassword))
  for (let i = 1; i <= 19; i++) owner = rc4(Buffer.from(ownerKey.map((b) => b ^ i)), owner)
  const p = Buffer.alloc(4)
  p.writeInt32LE(permissions)
  let key = md5(pad(userPassword), owner, p, id)
  for (let i = 0; i < 50; i++) key = md5(key)
  let user = rc4(key, md5(PADDING, id))
  for (let i = 1; i <= 19; i++) user = rc4(Buffer.from(key.map((b) => b ^ i)), user)
  user = Buffer.concat([user, Buffer.alloc(16)])
  return {
    dictionary: `/Filter /Standard /V 2 /R 3 /Length 128 /P ${permissions} /O <${owner.toString('hex')}> /U <${user.toString('hex')}>`,
    encrypt(objectNumber: number, data: Buffer): Buffer {
      const suffix = Buffer.from([objectNumber & 255, (objectNumber >> 8) & 255, (objectNumber >> 16) & 255, 0, 0])
      return rc4(md5(key, suffix).subarray(0, 16), data)
    },
  }
}

/** WinAnsi bytes for Latin text (a soft hyphen U+00AD becomes byte 0xAD, as in real files). */
function winAnsi(text: string): Buffer {
  return Buffer.from(text, 'latin1')
}

function utf16be(text: string): Buffer {
  const out = Buffer.alloc(text.length * 2)
  for (let i = 0; i < text.length; i++) out.writeUInt16BE(text.charCodeAt(i), i * 2)
  return out
}

interface PdfObject {
  /** The dictionary's entries (without `<<` `>>` and without /Length); `str` writes a string. */
  readonly dict: (str: (bytes: Buffer) => string) => string
  readonly stream?: Buffer
}

export function writePdf(spec: PdfSpec): Buffer {
  const objects: PdfObject[] = []
  const add = (object: PdfObject) => objects.push(object)
  const ref = (n: number) => `${n} 0 R`

  // 1 catalog, 2 pages, 3..5 fonts, then pages (page, contents) pairs, then outline, then info.
  const fontBase = 3
  const firstPage = 6
  const pageNumberToObject = (page: number) => firstPage + (page - 1) * 2
  const hasOutline = (spec.outline?.length ?? 0) > 0
  const outlineRoot = firstPage + spec.pages.length * 2
  const outlineItems: Array<{ spec: OutlineSpec; parent: number; number: number }> = []
  let next = hasOutline ? outlineRoot + 1 : outlineRoot
  const number = (items: readonly OutlineSpec[] | undefined, parent: number) => {
    for (const item of items ?? []) {
      const entry = { spec: item, parent, number: next++ }
      outlineItems.push(entry)
      number(item.children, entry.number)
    }
  }
  number(spec.outline, outlineRoot)
  const infoObject = next++

  add({
    dict: () =>
      `/Type /Catalog /Pages ${ref(2)}${hasOutline ? ` /Outlines ${ref(outlineRoot)} /PageMode /UseOutlines` : ''}`,
  })
  add({
    dict: () =>
      `/Type /Pages /Count ${spec.pages.length} /Kids [${spec.pages.map((_, i) => ref(pageNumberToObject(i + 1))).join(' ')}]`,
  })
  add({ dict: () => '/Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding' })
  // Code 173 is a soft hyphen (WinAnsi alone would draw it as an ordinary hyphen), as word
  // processors write it when they break a word at a line end.
  add({
    dict: () =>
      '/Type /Font /Subtype /Type1 /BaseFont /Courier ' +
      '/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [173 /sfthyphen] >>',
  })
  add({
    dict: (str) =>
      '/Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H ' +
      '/DescendantFonts [<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light ' +
      `/CIDSystemInfo << /Registry ${str(Buffer.from('Adobe'))} /Ordering ${str(Buffer.from('GB1'))} /Supplement 2 >> ` +
      '/FontDescriptor << /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [-25 -254 1000 880] ' +
      '/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >> /DW 1000 >>]',
  })
  spec.pages.forEach((page, index) => {
    const width = page.width ?? 595
    const height = page.height ?? 842
    const links = page.links ?? []
    const notes = page.notes ?? []
    const inks = page.inks ?? []
    add({
      dict: (str) =>
        `/Type /Page /Parent ${ref(2)} /MediaBox [0 0 ${width} ${height}] /Contents ${ref(pageNumberToObject(index + 1) + 1)} ` +
        `/Resources << /Font << /F1 ${ref(fontBase)} /F2 ${ref(fontBase + 1)} /F3 ${ref(fontBase + 2)} >> >>` +
        (links.length + notes.length + inks.length > 0
          ? ` /Annots [${[
              ...links.map(
                (link) =>
                  `<< /Type /Annot /Subtype /Link /Border [0 0 0] /Rect [${link.rect.join(' ')}] ` +
                  (link.uri !== undefined
                    ? `/A << /S /URI /URI ${str(Buffer.from(link.uri, 'latin1'))} >>`
                    : `/Dest [${ref(pageNumberToObject(link.toPage ?? 1))} /Fit]`) +
                  ' >>',
              ),
              ...notes.map(
                (note) =>
                  `<< /Type /Annot /Subtype /Text /Name /Comment /Rect [${note.rect.join(' ')}] ` +
                  `/Contents ${str(Buffer.from(note.text, 'latin1'))} >>`,
              ),
              ...inks.map(
                (ink) =>
                  `<< /Type /Annot /Subtype /Ink /Rect [${ink.rect.join(' ')}] /C [1 0 0] /BS << /W 3 >> ` +
                  `/InkList [${ink.strokes.map((stroke) => `[${stroke.join(' ')}]`).join(' ')}] >>`,
              ),
            ].join(' ')}]`
          : ''),
    })
    const content = page.texts
      .map((run) => {
        const font = FONT_KEYS[run.font ?? 'helvetica']
        const shown = run.font === 'cjk' ? `<${utf16be(run.text).toString('hex')}>` : literal(winAnsi(run.text))
        // Word spacing is text state: it outlives ET, so every run sets its own.
        const spacing = `${(run.wordSpacing ?? 0).toFixed(3)} Tw `
        return `BT /${font} ${run.size} Tf ${spacing}${run.x} ${run.y} Td ${shown} Tj ET`
      })
      .join('\n')
    add({ dict: () => '', stream: Buffer.from(content, 'latin1') })
  })
  if (hasOutline) {
    const top = outlineItems.filter((item) => item.parent === outlineRoot).map((item) => item.number)
    add({
      dict: () =>
        `/Type /Outlines /First ${ref(top[0] ?? 0)} /Last ${ref(top.at(-1) ?? 0)} /Count ${outlineItems.length}`,
    })
    for (const item of outlineItems) {
      const siblings = outlineItems.filter((other) => other.parent === item.parent).map((other) => other.number)
      const position = siblings.indexOf(item.number)
      const children = outlineItems.filter((other) => other.parent === item.number).map((other) => other.number)
      add({
        dict: (str) =>
          `/Title ${str(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(item.spec.title)]))} /Parent ${ref(item.parent)}` +
          (position > 0 ? ` /Prev ${ref(siblings[position - 1] ?? 0)}` : '') +
          (position < siblings.length - 1 ? ` /Next ${ref(siblings[position + 1] ?? 0)}` : '') +
          (children.length > 0
            ? ` /First ${ref(children[0] ?? 0)} /Last ${ref(children.at(-1) ?? 0)} /Count ${children.length}`
            : '') +
          ` /Dest [${ref(pageNumberToObject(item.spec.page))} /XYZ null null null]`,
      })
    }
  }
  add({
    dict: (str) => `/Title ${str(Buffer.from(spec.title ?? 'Retrace fixture', 'latin1'))} /Producer (Retrace tests)`,
  })
  if (objects.length !== infoObject) throw new Error('pdf-writer: object numbering went wrong')

  const id = randomBytes(16)
  const security = spec.userPassword !== undefined ? securityHandler(spec.userPassword, id) : null
  const header = Buffer.from('%PDF-1.6\n%\xe2\xe3\xcf\xd3\n', 'latin1')
  const chunks: Buffer[] = [header]
  let length = header.length
  const offsets: number[] = []
  const push = (chunk: Buffer) => {
    chunks.push(chunk)
    length += chunk.length
  }
  objects.forEach((object, index) => {
    const n = index + 1
    offsets.push(length)
    const encrypt = (data: Buffer) => (security ? security.encrypt(n, data) : data)
    const str = (bytes: Buffer) => `<${encrypt(bytes).toString('hex')}>`
    const dict = object.dict(str)
    if (object.stream) {
      const data = encrypt(object.stream)
      push(Buffer.from(`${n} 0 obj\n<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'))
      push(data)
      push(Buffer.from('\nendstream\nendobj\n', 'latin1'))
    } else {
      push(Buffer.from(`${n} 0 obj\n<< ${dict} >>\nendobj\n`, 'latin1'))
    }
  })
  let encryptRef = ''
  if (security) {
    offsets.push(length)
    const n = objects.length + 1
    push(Buffer.from(`${n} 0 obj\n<< ${security.dictionary} >>\nendobj\n`, 'latin1'))
    encryptRef = ` /Encrypt ${ref(n)}`
  }
  const xref = length
  const size = offsets.length + 1
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`
  for (const offset of offsets) table += `${String(offset).padStart(10, '0')} 00000 n \n`
  table +=
    `trailer\n<< /Size ${size} /Root ${ref(1)} /Info ${ref(infoObject)}${encryptRef} ` +
    `/ID [<${id.toString('hex')}> <${id.toString('hex')}>] >>\nstartxref\n${xref}\n%%EOF\n`
  push(Buffer.from(table, 'latin1'))
  return Buffer.concat(chunks)
}

function literal(bytes: Buffer): string {
  let out = '('
  for (const byte of bytes) {
    if (byte === 0x28 || byte === 0x29 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`
    else if (byte < 0x20 || byte > 0x7e) out += `\\${byte.toString(8).padStart(3, '0')}`
    else out += String.fromCharCode(byte)
  }
  return `${out})`
}
