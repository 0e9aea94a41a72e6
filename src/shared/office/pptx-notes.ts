import { relationshipsOf } from './opc'
import { LINE_BREAK, rewriteTextBody } from './pptx'
import { asRefusal, guard, notesOf, openDeck, slideContent, type Deck } from './pptx-deck'
import { relativeTarget, relsXml, withOverrides, withRelationships } from './pptx-package'
import { escapeText } from './xml'
import { relsPartOf } from './zip'

/**
 * Speaker notes (issue 27): read every slide's notes and replace one slide's notes text. An
 * existing notes slide keeps everything but the changed paragraphs of its body placeholder (runs
 * keep their formatting, as slide text does); a slide without one gets a new notes slide built on
 * the deck's notes master, as PowerPoint makes it. Every other part stays byte-identical.
 */

export interface SlideNotes {
  /** 1-based, in presentation order. */
  readonly slide: number
  /** Paragraph texts, soft breaks as U+000B; [] without notes. */
  readonly paragraphs: string[]
}

export type NotesEditOutcome =
  | { kind: 'ok'; bytes: Uint8Array; changedParts: string[] }
  | {
      kind: 'refused'
      reason: 'no-such-slide' | 'no-notes-master' | 'no-notes-body' | 'unreadable'
      message: string
    }

const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const NOTES_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml'
/** Far more than a person types; the model's `Text` bound is the same. */
const MAX_NOTES_CHARS = 100_000

export async function readSlideNotes(bytes: Uint8Array): Promise<SlideNotes[]> {
  const deck = await openDeck(bytes)
  return guard(async () => {
    const notes: SlideNotes[] = []
    for (const slide of deck.slides) notes.push({ slide: slide.index, paragraphs: await notesOf(deck.pkg, slide.part) })
    return notes
  })
}

export async function editSlideNotes(
  bytes: Uint8Array,
  edit: { slide: number; paragraphs: readonly string[] },
): Promise<NotesEditOutcome> {
  if (edit.paragraphs.reduce((sum, p) => sum + p.length, 0) > MAX_NOTES_CHARS) {
    return { kind: 'refused', reason: 'unreadable', message: `Notes are limited to ${MAX_NOTES_CHARS} characters.` }
  }
  let deck: Deck
  try {
    deck = await openDeck(bytes)
  } catch (error) {
    return { kind: 'refused', reason: 'unreadable', message: asRefusal(error).message }
  }
  const slide = deck.slides[edit.slide - 1]
  if (!slide) return { kind: 'refused', reason: 'no-such-slide', message: `There is no slide ${edit.slide}.` }
  const rels = await relationshipsOf(deck.pkg, slide.part)
  const existing = rels.find((r) => r.type === 'notesSlide' && !r.external && deck.pkg.has(r.target))
  if (existing) {
    const xml = await deck.pkg.text(existing.target)
    const body = slideContent(xml).units.find((u) => u.placeholder === 'body')?.body
    if (!body) {
      return {
        kind: 'refused',
        reason: 'no-notes-body',
        message: `The notes page of slide ${edit.slide} has no notes text box.`,
      }
    }
    const updated = rewriteTextBody(xml, body, edit.paragraphs)
    if (updated === undefined) return { kind: 'ok', bytes, changedParts: [] }
    return {
      kind: 'ok',
      bytes: await deck.pkg.rewrite(new Map([[existing.target, updated]])),
      changedParts: [existing.target],
    }
  }
  // Nothing typed for a slide without notes: no notes slide is made for it.
  if (edit.paragraphs.every((p) => p === '')) return { kind: 'ok', bytes, changedParts: [] }
  const master = deck.presentationRels.find((r) => r.type === 'notesMaster' && !r.external && deck.pkg.has(r.target))
  if (!master) {
    // A notes slide must name a notes master (ECMA-376 §13.3.5); making one means a theme too,
    // which is more than a notes edit should write.
    return {
      kind: 'refused',
      reason: 'no-notes-master',
      message: 'This presentation has no notes master: add the first speaker notes in PowerPoint or LibreOffice.',
    }
  }
  const part = freshNotesPart(deck.pkg.names)
  const notesRels = relsXml([
    `<Relationship Id="rId1" Type="${REL_NS}/notesMaster" Target="${relativeTarget(part, master.target)}"/>`,
    `<Relationship Id="rId2" Type="${REL_NS}/slide" Target="${relativeTarget(part, slide.part)}"/>`,
  ])
  const slideRelsPart = relsPartOf(slide.part)
  const slideRelsXml = (await deck.pkg.textOrNull(slideRelsPart)) ?? relsXml([])
  const relId = freshRelId(rels.map((r) => r.id))
  const contentTypes = await deck.pkg.text('[Content_Types].xml')
  const changes = new Map<string, string>([
    [part, newNotesXml(edit.paragraphs)],
    [relsPartOf(part), notesRels],
    [
      slideRelsPart,
      withRelationships(slide.part, slideRelsXml, new Set(), [
        `<Relationship Id="${relId}" Type="${REL_NS}/notesSlide" Target="${relativeTarget(slide.part, part)}"/>`,
      ]),
    ],
    ['[Content_Types].xml', withOverrides(contentTypes, new Set(), new Map([[`/${part}`, NOTES_CONTENT_TYPE]]))],
  ])
  return { kind: 'ok', bytes: await deck.pkg.rewrite(changes), changedParts: [...changes.keys()] }
}

function freshNotesPart(names: readonly string[]): string {
  let highest = 0
  for (const name of names)
    highest = Math.max(highest, Number(/^ppt\/notesSlides\/notesSlide(\d+)\.xml$/i.exec(name)?.[1] ?? 0))
  return `ppt/notesSlides/notesSlide${highest + 1}.xml`
}

function freshRelId(taken: readonly string[]): string {
  let n = taken.length + 1
  while (taken.includes(`rId${n}`)) n++
  return `rId${n}`
}

/** A notes slide as PowerPoint writes one: the slide image placeholder and the notes body. */
function newNotesXml(paragraphs: readonly string[]): string {
  const body = paragraphs
    .map(
      (paragraph) =>
        `<a:p>${paragraph
          .split(LINE_BREAK)
          .map((line, i) => (i > 0 ? '<a:br/>' : '') + (line === '' ? '' : `<a:r><a:t>${escapeText(line)}</a:t></a:r>`))
          .join('')}</a:p>`,
    )
    .join('')
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<p:notes xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${REL_NS}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">` +
    `<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
    `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:spPr/></p:sp>` +
    `<p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>${body}</p:txBody></p:sp>` +
    `</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:notes>`
  )
}
