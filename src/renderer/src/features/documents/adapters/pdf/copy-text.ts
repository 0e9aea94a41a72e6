/**
 * Clipboard text for a selection in the PDF text layer (spec 09): the lines a page was laid out in
 * are joined back into the sentences they came from, while paragraph breaks stay. Pure: it works
 * on positioned fragments, so it is tested without a browser (`selection-fragments.ts` reads them
 * from the DOM).
 */

/** A selected piece of one text-layer span, positioned relative to its page (any unit). */
export interface TextFragment {
  readonly text: string
  readonly page: number
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

export interface CopyOptions {
  /** Keep every layout line break (the "Keep line breaks" checkbox). */
  readonly keepLineBreaks: boolean
}

interface Line {
  text: string
  page: number
  left: number
  top: number
  right: number
  bottom: number
}

const SOFT_HYPHEN = '\u00ad'
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u
const SENTENCE_END = /[.!?:;。！？：；…」』”"')\]）]$/u
const HYPHENS = /[-\u2010]$/u
/** Typographic ligatures (ff, fi, fl, ffi, ffl, long s t, st) a font maps its glyphs to. */
const LIGATURES = /[\ufb00-\ufb06]/gu

const height = (box: { top: number; bottom: number }) => Math.max(0, box.bottom - box.top)

function median(values: number[]): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

/** Fragments on one visual line share most of their height. */
function sameLine(line: Line, fragment: TextFragment): boolean {
  if (line.page !== fragment.page) return false
  const overlap = Math.min(line.bottom, fragment.bottom) - Math.max(line.top, fragment.top)
  const smaller = Math.min(height(line), height(fragment))
  return smaller <= 0 ? Math.abs(line.top - fragment.top) < 1 : overlap >= smaller * 0.5
}

function isSpace(char: string | undefined): boolean {
  return char === undefined || /\s/u.test(char)
}

function toLines(fragments: readonly TextFragment[]): Line[] {
  const lines: Line[] = []
  for (const fragment of fragments) {
    if (fragment.text === '') continue
    const last = lines.at(-1)
    if (last && sameLine(last, fragment)) {
      // pdf.js puts spaces into the text layer as their own items; a visible gap without one
      // (text drawn word by word) still separates words, except inside CJK text.
      const gap = fragment.left - last.right
      const before = last.text.at(-1)
      const after = fragment.text[0]
      const needsSpace =
        gap > Math.min(height(last), height(fragment)) * 0.25 &&
        !isSpace(before) &&
        !isSpace(after) &&
        !(CJK.test(before ?? '') || CJK.test(after ?? ''))
      last.text += (needsSpace ? ' ' : '') + fragment.text
      last.left = Math.min(last.left, fragment.left)
      last.right = Math.max(last.right, fragment.right)
      last.top = Math.min(last.top, fragment.top)
      last.bottom = Math.max(last.bottom, fragment.bottom)
    } else {
      lines.push({ ...fragment })
    }
  }
  return lines
}

/**
 * Lines in one column of one page: a new block starts on another page or when the next line is
 * above the previous one (the selection went on in the next column).
 */
function toBlocks(lines: Line[]): Line[][] {
  const blocks: Line[][] = []
  let current: Line[] = []
  for (const line of lines) {
    const previous = current.at(-1)
    if (previous && (previous.page !== line.page || line.top < previous.top - height(previous) * 0.5)) {
      blocks.push(current)
      current = []
    }
    current.push(line)
  }
  if (current.length > 0) blocks.push(current)
  return blocks
}

interface BlockMetrics {
  readonly left: number
  readonly right: number
}

/** Whether the break after `line` ends a paragraph (or a heading) rather than a layout line. */
function endsParagraph(line: Line, block: BlockMetrics): boolean {
  const width = block.right - block.left
  if (width <= 0) return false
  const shortBy = block.right - line.right
  const text = line.text.trimEnd()
  if (shortBy > width * 0.3) return true
  return shortBy > width * 0.1 && SENTENCE_END.test(text)
}

function join(before: string, after: string): string {
  const a = before.trimEnd()
  const b = after.trimStart()
  if (a === '') return b
  if (b === '') return a
  if (a.endsWith(SOFT_HYPHEN)) return a.slice(0, -1) + b
  // A hyphen that ends a line and is followed by a lowercase letter split one word across the
  // line ("hyphen-" / "ated"): the word is rejoined without it, as Firefox and Chrome copy it. Any
  // other hyphen at a line end stays: before a capital or a digit ("Jean-" / "Paul", "COVID-" /
  // "19") it is part of the name. The rule cannot tell a compound broken at its own hyphen
  // ("well-" / "known") from a hyphenated word without a dictionary; those lose their hyphen,
  // which is the rarer loss in typeset text.
  if (HYPHENS.test(a)) return /^\p{Ll}/u.test(b) ? a.slice(0, -1) + b : a + b
  if (CJK.test(a.at(-1) ?? '') || CJK.test(b[0] ?? '')) return a + b
  return `${a} ${b}`
}

/**
 * Ligatures spelled out as their letters (what NFKC does for U+FB00–FB06 alone: full NFKC would
 * also rewrite full-width CJK punctuation, superscripts and the like, which the copy must keep).
 */
export function spellLigatures(text: string): string {
  return text.replace(LIGATURES, (ligature) => ligature.normalize('NFKC'))
}

export function fragmentsToText(fragments: readonly TextFragment[], options: CopyOptions): string {
  const lines = toLines(fragments)
  if (lines.length === 0) return ''
  const strip = (text: string) => spellLigatures(text.replaceAll(SOFT_HYPHEN, ''))
  if (options.keepLineBreaks) {
    return lines.map((line, i) => strip(i === lines.length - 1 ? line.text : line.text.trimEnd())).join('\n')
  }

  const heights = lines.map(height).filter((h) => h > 0)
  const lineHeight = median(heights) || 1
  const blocks = toBlocks(lines)
  const pitches: number[] = []
  for (const block of blocks) {
    for (let i = 1; i < block.length; i++) {
      const a = block[i - 1]
      const b = block[i]
      if (a && b) pitches.push(b.top - a.top)
    }
  }
  // With few lines the median pitch may itself be a paragraph gap: cap it at a generous leading.
  const typicalPitch = pitches.length >= 3 ? median(pitches) : Math.min(median(pitches) || Infinity, lineHeight * 1.35)

  const first = lines[0]
  const paragraphs: string[] = []
  let paragraph = ''
  blocks.forEach((block, blockIndex) => {
    // The first line of the selection may start mid-line: its left edge says nothing about indents.
    const full = block.filter((line) => line !== first)
    const metrics: BlockMetrics = {
      left: Math.min(...(full.length > 0 ? full : block).map((l) => l.left)),
      right: Math.max(...block.map((l) => l.right)),
    }
    block.forEach((line, i) => {
      if (blockIndex === 0 && i === 0) {
        paragraph = line.text
        return
      }
      const previous = i > 0 ? block[i - 1] : blocks[blockIndex - 1]?.at(-1)
      if (!previous) return
      let breaks: boolean
      if (i === 0) {
        const previousBlock = blocks[blockIndex - 1] ?? []
        breaks = endsParagraph(previous, {
          left: Math.min(...previousBlock.map((l) => l.left)),
          right: Math.max(...previousBlock.map((l) => l.right)),
        })
      } else {
        const pitch = line.top - previous.top
        const indented = full.length > 1 && line.left - metrics.left > lineHeight * 0.8
        // A change of type size (a heading and its text) is a break too.
        const resized = Math.abs(height(line) - height(previous)) > Math.max(height(line), height(previous)) * 0.25
        breaks = pitch > typicalPitch * 1.3 || indented || resized || endsParagraph(previous, metrics)
      }
      if (breaks) {
        paragraphs.push(paragraph.trimEnd())
        paragraph = line.text.trimStart()
      } else {
        paragraph = join(paragraph, line.text)
      }
    })
  })
  paragraphs.push(paragraph)
  return strip(paragraphs.join('\n'))
}
