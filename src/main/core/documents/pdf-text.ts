import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { PdfBudget } from './pdf-load'

/**
 * A page's text as pdf.js extracts it (`getTextContent`), with every character's place on the
 * page: the read view's page text, finding the text a highlight or a note names, and the text under
 * an existing highlight all use this one model.
 */

export interface PdfTextItem {
  readonly str: string
  /** pdf.js's text matrix [a, b, c, d, e, f]: origin (e, f) on the baseline, in PDF user space. */
  readonly transform: readonly number[]
  readonly width: number
  readonly height: number
  readonly hasEOL: boolean
}

/** A quadrilateral in PDF user space: top-left, top-right, bottom-left, bottom-right (QuadPoints order). */
export type Quad = readonly [number, number, number, number, number, number, number, number]

export interface TextMatch {
  readonly quads: Quad[]
  /** [x1, y1, x2, y2] around all quads. */
  readonly rect: [number, number, number, number]
  /** The page text the match covers, as the page has it. */
  readonly text: string
}

const SOFT_HYPHEN = '\u00ad'
/** Typographic ligatures (ff, fi, fl, ffi, ffl, long s t, st): spelled out, as the reader's copy does. */
const LIGATURES = /[\ufb00-\ufb06]/gu
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u
const WHITESPACE = /\s/u
/** Glyph box below and above the baseline, as fractions of the font size (Helvetica-like metrics). */
const DESCENT = 0.22
const ASCENT = 0.9

export function spellLigatures(text: string): string {
  return text.replace(LIGATURES, (ligature) => ligature.normalize('NFKC'))
}

/** A page's text items (marked-content markers dropped). */
export async function pageTextItems(page: PDFPageProxy, budget: PdfBudget): Promise<PdfTextItem[]> {
  const content = await budget.run(page.getTextContent())
  const items: PdfTextItem[] = []
  for (const item of content.items) {
    if (!('str' in item)) continue
    items.push({
      str: item.str,
      transform: item.transform as number[],
      width: item.width,
      height: item.height,
      hasEOL: item.hasEOL,
    })
  }
  return items
}

interface Frame {
  readonly ox: number
  readonly oy: number
  /** Unit vector along the baseline. */
  readonly ux: number
  readonly uy: number
  /** Unit vector up from the baseline. */
  readonly vx: number
  readonly vy: number
  readonly size: number
}

function frameOf(item: PdfTextItem): Frame {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform
  const along = Math.hypot(a, b) || 1
  const up = Math.hypot(c, d) || 1
  return { ox: e, oy: f, ux: a / along, uy: b / along, vx: c / up, vy: d / up, size: item.height || up }
}

/**
 * The quad of characters [from, to) of an item: pdf.js gives each item's total advance only, so
 * characters share it evenly — exact for monospaced text, close enough to cover the words for
 * proportional text (a highlight is a band over the words, not glyph outlines).
 */
function quadOf(item: PdfTextItem, from: number, to: number): Quad {
  const frame = frameOf(item)
  const count = Math.max(1, item.str.length)
  const s = (item.width * from) / count
  const t = (item.width * to) / count
  const at = (along: number, up: number): [number, number] => [
    frame.ox + along * frame.ux + up * frame.vx,
    frame.oy + along * frame.uy + up * frame.vy,
  ]
  const top = ASCENT * frame.size
  const bottom = -DESCENT * frame.size
  return [...at(s, top), ...at(t, top), ...at(s, bottom), ...at(t, bottom)] as Quad
}

function boundsOf(quads: readonly Quad[]): [number, number, number, number] {
  const xs = quads.flatMap((q) => [q[0], q[2], q[4], q[6]])
  const ys = quads.flatMap((q) => [q[1], q[3], q[5], q[7]])
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

/**
 * The page's characters without whitespace, each pointing back at its item and index: what text
 * search runs on, so "Just-in-Time  Type" finds "Just-in-Time Type" across two items and a line.
 */
interface SearchIndex {
  readonly keys: string
  readonly item: number[]
  readonly index: number[]
}

function normalizeQuery(text: string): string {
  return spellLigatures(text.replaceAll(SOFT_HYPHEN, '')).replace(/\s+/gu, '')
}

function searchIndex(items: readonly PdfTextItem[]): SearchIndex {
  let keys = ''
  const item: number[] = []
  const index: number[] = []
  items.forEach((it, itemIndex) => {
    for (let i = 0; i < it.str.length; i++) {
      const unit = it.str[i] ?? ''
      if (unit === SOFT_HYPHEN || WHITESPACE.test(unit)) continue
      const spelled = spellLigatures(unit)
      for (let k = 0; k < spelled.length; k++) {
        keys += spelled[k]
        item.push(itemIndex)
        index.push(i)
      }
    }
  })
  return { keys, item, index }
}

function lowerUnits(text: string): string {
  // Unit by unit so that positions stay aligned with the index (a few letters change length).
  let out = ''
  for (const unit of text) {
    const lower = unit.toLowerCase()
    out += lower.length === unit.length ? lower : unit
  }
  return out
}

function occurrences(haystack: string, needle: string, limit: number): number[] {
  const found: number[] = []
  let from = 0
  while (found.length < limit) {
    const at = haystack.indexOf(needle, from)
    if (at < 0) break
    found.push(at)
    from = at + 1
  }
  return found
}

function matchAt(items: readonly PdfTextItem[], search: SearchIndex, start: number, length: number): TextMatch {
  // Runs of characters of one item become one quad; quads on one line of horizontal text merge.
  const quads: Quad[] = []
  let text = ''
  let runItem = -1
  let runFrom = 0
  let runTo = 0
  const flush = () => {
    const item = items[runItem]
    if (!item) return
    const quad = quadOf(item, runFrom, runTo)
    const last = quads.at(-1)
    const horizontal = Math.abs(quad[1] - quad[3]) < 0.01
    if (last && horizontal && Math.abs(last[1] - quad[1]) < 0.5 * (quad[1] - quad[5]) && quad[0] >= last[0]) {
      quads[quads.length - 1] = [last[0], last[1], quad[2], last[3], last[4], last[5], quad[6], last[7]]
    } else {
      quads.push(quad)
    }
    text += (text === '' ? '' : ' ') + item.str.slice(runFrom, runTo)
  }
  for (let k = start; k < start + length; k++) {
    const itemIndex = search.item[k] ?? -1
    const charIndex = search.index[k] ?? 0
    if (itemIndex !== runItem) {
      flush()
      runItem = itemIndex
      runFrom = charIndex
    }
    runTo = charIndex + 1
  }
  flush()
  return { quads, rect: boundsOf(quads), text: spellLigatures(text.replace(/\s+/gu, ' ').trim()) }
}

export type FindOutcome = { kind: 'found'; match: TextMatch } | { kind: 'not-found'; found: number; nearby: string }

/**
 * The `occurrence`-th (1-based) match of `text` on the page, ignoring whitespace and soft hyphens,
 * with ligatures spelled out; exact case first, any case when the exact case is nowhere on the page.
 */
export function findText(items: readonly PdfTextItem[], text: string, occurrence: number): FindOutcome {
  const search = searchIndex(items)
  const needle = normalizeQuery(text)
  if (needle === '') return { kind: 'not-found', found: 0, nearby: nearbyText(items, search, '') }
  let starts = occurrences(search.keys, needle, occurrence)
  if (starts.length === 0) starts = occurrences(lowerUnits(search.keys), lowerUnits(needle), occurrence)
  const start = starts[occurrence - 1]
  if (start === undefined) return { kind: 'not-found', found: starts.length, nearby: nearbyText(items, search, needle) }
  return { kind: 'found', match: matchAt(items, search, start, needle.length) }
}

/** What the page says around the longest start of the text that is there (or its beginning), for a refusal. */
function nearbyText(items: readonly PdfTextItem[], search: SearchIndex, needle: string): string {
  const keys = lowerUnits(search.keys)
  const query = lowerUnits(needle)
  let best = -1
  for (let length = Math.min(query.length, 200); length >= 3 && best < 0; length = Math.floor(length * 0.7)) {
    best = keys.indexOf(query.slice(0, length))
  }
  const plain = plainText(items)
  if (best < 0) return clip(plain.text, 0, 160)
  const itemIndex = search.item[best] ?? 0
  const offset = (plain.itemStart[itemIndex] ?? 0) + (search.index[best] ?? 0)
  return clip(plain.text, Math.max(0, offset - 40), offset + 120)
}

function clip(text: string, from: number, to: number): string {
  return (from > 0 ? '…' : '') + text.slice(from, to) + (to < text.length ? '…' : '')
}

/** Items joined on one line with single spaces, and where each item starts in it. */
function plainText(items: readonly PdfTextItem[]): { text: string; itemStart: number[] } {
  let text = ''
  const itemStart: number[] = []
  for (const item of items) {
    itemStart.push(text.length)
    text += item.str
    if (item.hasEOL) text += ' '
  }
  return { text: text.replace(/\s/gu, ' '), itemStart }
}

/** Every character's centre on the page, computed once for all of a page's markup annotations. */
export interface CharCentres {
  readonly units: string[]
  readonly x: Float64Array
  readonly y: Float64Array
  /** Index of the first unit after which the item's end of line falls. */
  readonly lineEnds: Set<number>
}

export function charCentres(items: readonly PdfTextItem[]): CharCentres {
  const units: string[] = []
  const xs: number[] = []
  const ys: number[] = []
  const lineEnds = new Set<number>()
  for (const item of items) {
    for (let i = 0; i < item.str.length; i++) {
      const quad = quadOf(item, i, i + 1)
      units.push(item.str[i] ?? '')
      xs.push((quad[0] + quad[2] + quad[4] + quad[6]) / 4)
      ys.push((quad[1] + quad[3] + quad[5] + quad[7]) / 4)
    }
    if (item.hasEOL) lineEnds.add(units.length - 1)
  }
  return { units, x: Float64Array.from(xs), y: Float64Array.from(ys), lineEnds }
}

/**
 * The page text under the quads of a markup annotation (a highlight's words): the characters whose
 * centre lies inside one of the quads, in reading order.
 */
export function textUnderQuads(chars: CharCentres, quads: readonly Quad[]): string {
  if (quads.length === 0) return ''
  const boxes = quads.map((quad) => {
    const [x1, y1, x2, y2] = boundsOf([quad])
    return { x1, y1, x2, y2 }
  })
  let text = ''
  let pendingSpace = false
  for (let k = 0; k < chars.units.length; k++) {
    const unit = chars.units[k] ?? ''
    const cx = chars.x[k] ?? 0
    const cy = chars.y[k] ?? 0
    if (boxes.some((b) => cx >= b.x1 && cx <= b.x2 && cy >= b.y1 && cy <= b.y2)) {
      if (WHITESPACE.test(unit)) {
        pendingSpace = text !== ''
      } else {
        if (pendingSpace) text += ' '
        pendingSpace = false
        text += unit
      }
    }
    if (chars.lineEnds.has(k) && text !== '') pendingSpace = true
  }
  return spellLigatures(text.replaceAll(SOFT_HYPHEN, ''))
}

/** QuadPoints as pdf.js gives them (a flat list of 8 numbers a quad) grouped in quads. */
export function quadsOf(points: ArrayLike<number> | null | undefined): Quad[] {
  if (!points) return []
  const quads: Quad[] = []
  for (let i = 0; i + 8 <= points.length; i += 8) {
    quads.push(Array.from({ length: 8 }, (_, k) => points[i + k] ?? 0) as unknown as Quad)
  }
  return quads
}

interface Line {
  text: string
  y: number
  x: number
  size: number
}

/**
 * The page text for the read view: pdf.js's items in its reading order, cut into lines where it
 * marks an end of line, then lines joined back into paragraphs with the rules the reader's copy
 * uses (copy-text.ts): a break wider than the usual line pitch, or a change of type size, starts a
 * paragraph; a line-end hyphen before a lower-case letter rejoins a split word; CJK lines join
 * without a space; soft hyphens go and ligatures are spelled out.
 */
export function pageText(items: readonly PdfTextItem[]): string {
  const lines: Line[] = []
  let current: Line | null = null
  for (const item of items) {
    if (!current) {
      const frame = frameOf(item)
      current = { text: '', y: frame.oy, x: frame.ox, size: frame.size }
    }
    current.text += item.str
    if (current.size === 0) current.size = frameOf(item).size
    if (item.hasEOL) {
      lines.push(current)
      current = null
    }
  }
  if (current) lines.push(current)
  const kept = lines
    .map((line) => ({ ...line, text: spellLigatures(line.text.replace(/[ \t\u00a0]+/gu, ' ')) }))
    .filter((line) => line.text.trim() !== '')
  if (kept.length === 0) return ''
  const pitches: number[] = []
  for (let i = 1; i < kept.length; i++) {
    const a = kept[i - 1]
    const b = kept[i]
    if (a && b) {
      const pitch = a.y - b.y
      if (pitch > 0) pitches.push(pitch)
    }
  }
  const sorted = [...pitches].sort((p, q) => p - q)
  const typical = sorted[sorted.length >> 1] ?? 0
  const paragraphs: string[] = []
  let paragraph = ''
  kept.forEach((line, i) => {
    const previous = kept[i - 1]
    if (!previous) {
      paragraph = line.text.trim()
      return
    }
    const pitch = previous.y - line.y
    const resized = Math.abs(line.size - previous.size) > Math.max(line.size, previous.size) * 0.25
    // A first line set in from the line before starts a paragraph (an indent, not a wrap).
    const indented = line.x - previous.x > line.size * 0.8
    const breaks = typical <= 0 || pitch <= 0 || pitch > typical * 1.4 || resized || indented
    if (breaks) {
      paragraphs.push(paragraph)
      paragraph = line.text.trim()
    } else {
      paragraph = joinLines(paragraph, line.text)
    }
  })
  paragraphs.push(paragraph)
  return paragraphs.map((p) => p.replaceAll(SOFT_HYPHEN, '')).join('\n')
}

function joinLines(before: string, after: string): string {
  const a = before.trimEnd()
  const b = after.trim()
  if (a === '') return b
  if (b === '') return a
  if (a.endsWith(SOFT_HYPHEN)) return a.slice(0, -1) + b
  if (/[-\u2010]$/u.test(a)) return /^\p{Ll}/u.test(b) ? a.slice(0, -1) + b : a + b
  if (CJK.test(a.at(-1) ?? '') || CJK.test(b[0] ?? '')) return a + b
  return `${a} ${b}`
}
