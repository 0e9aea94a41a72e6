import { DOCUMENT_READ_MAX_CHARS, type DocumentReadOutcome, type DocumentReadRequest } from './document-edits'
import { LINE_BREAK } from './pptx'
import { DeckRefusal, guard, layoutOf, notesOf, openDeck, slideContent, type TextUnit } from './pptx-deck'
import { SOFT_BREAK_MARK } from './pptx-text'

/** Slides a read shows when the model names no limit; a deck's text is a few hundred chars a slide. */
export const PPTX_READ_DEFAULT_SLIDES = 50
const PPTX_READ_MAX_SLIDES = 500

/**
 * The text view `read` gives the model for a PPTX (issue 26), with the anchors `office_edit` takes.
 *
 * Decisions: a shape with one paragraph is shown on its anchor's line; a shape with several has
 * each paragraph on its own line, indented by two spaces that are not part of the text, so the
 * model can write the whole text back with "\n" between paragraphs. A soft line break inside a
 * paragraph (`<a:br/>`) is shown as `<br>` and `replace_text` reads `<br>` back as one: a control
 * character would be invisible to the model and lost on the way back. Table cells are anchored and
 * editable like shapes (`s5.sh8.r1.c2`); cells covered by a merge are not listed. Speaker notes are
 * shown read-only: no edit names them.
 */
export async function readPptxView(bytes: Uint8Array, request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  try {
    return { kind: 'ok', text: await render(bytes, request) }
  } catch (error) {
    if (error instanceof DeckRefusal)
      return { kind: 'refused', reason: error.reason, message: error.message, edit_index: null }
    throw error
  }
}

async function render(bytes: Uint8Array, request: DocumentReadRequest): Promise<string> {
  const deck = await openDeck(bytes)
  const total = deck.slides.length
  const offset = Math.max(1, Math.floor(request.offset ?? 1))
  const limit = Math.min(PPTX_READ_MAX_SLIDES, Math.max(1, Math.floor(request.limit ?? PPTX_READ_DEFAULT_SLIDES)))
  const legend =
    'Anchors: [s3] is slide 3, [s3.sh5] shape 5 on it, [s3.sh8.r1.c2] a table cell; office_edit replace_text takes them without brackets. ' +
    'Several paragraphs are shown one per line, indented by two spaces that are not part of the text (write them back separated by "\\n"); ' +
    `${SOFT_BREAK_MARK} is a line break inside a paragraph. (notes) lines are speaker notes, read-only.`
  if (total === 0) return `PPTX presentation: no slides.\n${legend}\n`
  if (offset > total) return `PPTX presentation: ${total} slides; offset ${offset} is past the last slide.\n`

  const blocks: string[] = []
  const budget = DOCUMENT_READ_MAX_CHARS - 600
  let used = 0
  let last = offset - 1
  let cut = false
  await guard(async () => {
    for (const slide of deck.slides.slice(offset - 1, offset - 1 + limit)) {
      const xml = await deck.pkg.text(slide.part)
      const content = slideContent(xml)
      const layout = await layoutOf(deck.pkg, slide.part)
      const lines = [
        `[s${slide.index}] slide ${slide.index}` +
          (layout ? ` — layout "${layout.name}"` : '') +
          (content.hidden ? ' (hidden)' : ''),
      ]
      for (const unit of content.units) {
        if (unit.merged) continue
        lines.push(...unitLines(`s${slide.index}`, unit))
      }
      for (const object of content.objects)
        lines.push(`[s${slide.index}.${object.anchor}] ${object.what} "${object.name}" (no text)`)
      const notes = await notesOf(deck.pkg, slide.part)
      if (notes.some((p) => p.trim() !== '')) lines.push(...notes.map((p) => `(notes) ${shown(p)}`))
      let block = lines.join('\n') + '\n'
      if (used + block.length > budget) {
        if (blocks.length > 0) {
          cut = true
          break
        }
        // One slide alone is over the bound: show its beginning rather than nothing.
        block = block.slice(0, budget) + "\n… (this slide's text is cut here: the view is bounded)\n"
      }
      blocks.push(block)
      used += block.length
      last = slide.index
      if (used >= budget) break
    }
  })
  const header = `PPTX presentation: ${total} slides; showing slides ${offset}–${last}.\n${legend}\n\n`
  const rest =
    last < total
      ? `\n${cut ? 'The view is bounded. ' : ''}Slides ${last + 1}–${total} are not shown; read on with offset=${last + 1}.\n`
      : ''
  return header + blocks.join('\n') + rest
}

function unitLines(slideAnchor: string, unit: TextUnit): string[] {
  const anchor = `[${slideAnchor}.${unit.anchor}]`
  const empty = unit.paragraphs.every((p) => p === '')
  const tags = [unit.placeholder, empty ? 'empty' : null].filter((t): t is string => t !== null)
  const prefix = tags.length > 0 ? `${anchor} (${tags.join(', ')})` : anchor
  if (empty) return [prefix]
  if (unit.paragraphs.length === 1) return [`${prefix} ${shown(unit.paragraphs[0] ?? '')}`]
  return [prefix, ...unit.paragraphs.map((p) => `  ${shown(p)}`)]
}

function shown(paragraph: string): string {
  return paragraph.split(LINE_BREAK).join(SOFT_BREAK_MARK)
}
