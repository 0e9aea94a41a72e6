/**
 * A minimal incremental-update writer (ISO 32000-1 §7.5.6): it appends new versions of a few
 * objects, a cross-reference section for them and a trailer pointing back at the previous one, so
 * every byte before stays as it was. It exists for the one thing pdf.js cannot create: a sticky
 * note (`/Subtype /Text`) — pdf.js saves highlights, free text, ink and stamps only. The engine lets
 * pdf.js place a stand-in annotation (and add it to the page's /Annots) and then redefines that
 * object here as the Text annotation, so this writer never has to parse or rewrite a page.
 *
 * It reads only the trailer of the last section, which is the one pdf.js just wrote, and writes the
 * same kind of section that one is: a classic `xref` table after a table, a cross-reference stream
 * (uncompressed, /W [1 4 2]) after a stream — a file that uses streams must keep using them.
 */

export interface ReplacedObject {
  readonly num: number
  readonly gen: number
  /** The object's new value, PDF syntax in Latin-1 (binary strings as hex). */
  readonly body: string
}

export type IncrementalOutcome = { kind: 'ok'; bytes: Uint8Array } | { kind: 'unsupported'; message: string }

const TAIL_BYTES = 4096

function latin1(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, Math.min(to, bytes.length) - from)).toString(
    'latin1',
  )
}

/** The raw values of a dictionary's top-level keys, from `<<` at `start` of `text`. */
export function dictionaryEntries(text: string, start: number): Map<string, string> | null {
  if (!text.startsWith('<<', start)) return null
  const entries = new Map<string, string>()
  let i = start + 2
  const skipSpace = () => {
    while (i < text.length) {
      const c = text[i] ?? ''
      if (c === '%') {
        while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
      } else if (/\s/u.test(c) || c === '\0') i++
      else break
    }
  }
  const name = () => {
    const from = i
    i++
    while (i < text.length && !/[\s/<>[\]()%{}]/u.test(text[i] ?? '')) i++
    return text.slice(from, i)
  }
  /** Skips one value and returns its raw text. */
  const value = (): string => {
    skipSpace()
    const from = i
    const c = text[i]
    if (c === '/') {
      name()
    } else if (c === '(') {
      let depth = 0
      for (; i < text.length; i++) {
        const ch = text[i]
        if (ch === '\\') i++
        else if (ch === '(') depth++
        else if (ch === ')' && --depth === 0) break
      }
      i++
    } else if (text.startsWith('<<', i)) {
      i += 2
      for (skipSpace(); i < text.length && !text.startsWith('>>', i); skipSpace()) {
        value()
      }
      i += 2
    } else if (c === '<') {
      i = text.indexOf('>', i) + 1 || text.length
    } else if (c === '[') {
      i++
      for (skipSpace(); i < text.length && text[i] !== ']'; skipSpace()) value()
      i++
    } else {
      // A number, a reference "12 0 R", true/false/null.
      const ref = /^\d+\s+\d+\s+R/u.exec(text.slice(i, i + 40))
      if (ref) i += ref[0].length
      else while (i < text.length && !/[\s/<>[\]()%]/u.test(text[i] ?? '')) i++
    }
    return text.slice(from, i)
  }
  for (skipSpace(); i < text.length && !text.startsWith('>>', i); skipSpace()) {
    if (text[i] !== '/') return null
    const key = name().slice(1)
    entries.set(key, value())
  }
  return i < text.length ? entries : null
}

/** Appends new versions of `objects` as one incremental update. */
export function appendObjects(bytes: Uint8Array, objects: readonly ReplacedObject[]): IncrementalOutcome {
  const tailStart = Math.max(0, bytes.length - TAIL_BYTES)
  const tail = latin1(bytes, tailStart, bytes.length)
  const startxref = /startxref\s+(\d+)\s*%%EOF\s*$/u.exec(tail)
  if (!startxref) return { kind: 'unsupported', message: 'the saved PDF has no startxref at its end' }
  const previous = Number(startxref[1])
  if (!Number.isSafeInteger(previous) || previous >= bytes.length) {
    return { kind: 'unsupported', message: 'the saved PDF points at a cross-reference section outside the file' }
  }
  const section = latin1(bytes, previous, Math.min(bytes.length, previous + 64 * 1024))
  let trailer: Map<string, string> | null
  let useStream: boolean
  if (section.startsWith('xref')) {
    const at = section.indexOf('trailer')
    trailer = at < 0 ? null : dictionaryEntries(section, section.indexOf('<<', at))
    useStream = false
  } else {
    const header = /^\d+\s+\d+\s+obj\s*/u.exec(section)
    trailer = header ? dictionaryEntries(section, header[0].length) : null
    useStream = true
  }
  const size = Number(trailer?.get('Size'))
  const root = trailer?.get('Root')
  if (!trailer || !Number.isSafeInteger(size) || !root) {
    return { kind: 'unsupported', message: 'the saved PDF has no readable trailer' }
  }
  if (trailer.has('Encrypt')) {
    // New strings would have to be encrypted with the file's key; this writer does not do that.
    return { kind: 'unsupported', message: 'the PDF is encrypted' }
  }

  const chunks: string[] = []
  let offset = bytes.length
  const write = (text: string) => {
    chunks.push(text)
    offset += text.length
  }
  // The previous section ends with "%%EOF" and maybe no line break: objects start on a new line.
  if (!tail.endsWith('\n') && !tail.endsWith('\r')) write('\n')
  const entries: Array<{ num: number; gen: number; offset: number }> = []
  for (const object of [...objects].sort((a, b) => a.num - b.num)) {
    entries.push({ num: object.num, gen: object.gen, offset })
    write(`${object.num} ${object.gen} obj\n${object.body}\nendobj\n`)
  }
  const kept = ['Root', 'Info', 'ID']
    .filter((key) => trailer.has(key))
    .map((key) => `/${key} ${trailer.get(key) ?? ''}`)
    .join(' ')
  const xrefOffset = offset
  if (useStream) {
    const streamNumber = Math.max(size, ...entries.map((e) => e.num + 1))
    entries.push({ num: streamNumber, gen: 0, offset: xrefOffset })
    const data = Buffer.alloc(entries.length * 7)
    entries.forEach((entry, k) => {
      data.writeUInt8(1, k * 7)
      data.writeUInt32BE(entry.offset, k * 7 + 1)
      data.writeUInt16BE(entry.gen, k * 7 + 5)
    })
    const index = entries.map((e) => `${e.num} 1`).join(' ')
    write(
      `${streamNumber} 0 obj\n<< /Type /XRef /Size ${streamNumber + 1} ${kept} /Prev ${previous} /Index [${index}] ` +
        `/W [1 4 2] /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\n`,
    )
  } else {
    const rows = entries
      .map((e) => `${e.num} 1\n${String(e.offset).padStart(10, '0')} ${String(e.gen).padStart(5, '0')} n \n`)
      .join('')
    const newSize = Math.max(size, ...entries.map((e) => e.num + 1))
    write(`xref\n${rows}trailer\n<< /Size ${newSize} ${kept} /Prev ${previous} >>\n`)
  }
  write(`startxref\n${xrefOffset}\n%%EOF\n`)
  const appended = Buffer.from(chunks.join(''), 'latin1')
  const out = new Uint8Array(bytes.length + appended.length)
  out.set(bytes, 0)
  out.set(appended, bytes.length)
  return { kind: 'ok', bytes: out }
}

/** A text string for a PDF dictionary: UTF-16BE with its byte-order mark, as hex (any script, no escaping). */
export function pdfTextString(text: string): string {
  let hex = 'FEFF'
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase()
  return `<${hex}>`
}

/** A PDF date string (UTC) for /CreationDate and /M. */
export function pdfDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return (
    `(D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z)`
  )
}
