import { diffArrays } from 'diff'
import { wordSegments as segmentsOf } from './word-segments'
import type { DocxDiff, DocxDiffEntry, TextSegment } from '../protocol/documents'
import {
  DOCX_LINE_BREAK,
  DOCX_LINE_BREAK_SHOWN,
  openDocx,
  styleName,
  type DocxCell,
  type DocxDocument,
  type DocxParagraph,
  type DocxStory,
  type DocxStyles,
  type RunProps,
} from './docx-model'
import { PackageError } from './zip'

/**
 * The redline of two DOCX versions (issue 26). Each story (body, each header and footer, notes) is
 * a sequence of units — paragraphs and table cells — aligned by their text with Myers' diff, so an
 * inserted paragraph is one addition and not every later paragraph "changed"; a removed and an
 * added paragraph next to each other pair into one change when their words are alike. Cells pair
 * by their anchor. Equal text with different run or paragraph properties is a `formatting` entry
 * naming what changed.
 */

/** Entries listed at most; the counts stay exact past it. */
export const DOCX_DIFF_MAX_ENTRIES = 500
/**
 * Myers' diff costs time in proportion to the edit distance; past this many differing units the
 * alignment falls back to trimming the common start and end, which is linear.
 */
const MAX_ALIGNED_EDITS = 2_000
/** How far the linear fallback looks ahead for the next unchanged unit. */
const RESYNC_WINDOW = 64
/** Word diffs inside one unit stop past this edit length and show the unit as replaced whole. */
const MAX_WORD_EDITS = 2_000
/** Words two paragraphs must share (Dice coefficient) to be shown as one changed paragraph. */
const SIMILAR = 0.5
/** How far ahead a removed paragraph looks for its changed counterpart among added ones. */
const PAIRING_WINDOW = 8

interface Unit {
  readonly kind: 'paragraph' | 'cell'
  readonly anchor: string
  readonly text: string
  readonly styleId: string | null
  readonly alignment: string | null
  readonly props: readonly RunProps[]
  readonly key: string
}

interface Side {
  readonly document: DocxDocument
  readonly stories: Map<string, DocxStory>
}

/**
 * What changed inside a DOCX between two versions; null is an absent side (issue 26). A side that
 * cannot be read throws a `PackageError` (`corrupt`, `encrypted`, `too-large`) for the caller to
 * answer `unreadable` with its message.
 */
export async function diffDocx(before: Uint8Array | null, after: Uint8Array | null): Promise<DocxDiff> {
  const left = before === null ? null : await sideOf(before)
  const right = after === null ? null : await sideOf(after)
  const result = new Redline()
  const keys = [...new Set([...(left?.stories.keys() ?? []), ...(right?.stories.keys() ?? [])])]
  for (const key of keys) {
    const a = left?.stories.get(key)
    const b = right?.stories.get(key)
    const story = (b ?? a)?.kind ?? 'body'
    result.compare(
      story,
      a ? unitsOf(a) : [],
      b ? unitsOf(b) : [],
      left?.document.styles ?? null,
      right?.document.styles ?? null,
    )
  }
  return { kind: 'docx', counts: result.counts, entries: result.entries, truncated: result.truncated }
}

async function sideOf(bytes: Uint8Array): Promise<Side> {
  const opened = await openDocx(bytes)
  if (opened.kind === 'refused') {
    throw new PackageError(opened.reason === 'damaged' ? 'corrupt' : opened.reason, opened.message)
  }
  const stories = new Map<string, DocxStory>()
  for (const story of opened.document.stories) stories.set(story.prefix === '' ? story.kind : story.prefix, story)
  return { document: opened.document, stories }
}

function unitsOf(story: DocxStory): Unit[] {
  const units: Unit[] = []
  if (story.kind === 'footnotes' || story.kind === 'endnotes') {
    for (const note of story.notes) units.push(groupUnit('paragraph', note.anchor, note.paragraphs))
    return units
  }
  const addCell = (cell: DocxCell) => {
    if (cell.mergedInto !== null) return
    units.push(groupUnit('cell', cell.anchor, cell.paragraphs))
    for (const nested of cell.nested) {
      const table = story.tables.get(nested)
      if (table) table.cells.forEach(addCell)
    }
  }
  for (const block of story.blocks) {
    if (block.kind === 'paragraph') units.push(groupUnit('paragraph', block.paragraph.anchor, [block.paragraph]))
    else block.table.cells.forEach(addCell)
  }
  return units
}

const NO_PROPS: RunProps = {
  bold: false,
  italic: false,
  underline: false,
  strike: false,
  size: null,
  color: null,
  font: null,
  highlight: null,
}

function groupUnit(kind: Unit['kind'], anchor: string, paragraphs: readonly DocxParagraph[]): Unit {
  const text = paragraphs.map((p) => p.text).join('\n')
  const props: RunProps[] = []
  paragraphs.forEach((paragraph, i) => {
    if (i > 0) props.push(NO_PROPS)
    for (const atom of paragraph.atoms) for (let c = 0; c < atom.text.length; c++) props.push(atom.props)
  })
  const first = paragraphs[0]
  // Aligned by text, so an inserted row shifts the later cells without reporting them changed.
  const key = `${kind === 'cell' ? 'c' : 'p'}\u0000${text}`
  return { kind, anchor, text, styleId: first?.styleId ?? null, alignment: first?.alignment ?? null, props, key }
}

class Redline {
  readonly counts = { added: 0, removed: 0, changed: 0 }
  readonly entries: DocxDiffEntry[] = []
  truncated = false

  compare(
    story: string,
    before: readonly Unit[],
    after: readonly Unit[],
    beforeStyles: DocxStyles | null,
    afterStyles: DocxStyles | null,
  ): void {
    const name = (styles: DocxStyles | null, id: string | null) => (styles ? styleName(styles, id) : null)
    const push = (entry: DocxDiffEntry) => {
      this.counts[entry.change === 'formatting' ? 'changed' : entry.change]++
      if (this.entries.length < DOCX_DIFF_MAX_ENTRIES) this.entries.push(entry)
      else this.truncated = true
    }
    const added = (unit: Unit) =>
      push({
        change: 'added',
        story,
        before_anchor: null,
        after_anchor: unit.anchor,
        style: name(afterStyles, unit.styleId),
        segments: [{ kind: 'added', text: shown(unit.text) }],
        formatting: [],
      })
    const removed = (unit: Unit) =>
      push({
        change: 'removed',
        story,
        before_anchor: unit.anchor,
        after_anchor: null,
        style: name(beforeStyles, unit.styleId),
        segments: [{ kind: 'removed', text: shown(unit.text) }],
        formatting: [],
      })
    const same = (a: Unit, b: Unit) => {
      const formatting = formattingChanges(a, b, sharedCharacters(a, b, null), beforeStyles, afterStyles)
      if (formatting.length === 0) return
      push({
        change: 'formatting',
        story,
        before_anchor: a.anchor,
        after_anchor: b.anchor,
        style: name(afterStyles, b.styleId),
        segments: [{ kind: 'same', text: shown(b.text) }],
        formatting,
      })
    }
    const changed = (a: Unit, b: Unit) => {
      const segments = wordSegments(a.text, b.text)
      push({
        change: 'changed',
        story,
        before_anchor: a.anchor,
        after_anchor: b.anchor,
        style: name(afterStyles, b.styleId),
        segments,
        // Formatting is compared on the words both versions share, so retyped words are not "bold added".
        formatting: formattingChanges(a, b, sharedCharacters(a, b, segments), beforeStyles, afterStyles),
      })
    }

    for (const step of align(before, after)) {
      if (step.kind === 'same') same(step.before, step.after)
      else pairRun(step.removed, step.added, { added, removed, changed })
    }
  }
}

type Step = { kind: 'same'; before: Unit; after: Unit } | { kind: 'replace'; removed: Unit[]; added: Unit[] }

function align(before: readonly Unit[], after: readonly Unit[]): Step[] {
  let head = 0
  while (head < before.length && head < after.length && before[head]?.key === after[head]?.key) head++
  let tail = 0
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail]?.key === after[after.length - 1 - tail]?.key
  ) {
    tail++
  }
  const steps: Step[] = []
  const sameRange = (from: number, to: number, offsetAfter: number) => {
    for (let i = from; i < to; i++) {
      const a = before[i]
      const b = after[i + offsetAfter]
      if (a && b) steps.push({ kind: 'same', before: a, after: b })
    }
  }
  sameRange(0, head, 0)
  const middleBefore = before.slice(head, before.length - tail)
  const middleAfter = after.slice(head, after.length - tail)
  const changes =
    middleBefore.length === 0 || middleAfter.length === 0
      ? undefined
      : diffArrays(
          middleBefore.map((u) => u.key),
          middleAfter.map((u) => u.key),
          { maxEditLength: MAX_ALIGNED_EDITS },
        )
  if (changes === undefined) {
    steps.push(...greedyAlign(middleBefore, middleAfter))
  } else {
    let i = 0
    let j = 0
    let pending: { kind: 'replace'; removed: Unit[]; added: Unit[] } | null = null
    for (const change of changes) {
      const count = change.value.length
      if (change.removed) {
        pending ??= { kind: 'replace', removed: [], added: [] }
        pending.removed.push(...middleBefore.slice(i, i + count))
        i += count
      } else if (change.added) {
        pending ??= { kind: 'replace', removed: [], added: [] }
        pending.added.push(...middleAfter.slice(j, j + count))
        j += count
      } else {
        if (pending) steps.push(pending)
        pending = null
        for (let k = 0; k < count; k++) {
          const a = middleBefore[i + k]
          const b = middleAfter[j + k]
          if (a && b) steps.push({ kind: 'same', before: a, after: b })
        }
        i += count
        j += count
      }
    }
    if (pending) steps.push(pending)
  }
  sameRange(before.length - tail, before.length, after.length - before.length)
  return steps
}

/**
 * The linear fallback when the two sides differ too much for Myers' diff in bounded time: walk both
 * sides, resynchronising on the nearest equal unit within a window, so the units that did not
 * change are still reported as unchanged.
 */
function greedyAlign(before: readonly Unit[], after: readonly Unit[]): Step[] {
  const steps: Step[] = []
  let pending: { kind: 'replace'; removed: Unit[]; added: Unit[] } | null = null
  const flush = () => {
    if (pending) steps.push(pending)
    pending = null
  }
  const nextMatch = (units: readonly Unit[], from: number, key: string) => {
    for (let k = from; k < Math.min(units.length, from + RESYNC_WINDOW); k++) if (units[k]?.key === key) return k
    return -1
  }
  let i = 0
  let j = 0
  while (i < before.length || j < after.length) {
    const a = before[i]
    const b = after[j]
    if (a && b && a.key === b.key) {
      flush()
      steps.push({ kind: 'same', before: a, after: b })
      i++
      j++
      continue
    }
    pending ??= { kind: 'replace', removed: [], added: [] }
    const inAfter = a ? nextMatch(after, j + 1, a.key) : -1
    const inBefore = b ? nextMatch(before, i + 1, b.key) : -1
    if (inAfter !== -1 && (inBefore === -1 || inAfter - j <= inBefore - i)) {
      pending.added.push(...after.slice(j, inAfter))
      j = inAfter
    } else if (inBefore !== -1) {
      pending.removed.push(...before.slice(i, inBefore))
      i = inBefore
    } else {
      if (a) pending.removed.push(a)
      if (b) pending.added.push(b)
      i += a ? 1 : 0
      j += b ? 1 : 0
    }
  }
  flush()
  return steps
}

function pairRun(
  removed: readonly Unit[],
  added: readonly Unit[],
  emit: { added: (u: Unit) => void; removed: (u: Unit) => void; changed: (a: Unit, b: Unit) => void },
): void {
  // A cell edited in place keeps its anchor, whatever its new words.
  const matches = (a: Unit, b: Unit) =>
    a.kind === b.kind && ((a.kind === 'cell' && a.anchor === b.anchor) || similarity(a.text, b.text) >= SIMILAR)
  let i = 0
  let j = 0
  while (i < removed.length || j < added.length) {
    const a = removed[i]
    const b = added[j]
    if (a && b && matches(a, b)) {
      emit.changed(a, b)
      i++
      j++
      continue
    }
    if (a && b) {
      // The removed unit's counterpart may come a little later among the added ones.
      let ahead = -1
      for (let k = j + 1; k < Math.min(added.length, j + 1 + PAIRING_WINDOW); k++) {
        const candidate = added[k]
        if (candidate && matches(a, candidate)) {
          ahead = k
          break
        }
      }
      if (ahead !== -1) {
        for (; j < ahead; j++) {
          const skipped = added[j]
          if (skipped) emit.added(skipped)
        }
        continue
      }
    }
    if (a) {
      emit.removed(a)
      i++
    } else if (b) {
      emit.added(b)
      j++
    }
  }
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
}

function similarity(a: string, b: string): number {
  const left = words(a)
  const right = words(b)
  if (left.length === 0 && right.length === 0) return 1
  const counts = new Map<string, number>()
  for (const word of left) counts.set(word, (counts.get(word) ?? 0) + 1)
  let common = 0
  for (const word of right) {
    const n = counts.get(word) ?? 0
    if (n > 0) {
      common++
      counts.set(word, n - 1)
    }
  }
  return (2 * common) / (left.length + right.length)
}

function shown(text: string): string {
  return text.split(DOCX_LINE_BREAK).join(DOCX_LINE_BREAK_SHOWN)
}

function wordSegments(before: string, after: string): TextSegment[] {
  return segmentsOf(shown(before), shown(after), MAX_WORD_EDITS)
}

function styleChangeOf(a: Unit, b: Unit, before: DocxStyles | null, after: DocxStyles | null): string | null {
  const from = before ? styleName(before, a.styleId) : (a.styleId ?? 'Normal')
  const to = after ? styleName(after, b.styleId) : (b.styleId ?? 'Normal')
  return from === to ? null : `style ${from} → ${to}`
}

const TOGGLES: ReadonlyArray<[keyof RunProps, string]> = [
  ['bold', 'bold'],
  ['italic', 'italic'],
  ['underline', 'underline'],
  ['strike', 'strikethrough'],
]

/** The run properties of each character both sides share: all of them when the texts are equal. */
function sharedCharacters(a: Unit, b: Unit, segments: readonly TextSegment[] | null): Array<[RunProps, RunProps]> {
  const pairs: Array<[RunProps, RunProps]> = []
  if (segments === null) {
    for (let i = 0; i < Math.min(a.props.length, b.props.length); i++) {
      const x = a.props[i]
      const y = b.props[i]
      if (x && y) pairs.push([x, y])
    }
    return pairs
  }
  // Segments are of the shown text, which has as many characters as the text itself.
  let i = 0
  let j = 0
  for (const segment of segments) {
    const length = segment.text.length
    if (segment.kind === 'same') {
      for (let k = 0; k < length; k++) {
        const x = a.props[i + k]
        const y = b.props[j + k]
        if (x && y) pairs.push([x, y])
      }
    }
    if (segment.kind !== 'added') i += length
    if (segment.kind !== 'removed') j += length
  }
  return pairs
}

function formattingChanges(
  a: Unit,
  b: Unit,
  pairs: ReadonlyArray<[RunProps, RunProps]>,
  before: DocxStyles | null,
  after: DocxStyles | null,
): string[] {
  const found: string[] = []
  const style = styleChangeOf(a, b, before, after)
  if (style) found.push(style)
  for (const [key, label] of TOGGLES) {
    let gained = false
    let lost = false
    for (const [x, y] of pairs) {
      if (!x[key] && y[key]) gained = true
      else if (x[key] && !y[key]) lost = true
    }
    if (gained) found.push(`${label} added`)
    if (lost) found.push(`${label} removed`)
  }
  const firstDifference = (key: keyof RunProps) => {
    for (const [x, y] of pairs) if (x[key] !== y[key]) return { from: x[key], to: y[key] }
    return undefined
  }
  const size = firstDifference('size')
  if (size) found.push(`font size ${points(size.from)} → ${points(size.to)}`)
  const font = firstDifference('font')
  if (font) found.push(`font ${String(font.from ?? 'default')} → ${String(font.to ?? 'default')}`)
  if (firstDifference('color')) found.push('colour changed')
  const highlight = firstDifference('highlight')
  if (highlight)
    found.push(
      highlight.from === null ? 'highlight added' : highlight.to === null ? 'highlight removed' : 'highlight changed',
    )
  if (a.alignment !== b.alignment) found.push(`alignment ${a.alignment ?? 'left'} → ${b.alignment ?? 'left'}`)
  return found
}

/** `w:sz` is in half-points. */
function points(value: string | boolean | null): string {
  if (typeof value !== 'string') return 'default'
  const half = Number.parseInt(value, 10)
  return Number.isFinite(half) ? String(half / 2) : value
}
