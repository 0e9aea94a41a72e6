import { wordSegments } from './word-segments'
import type { PptxDiff, PptxShapeDiff, PptxSlideDiff } from '../protocol/documents'
import { LINE_BREAK } from './pptx'
import { guard, notesOf, openDeck, slideContent, titleOf } from './pptx-deck'

/**
 * What changed inside a PPTX between two versions; null is an absent side (issue 26).
 *
 * Slides are matched by `p:sldId/@id`, which PowerPoint keeps across reorders and gives anew to an
 * added or duplicated slide. A slide counts as `moved` only when its order relative to the other
 * kept slides changed (the longest common subsequence of both orders stays put), so adding a slide
 * at the front does not report every later slide as moved. Shapes are matched by `p:cNvPr/@id`,
 * table cells by their anchor, and speaker notes are compared as the shape `notes`; a picture or
 * chart that arrives or goes is listed with no segments. Only slides
 * that changed are listed; the counts are exact. An unreadable side throws `DeckRefusal`.
 */
export async function diffPptx(before: Uint8Array | null, after: Uint8Array | null): Promise<PptxDiff> {
  const [old, next] = await Promise.all([before ? readSlides(before) : [], after ? readSlides(after) : []])
  const oldById = new Map(old.map((slide) => [slide.slideId, slide]))
  const nextById = new Map(next.map((slide) => [slide.slideId, slide]))
  const keptOld = old.filter((s) => nextById.has(s.slideId)).map((s) => s.slideId)
  const keptNext = next.filter((s) => oldById.has(s.slideId)).map((s) => s.slideId)
  const inPlace = new Set(longestCommonSubsequence(keptOld, keptNext))

  const listed: Array<{ order: number; diff: PptxSlideDiff }> = []
  const counts = { slides_added: 0, slides_removed: 0, slides_changed: 0, slides_moved: 0 }
  for (const slide of next) {
    const previous = oldById.get(slide.slideId)
    if (!previous) {
      counts.slides_added++
      listed.push({
        order: slide.index,
        diff: {
          before_index: null,
          after_index: slide.index,
          change: 'added',
          title: slide.title,
          shapes: slide.texts.filter(worthListing).map((t) => whole(t, 'added')),
        },
      })
      continue
    }
    const shapes = shapeChanges(previous.texts, slide.texts)
    const moved = !inPlace.has(slide.slideId)
    if (shapes.length === 0 && !moved) continue
    if (shapes.length > 0) counts.slides_changed++
    else counts.slides_moved++
    listed.push({
      order: slide.index,
      diff: {
        before_index: previous.index,
        after_index: slide.index,
        change: shapes.length > 0 ? 'changed' : 'moved',
        title: slide.title !== '' ? slide.title : previous.title,
        shapes,
      },
    })
  }
  for (const slide of old) {
    if (nextById.has(slide.slideId)) continue
    counts.slides_removed++
    // A removed slide is listed where it stood: after the slide that preceded it, if that one stayed.
    const precedingKept = old
      .slice(0, slide.index - 1)
      .reverse()
      .find((s) => nextById.has(s.slideId))
    const anchor = precedingKept ? (nextById.get(precedingKept.slideId)?.index ?? 0) : 0
    listed.push({
      order: anchor + 0.5,
      diff: {
        before_index: slide.index,
        after_index: null,
        change: 'removed',
        title: slide.title,
        shapes: slide.texts.filter(worthListing).map((t) => whole(t, 'removed')),
      },
    })
  }
  listed.sort((a, b) => a.order - b.order)
  return { kind: 'pptx', counts, slides: listed.map((entry) => entry.diff) }
}

interface SlideTexts {
  readonly index: number
  readonly slideId: string
  readonly title: string
  readonly texts: readonly ShapeText[]
}

interface ShapeText {
  readonly anchor: string
  readonly name: string
  readonly text: string
  /** A picture, chart or other frame without text: only its arrival or removal is a change. */
  readonly object: boolean
}

async function readSlides(bytes: Uint8Array): Promise<SlideTexts[]> {
  const deck = await openDeck(bytes)
  return guard(async () => {
    const slides: SlideTexts[] = []
    for (const slide of deck.slides) {
      const content = slideContent(await deck.pkg.text(slide.part))
      const texts = content.units
        .filter((unit) => !unit.merged)
        .map((unit): ShapeText => ({
          anchor: unit.anchor,
          name: unit.name,
          text: plain(unit.paragraphs),
          object: false,
        }))
      for (const object of content.objects)
        texts.push({ anchor: object.anchor, name: object.name, text: '', object: true })
      const notes = await notesOf(deck.pkg, slide.part)
      if (notes.length > 0) texts.push({ anchor: 'notes', name: 'Speaker notes', text: plain(notes), object: false })
      // Two slides claiming one id (a damaged deck) are told apart by their part.
      const slideId = slides.some((s) => s.slideId === slide.slideId) ? `${slide.slideId}@${slide.part}` : slide.slideId
      slides.push({ index: slide.index, slideId, title: titleOf(content), texts })
    }
    return slides
  })
}

function plain(paragraphs: readonly string[]): string {
  return paragraphs
    .map((p) => p.split(LINE_BREAK).join('\n'))
    .join('\n')
    .replace(/\n+$/, '')
}

function whole(unit: ShapeText, change: 'added' | 'removed'): PptxShapeDiff {
  return {
    shape: unit.anchor,
    name: unit.name,
    change,
    segments: unit.object ? [] : [{ kind: change, text: unit.text }],
  }
}

/** A shape worth listing on its own: text, or a picture/chart (listed with no segments). */
function worthListing(unit: ShapeText): boolean {
  return unit.object || unit.text !== ''
}

function shapeChanges(before: SlideTexts['texts'], after: SlideTexts['texts']): PptxShapeDiff[] {
  const old = new Map(before.map((t) => [t.anchor, t]))
  const next = new Map(after.map((t) => [t.anchor, t]))
  const changes: PptxShapeDiff[] = []
  for (const unit of after) {
    const previous = old.get(unit.anchor)
    if (!previous) {
      if (worthListing(unit)) changes.push(whole(unit, 'added'))
      continue
    }
    if (previous.text === unit.text || unit.object || previous.object) continue
    changes.push({
      shape: unit.anchor,
      name: unit.name,
      change: 'changed',
      segments: wordSegments(previous.text, unit.text),
    })
  }
  for (const unit of before) {
    if (!next.has(unit.anchor) && worthListing(unit)) changes.push(whole(unit, 'removed'))
  }
  return changes
}

/** Past this many table cells (2 000 × 2 000 slides) slides stay in place when their rank among kept slides does. */
const LCS_MAX_CELLS = 4_000_000

function longestCommonSubsequence(a: readonly string[], b: readonly string[]): string[] {
  if ((a.length + 1) * (b.length + 1) > LCS_MAX_CELLS) return a.filter((id, i) => b[i] === id)
  const rows = a.length + 1
  const columns = b.length + 1
  const table = new Uint32Array(rows * columns)
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * columns + j] =
        a[i] === b[j]
          ? (table[(i + 1) * columns + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * columns + j] ?? 0, table[i * columns + j + 1] ?? 0)
    }
  }
  const result: string[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      result.push(a[i] as string)
      i++
      j++
    } else if ((table[(i + 1) * columns + j] ?? 0) >= (table[i * columns + j + 1] ?? 0)) i++
    else j++
  }
  return result
}
