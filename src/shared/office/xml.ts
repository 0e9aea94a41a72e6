/**
 * Just enough XML for patching OOXML parts in place: a tag scanner that reports exact offsets, so an
 * edit splices one element and leaves every other byte of the part as it was (a DOM round trip
 * would reorder namespace declarations, quotes and whitespace that Office relies on).
 * Package parts are well-formed and DTD-free; comments, CDATA and processing instructions are
 * skipped, never matched as tags.
 */

export interface XmlTag {
  readonly kind: 'open' | 'close' | 'empty'
  /** Qualified name as written, e.g. `c`, `x:c`, `a:t`. */
  readonly name: string
  /** Offset of `<`. */
  readonly start: number
  /** Offset just after `>`. */
  readonly end: number
}

export interface XmlElement {
  readonly name: string
  readonly start: number
  /** Just after the start tag (equal to `end` for an empty element). */
  readonly innerStart: number
  /** Offset of the end tag's `<` (equal to `end` for an empty element). */
  readonly innerEnd: number
  readonly end: number
  readonly empty: boolean
}

/** Every tag from `from` on, in document order. */
export function* scanTags(xml: string, from = 0, to = xml.length): Generator<XmlTag> {
  let at = xml.indexOf('<', from)
  while (at !== -1 && at < to) {
    const next = xml.charCodeAt(at + 1)
    if (next === 0x21 /* ! */) {
      if (xml.startsWith('<!--', at)) at = skipPast(xml, at, '-->')
      else if (xml.startsWith('<![CDATA[', at)) at = skipPast(xml, at, ']]>')
      else at = skipPast(xml, at, '>')
    } else if (next === 0x3f /* ? */) {
      at = skipPast(xml, at, '?>')
    } else {
      const end = tagEnd(xml, at)
      if (end === -1) throw new XmlError(`unterminated tag at ${at}`)
      if (next === 0x2f /* / */) {
        yield { kind: 'close', name: xml.slice(at + 2, end - 1).trim(), start: at, end }
      } else {
        const name = tagName(xml, at + 1)
        yield { kind: xml.charCodeAt(end - 2) === 0x2f ? 'empty' : 'open', name, start: at, end }
      }
      at = end
    }
    at = xml.indexOf('<', at)
  }
}

export class XmlError extends Error {}

function skipPast(xml: string, at: number, terminator: string): number {
  const found = xml.indexOf(terminator, at)
  if (found === -1) throw new XmlError(`unterminated markup at ${at}`)
  return found + terminator.length
}

/** Offset after the `>` closing the tag at `at`, honouring quoted attribute values. */
function tagEnd(xml: string, at: number): number {
  let quote = 0
  for (let i = at + 1; i < xml.length; i++) {
    const c = xml.charCodeAt(i)
    if (quote !== 0) {
      if (c === quote) quote = 0
    } else if (c === 0x22 || c === 0x27) quote = c
    else if (c === 0x3e) return i + 1
  }
  return -1
}

function tagName(xml: string, from: number): string {
  let i = from
  for (; i < xml.length; i++) {
    const c = xml.charCodeAt(i)
    if (c === 0x2f || c === 0x3e || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break
  }
  return xml.slice(from, i)
}

/** The element whose start tag is `tag`, with its matching end tag (same name, nesting counted). */
export function elementAt(xml: string, tag: XmlTag, to = xml.length): XmlElement {
  if (tag.kind === 'empty') {
    return { name: tag.name, start: tag.start, innerStart: tag.end, innerEnd: tag.end, end: tag.end, empty: true }
  }
  if (tag.kind !== 'open') throw new XmlError(`not a start tag at ${tag.start}`)
  let depth = 0
  for (const inner of scanTags(xml, tag.end, to)) {
    if (inner.name !== tag.name) continue
    if (inner.kind === 'open') depth++
    else if (inner.kind === 'close') {
      if (depth === 0) {
        return {
          name: tag.name,
          start: tag.start,
          innerStart: tag.end,
          innerEnd: inner.start,
          end: inner.end,
          empty: false,
        }
      }
      depth--
    }
  }
  throw new XmlError(`<${tag.name}> at ${tag.start} is never closed`)
}

/** Direct children of an element (skipping their descendants). */
export function children(xml: string, parent: XmlElement): XmlElement[] {
  const found: XmlElement[] = []
  let at = parent.innerStart
  while (at < parent.innerEnd) {
    const iterator = scanTags(xml, at, parent.innerEnd)
    const first = iterator.next()
    if (first.done) break
    const tag = first.value
    if (tag.kind === 'close') throw new XmlError(`unexpected </${tag.name}> at ${tag.start}`)
    const element = elementAt(xml, tag, parent.innerEnd)
    found.push(element)
    at = element.end
  }
  return found
}

/** The first element named `name` (qualified) at or after `from`, at any depth. */
export function findFirst(xml: string, name: string, from = 0, to = xml.length): XmlElement | undefined {
  for (const tag of scanTags(xml, from, to)) {
    if (tag.name === name && tag.kind !== 'close') return elementAt(xml, tag, to)
  }
  return undefined
}

/** Every element named `name` in the range, outermost only (not nested inside another match). */
export function findAll(xml: string, name: string, from = 0, to = xml.length): XmlElement[] {
  const found: XmlElement[] = []
  let at = from
  for (;;) {
    const element = findFirst(xml, name, at, to)
    if (!element) return found
    found.push(element)
    at = element.end
  }
}

/** Attributes of the start tag beginning at `start`, values decoded. */
export function attributesAt(xml: string, start: number): Map<string, string> {
  const end = tagEnd(xml, start)
  const source = xml.slice(start + 1, end - 1)
  const attributes = new Map<string, string>()
  const pattern = /([^\s=/]+)\s*=\s*("([^"]*)"|'([^']*)')/g
  const body = source.slice(tagName(source, 0).length)
  for (const match of body.matchAll(pattern)) {
    attributes.set(match[1] ?? '', decodeEntities(match[3] ?? match[4] ?? ''))
  }
  return attributes
}

/** The start tag at `start` with one attribute set (added at the end) or removed (`null`). */
export function withAttribute(xml: string, start: number, name: string, value: string | null): string {
  const end = tagEnd(xml, start)
  let tag = xml.slice(start, end)
  const existing = new RegExp(`(\\s+)${escapeRegExp(name)}\\s*=\\s*("[^"]*"|'[^']*')`)
  if (existing.test(tag)) {
    tag = tag.replace(existing, (_, space: string) =>
      value === null ? '' : `${space}${name}="${escapeAttribute(value)}"`,
    )
  } else if (value !== null) {
    const close = tag.endsWith('/>') ? tag.length - 2 : tag.length - 1
    tag = `${tag.slice(0, close).replace(/\s+$/, '')} ${name}="${escapeAttribute(value)}"${tag.slice(close)}`
  }
  return tag
}

/** Offset just after the start tag at `start`. */
export function startTagEnd(xml: string, start: number): number {
  return tagEnd(xml, start)
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    switch (entity) {
      case 'amp':
        return '&'
      case 'lt':
        return '<'
      case 'gt':
        return '>'
      case 'quot':
        return '"'
      case 'apos':
        return "'"
      default:
        return String.fromCodePoint(
          entity.startsWith('#x') ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10),
        )
    }
  })
}

/** Text content for an element body; characters XML 1.0 cannot carry are dropped. */
export function escapeText(text: string): string {
  return stripInvalid(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

export function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, '&quot;')
}

function stripInvalid(text: string): string {
  // eslint-disable-next-line no-control-regex -- exactly the control characters XML 1.0 forbids
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The concatenated text of every `<name>` element in the range (e.g. all `w:t` of a paragraph). */
export function textOf(xml: string, name: string, from = 0, to = xml.length): string {
  return findAll(xml, name, from, to)
    .map((element) => decodeEntities(xml.slice(element.innerStart, element.innerEnd)))
    .join('')
}

/** The namespace prefix (with its colon, or `''`) bound to `uri` on the root element. */
export function prefixFor(xml: string, uris: readonly string[]): string | undefined {
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close') continue
    const attributes = attributesAt(xml, tag.start)
    for (const [name, value] of attributes) {
      if (!uris.includes(value)) continue
      if (name === 'xmlns') return ''
      if (name.startsWith('xmlns:')) return `${name.slice(6)}:`
    }
    return undefined
  }
  return undefined
}

export interface Splice {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** Applies non-overlapping splices (any order) to `xml`. */
export function applySplices(xml: string, splices: readonly Splice[]): string {
  // At one offset an insertion goes before a replacement that starts there.
  const ordered = [...splices].sort((a, b) => a.start - b.start || a.end - a.start - (b.end - b.start))
  let result = ''
  let at = 0
  for (const splice of ordered) {
    if (splice.start < at) throw new XmlError('overlapping splices')
    result += xml.slice(at, splice.start) + splice.text
    at = splice.end
  }
  return result + xml.slice(at)
}
