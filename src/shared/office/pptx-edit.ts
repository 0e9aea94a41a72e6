import type { DocumentEdit, DocumentEditOutcome } from './document-edits'
import { localName } from './opc'
import { rewriteTextBody } from './pptx'
import { asRefusal, DeckRefusal, openDeck, qualified, slideContent, type Deck } from './pptx-deck'
import {
  layoutPlaceholders,
  newSlideXml,
  placeholderShape,
  withNewCreationId,
  type LayoutPlaceholder,
} from './pptx-new-slide'
import {
  escapeRegExp,
  withAppSlideCount,
  withOverrides,
  withRelationships,
  withSlideList,
  folderOf,
  ownerOfRels,
  parseRels,
  relativeTarget,
  relsXml,
  withTarget,
  relationshipsIn,
  deletedName,
} from './pptx-package'
import { withSectionsFollowing } from './pptx-sections'
import { paragraphsFromText } from './pptx-text'
import { applySplices, attributesAt, escapeAttribute, findFirst, prefixFor, scanTags, type Splice } from './xml'
import { relsPartOf } from './zip'

/**
 * Applies `office_edit`'s edits to a PPTX: all or nothing, untouched parts byte-identical (issue 26).
 *
 * Every slide number and anchor names the deck as it was read before the call (slide 3 stays
 * "slide 3" after an earlier edit of the call deleted slide 1); only `move_slide`'s `to` is a
 * position in the deck as the edits before it left it, because "ends up at" is about the result.
 * Slides added or duplicated by the call go after their anchor slide and after the slides earlier
 * edits of the call already placed there, so several adds after one slide keep their order.
 */
export async function editPptx(bytes: Uint8Array, edits: readonly DocumentEdit[]): Promise<DocumentEditOutcome> {
  let deck: Deck
  try {
    deck = await openDeck(bytes)
  } catch (error) {
    const refusal = asRefusal(error)
    return { kind: 'refused', reason: refusal.reason, message: refusal.message, edit_index: null }
  }
  const session = new DeckEdit(deck)
  let index = 0
  try {
    for (; index < edits.length; index++) {
      const edit = edits[index]
      if (edit) await session.apply(edit, index)
    }
    index = -1
    const result = await session.finish()
    if (result.kind === 'refused') return result
    return {
      kind: 'ok',
      bytes: result.changed ? await deck.pkg.rewrite(session.changes) : bytes,
      summary: result.summary,
    }
  } catch (error) {
    const refusal = error instanceof EditRefusal ? error : asRefusal(error)
    const at = error instanceof EditRefusal ? error.editIndex : index >= 0 ? index : null
    return { kind: 'refused', reason: refusal.reason, message: refusal.message, edit_index: at }
  }
}

class EditRefusal extends DeckRefusal {
  constructor(
    reason: DeckRefusal['reason'],
    message: string,
    readonly editIndex: number | null,
  ) {
    super(reason, message)
  }
}

const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const SLIDE_REL_TYPE = `${REL_NS}/slide`
const SLIDE_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml'
const NOTES_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml'
const CONTENT_TYPES = '[Content_Types].xml'
/** ECMA-376 §19.2.1.33: slide ids are in [256, 2147483648). */
const MIN_SLIDE_ID = 256
const MAX_SLIDE_ID = 2147483647

/**
 * Relationships a duplicated slide may share with its original: the layout, pictures, media and
 * links. A chart, embedded object, SmartArt diagram, comment list or tag part belongs to one slide
 * (PowerPoint copies it on duplicate, with its own embedded workbook and relationships); rather
 * than share it — a later edit of one slide's chart would change the other's — duplicate_slide
 * refuses such a slide with `unsupported-content`.
 */
const SHAREABLE = new Set(['slideLayout', 'image', 'hyperlink', 'media', 'audio', 'video', 'slide', 'notesMaster'])

interface OrderEntry {
  /** The slide's 1-based number in the deck as read; null for a slide this call made. */
  readonly origin: number | null
  readonly slideId: number
  readonly relId: string
  readonly part: string
  /** The original `p:sldId` element, kept verbatim; null for a new slide. */
  readonly entryXml: string | null
  /** For a new slide: the original slide number it was placed after (0: the start). */
  readonly placedAfter: number | null
}

type Finish = { kind: 'done'; changed: boolean; summary: string[] } | Extract<DocumentEditOutcome, { kind: 'refused' }>

class DeckEdit {
  readonly changes = new Map<string, string | Uint8Array | null>()
  private readonly order: OrderEntry[]
  private readonly deleted = new Map<number, number>()
  /** Original slide numbers `move_slide` placed. */
  private readonly moved = new Set<number>()
  /** Parts removed, with the index of the edit that removed them. */
  private readonly removedParts = new Map<string, number>()
  private readonly addedRels: string[] = []
  private readonly removedRelIds = new Set<string>()
  private readonly addedOverrides = new Map<string, string>()
  private readonly removedOverrides = new Set<string>()
  private readonly usedNames: Set<string>
  private readonly summary: Array<() => string> = []
  private nextSlideId: number
  private nextRelNumber: number
  private structural = false

  constructor(private readonly deck: Deck) {
    this.order = deck.slides.map((slide) => ({
      origin: slide.index,
      slideId: Number(slide.slideId),
      relId: slide.relId,
      part: slide.part,
      entryXml: slide.entryXml,
      placedAfter: null,
    }))
    this.usedNames = new Set(deck.pkg.names)
    this.nextSlideId =
      Math.max(MIN_SLIDE_ID - 1, ...this.order.map((e) => (Number.isFinite(e.slideId) ? e.slideId : 0))) + 1
    this.nextRelNumber = Math.max(0, ...deck.presentationRels.map((r) => Number(/^rId(\d+)$/.exec(r.id)?.[1] ?? 0))) + 1
  }

  async apply(edit: DocumentEdit, index: number): Promise<void> {
    switch (edit.op) {
      case 'replace_text':
        return this.replaceText(edit.anchor, edit.text, index)
      case 'add_slide':
        return this.addSlide(edit, index)
      case 'duplicate_slide':
        return this.duplicateSlide(edit.slide, index)
      case 'delete_slide':
        return this.deleteSlide(edit.slide, index)
      case 'move_slide':
        return this.moveSlide(edit.slide, edit.to, index)
      case 'insert_paragraph':
      case 'delete_paragraph':
      case 'set_cells':
        throw new EditRefusal(
          'wrong-format',
          `${edit.op} applies to ${edit.op === 'set_cells' ? 'spreadsheets (XLSX)' : 'Word documents (DOCX)'}; a presentation takes replace_text, add_slide, duplicate_slide, delete_slide and move_slide.`,
          index,
        )
      default: {
        const unknown: never = edit
        throw new EditRefusal('wrong-format', `Unknown edit ${JSON.stringify(unknown).slice(0, 100)}.`, index)
      }
    }
  }

  private original(slide: number, index: number) {
    const found = this.deck.slides[slide - 1]
    if (!found) {
      throw new EditRefusal(
        'no-such-slide',
        `There is no slide ${slide}: the presentation has ${this.deck.slides.length} slide${this.deck.slides.length === 1 ? '' : 's'}.`,
        index,
      )
    }
    const deletedBy = this.deleted.get(slide)
    if (deletedBy !== undefined) {
      throw new EditRefusal('no-such-slide', `Slide ${slide} is deleted by edit ${deletedBy + 1} of this call.`, index)
    }
    return found
  }

  private async currentText(part: string): Promise<string> {
    const changed = this.changes.get(part)
    if (typeof changed === 'string') return changed
    return this.deck.pkg.text(part)
  }

  private async replaceText(anchor: string, text: string, index: number): Promise<void> {
    const match = /^s(\d{1,5})\.sh(\d{1,10})(?:\.r(\d{1,5})\.c(\d{1,5}))?$/.exec(anchor.trim())
    if (!match) {
      throw new EditRefusal(
        'missing-anchor',
        `"${anchor}" is not a presentation anchor: use s3.sh5 (slide 3, shape 5) or s3.sh8.r1.c2 (a table cell), as read shows them.`,
        index,
      )
    }
    const slideNumber = Number(match[1])
    const slide = this.original(slideNumber, index)
    const xml = await this.currentText(slide.part)
    const units = slideContent(xml).units
    const local = anchor.trim().slice(anchor.trim().indexOf('.') + 1)
    const unit = units.find((u) => u.anchor === local)
    if (!unit) {
      const shapes = [...new Set(units.map((u) => `s${slideNumber}.${u.anchor}`))]
      throw new EditRefusal(
        'missing-anchor',
        `Slide ${slideNumber} has no text shape or table cell ${anchor}` +
          (shapes.length > 0
            ? ` (its text anchors: ${shapes.slice(0, 20).join(', ')}${shapes.length > 20 ? ', …' : ''}).`
            : ' (it has no text).'),
        index,
      )
    }
    if (unit.merged) {
      throw new EditRefusal(
        'merged-cell',
        `${anchor} is covered by a merged cell; edit the merge's first cell instead.`,
        index,
      )
    }
    if (!unit.body) {
      throw new EditRefusal('unsupported-content', `${anchor} is a table cell without a text body.`, index)
    }
    const paragraphs = paragraphsFromText(text)
    const updated = rewriteTextBody(xml, unit.body, paragraphs)
    if (updated === undefined) {
      this.summary.push(() => `${anchor}: text unchanged`)
      return
    }
    this.changes.set(slide.part, updated)
    this.summary.push(
      () => `${anchor}: text replaced (${paragraphs.length} paragraph${paragraphs.length === 1 ? '' : 's'})`,
    )
  }

  private insertionIndex(after: number): number {
    let at = after === 0 ? 0 : this.order.findIndex((e) => e.origin === after) + 1
    while (at < this.order.length && this.order[at]?.placedAfter === after) at++
    return at
  }

  private freshPart(folder: string, stem: string): string {
    let highest = 0
    const pattern = new RegExp(`^${escapeRegExp(folder)}${stem}(\\d+)\\.xml$`, 'i')
    for (const name of this.usedNames) highest = Math.max(highest, Number(pattern.exec(name)?.[1] ?? 0))
    const name = `${folder}${stem}${highest + 1}.xml`
    this.usedNames.add(name)
    return name
  }

  private freshSlideId(): number {
    if (this.nextSlideId <= MAX_SLIDE_ID) return this.nextSlideId++
    // The highest id is taken: the lowest free one is as valid.
    const taken = new Set(this.order.map((e) => e.slideId))
    for (let id = MIN_SLIDE_ID; id <= MAX_SLIDE_ID; id++) if (!taken.has(id)) return id
    throw new DeckRefusal('unsupported-content', 'The presentation has no free slide id.')
  }

  /** Registers a new slide part in the presentation and places it. */
  private place(part: string, xml: string, rels: string, after: number): OrderEntry {
    const relId = `rId${this.nextRelNumber++}`
    const target = relativeTarget(this.deck.presentationPart, part)
    this.addedRels.push(`<Relationship Id="${relId}" Type="${SLIDE_REL_TYPE}" Target="${escapeAttribute(target)}"/>`)
    this.addedOverrides.set(`/${part}`, SLIDE_CONTENT_TYPE)
    this.changes.set(part, xml)
    this.changes.set(relsPartOf(part), rels)
    this.usedNames.add(relsPartOf(part))
    const entry: OrderEntry = {
      origin: null,
      slideId: this.freshSlideId(),
      relId,
      part,
      entryXml: null,
      placedAfter: after,
    }
    this.order.splice(this.insertionIndex(after), 0, entry)
    this.structural = true
    return entry
  }

  private finalPosition(entry: OrderEntry): number {
    return this.order.indexOf(entry) + 1
  }

  private async addSlide(edit: Extract<DocumentEdit, { op: 'add_slide' }>, index: number): Promise<void> {
    if (edit.after > this.deck.slides.length) {
      throw new EditRefusal(
        'no-such-slide',
        `add_slide after ${edit.after}: the presentation has ${this.deck.slides.length} slides (0 puts the new slide first).`,
        index,
      )
    }
    if (edit.after > 0) this.original(edit.after, index)
    const source = edit.layout_of ?? (edit.after > 0 ? edit.after : 1)
    let layoutPart: string
    if (this.deck.slides.length === 0) {
      layoutPart = await this.firstLayout(index)
    } else {
      const model = this.deck.slides[source - 1]
      if (!model) {
        throw new EditRefusal('no-such-slide', `layout_of ${source}: there is no slide ${source}.`, index)
      }
      const rels = await relationshipsIn(this.deck, model.part)
      const layout = rels.find((r) => r.type === 'slideLayout')
      if (!layout || !this.deck.pkg.has(layout.target)) {
        throw new EditRefusal('damaged', `Slide ${source} has no slide layout to copy.`, index)
      }
      layoutPart = layout.target
    }
    const layoutXml = await this.deck.pkg.text(layoutPart)
    const layoutSlide = findFirst(layoutXml, 'p:cSld')
    const layoutName = layoutSlide ? (attributesAt(layoutXml, layoutSlide.start).get('name') ?? '') : ''
    const placeholders = layoutPlaceholders(layoutXml)
    const title = placeholders.find((p) => p.type === 'title' || p.type === 'ctrTitle')
    const body = placeholders.find((p) => ['body', 'subTitle', 'obj'].includes(p.type))
    for (const [wanted, found, what] of [
      [edit.title, title, 'title'],
      [edit.body, body, 'body'],
    ] as const) {
      if (wanted !== undefined && wanted !== '' && !found) {
        throw new EditRefusal(
          'unsupported-content',
          `The layout "${layoutName}" has no ${what} placeholder; pick another slide's layout with layout_of.`,
          index,
        )
      }
    }
    const shapes = [title, body]
      .filter((p): p is LayoutPlaceholder => p !== undefined)
      .map((p, i) => placeholderShape(i + 2, p, p === title ? (edit.title ?? '') : (edit.body ?? '')))
    const first = this.deck.slides[0]
    const part = this.freshPart(
      first ? folderOf(first.part) : `${folderOf(this.deck.presentationPart)}slides/`,
      'slide',
    )
    const rels = relsXml([
      `<Relationship Id="rId1" Type="${REL_NS}/slideLayout" Target="${escapeAttribute(relativeTarget(part, layoutPart))}"/>`,
    ])
    const entry = this.place(part, newSlideXml(shapes.join('')), rels, edit.after)
    this.summary.push(() => `added slide ${this.finalPosition(entry)} (layout "${layoutName}")`)
  }

  private async firstLayout(index: number): Promise<string> {
    const master = this.deck.presentationRels.find((r) => r.type === 'slideMaster' && !r.external)
    const layout = master
      ? (await relationshipsIn(this.deck, master.target)).find((r) => r.type === 'slideLayout')
      : undefined
    if (!layout || !this.deck.pkg.has(layout.target)) {
      throw new EditRefusal('damaged', 'The presentation has no slide layout to base a new slide on.', index)
    }
    return layout.target
  }

  private async duplicateSlide(slideNumber: number, index: number): Promise<void> {
    const slide = this.original(slideNumber, index)
    const relsPart = relsPartOf(slide.part)
    const relsSource = (await this.deck.pkg.textOrNull(relsPart)) ?? relsXml([])
    const rels = parseRels(slide.part, relsSource)
    const part = this.freshPart(folderOf(slide.part), 'slide')
    const splices: Splice[] = []
    for (const rel of rels) {
      if (rel.external || SHAREABLE.has(rel.type)) continue
      if (rel.type === 'notesSlide' && this.deck.pkg.has(rel.target)) {
        const notesPart = await this.copyNotes(rel.target, part)
        splices.push({
          start: rel.start,
          end: rel.end,
          text: withTarget(relsSource, rel, relativeTarget(part, notesPart)),
        })
        continue
      }
      throw new EditRefusal(
        'unsupported-content',
        `Slide ${slideNumber} holds a ${rel.type} part (${rel.target}) that belongs to it alone; duplicate_slide copies slides whose parts are pictures, media, links and notes only.`,
        index,
      )
    }
    const xml = withNewCreationId(await this.currentText(slide.part))
    const entry = this.place(part, xml, applySplices(relsSource, splices), slideNumber)
    this.summary.push(() => `slide ${slideNumber} duplicated: the copy is slide ${this.finalPosition(entry)}`)
  }

  /** A copy of a notes slide for the copy `slidePart`; notes relationships are shared otherwise. */
  private async copyNotes(notesPart: string, slidePart: string): Promise<string> {
    const copy = this.freshPart(folderOf(notesPart), 'notesSlide')
    const relsSource = (await this.deck.pkg.textOrNull(relsPartOf(notesPart))) ?? relsXml([])
    const splices: Splice[] = []
    for (const rel of parseRels(notesPart, relsSource)) {
      if (rel.type === 'slide' && !rel.external) {
        splices.push({
          start: rel.start,
          end: rel.end,
          text: withTarget(relsSource, rel, relativeTarget(copy, slidePart)),
        })
      }
    }
    this.changes.set(copy, await this.deck.pkg.bytes(notesPart))
    this.changes.set(relsPartOf(copy), applySplices(relsSource, splices))
    this.usedNames.add(relsPartOf(copy))
    this.addedOverrides.set(`/${copy}`, NOTES_CONTENT_TYPE)
    return copy
  }

  private async deleteSlide(slideNumber: number, index: number): Promise<void> {
    const slide = this.original(slideNumber, index)
    this.deleted.set(slideNumber, index)
    const at = this.order.findIndex((e) => e.origin === slideNumber)
    if (at >= 0) this.order.splice(at, 1)
    this.removedRelIds.add(slide.relId)
    this.removedParts.set(slide.part, index)
    this.structural = true
    this.summary.push(() => `slide ${slideNumber} deleted`)
  }

  private async moveSlide(slideNumber: number, to: number, index: number): Promise<void> {
    this.original(slideNumber, index)
    if (to > this.order.length) {
      throw new EditRefusal(
        'no-such-slide',
        `move_slide to ${to}: the presentation has ${this.order.length} slides at that point of the call.`,
        index,
      )
    }
    const at = this.order.findIndex((e) => e.origin === slideNumber)
    const [entry] = this.order.splice(at, 1)
    if (!entry) return
    this.order.splice(to - 1, 0, entry)
    this.moved.add(slideNumber)
    this.structural = true
    this.summary.push(() => `slide ${slideNumber} moved to position ${this.finalPosition(entry)}`)
  }

  async finish(): Promise<Finish> {
    if (this.structural) {
      const refused = await this.finishStructure()
      if (refused) return refused
    }
    return { kind: 'done', changed: this.changes.size > 0, summary: this.summary.map((line) => line()) }
  }

  /** Writes the slide list, relationships and content types, and removes what deleted slides left unreachable. */
  private async finishStructure(): Promise<Finish | undefined> {
    const { deck } = this
    const pkg = deck.pkg
    const originalOrder = deck.slides.map((s) => s.relId).join(' ')
    const finalOrder = this.order.map((e) => e.relId).join(' ')
    if (originalOrder !== finalOrder)
      this.setIfChanged(deck.presentationPart, deck.presentationXml, this.presentationWithOrder())

    // Parts that only the deleted slides reached (their notes, comments, charts…) go with them;
    // parts still reachable from the package root (shared pictures, layouts) stay.
    const deletedSlides = new Set(this.removedParts.keys())
    const candidates = new Map<string, number>()
    const queue = [...this.removedParts]
    while (queue.length > 0) {
      const [part, editIndex] = queue.shift() as [string, number]
      if (candidates.has(part)) continue
      candidates.set(part, editIndex)
      for (const rel of parseRels(part, (await pkg.textOrNull(relsPartOf(part))) ?? relsXml([]))) {
        if (!rel.external && pkg.has(rel.target) && !candidates.has(rel.target)) queue.push([rel.target, editIndex])
      }
    }
    const presentationRelsPart = relsPartOf(deck.presentationPart)
    this.setIfChanged(presentationRelsPart, await pkg.text(presentationRelsPart), await this.presentationRels())
    const reachable = await this.reachableParts(deletedSlides)
    for (const [part, editIndex] of candidates) {
      if (reachable.has(part)) continue
      this.removedParts.set(part, editIndex)
      this.changes.set(part, null)
      if (pkg.has(relsPartOf(part))) this.changes.set(relsPartOf(part), null)
      this.removedOverrides.add(`/${part}`)
    }

    // Never leave a relationship pointing at a removed part (a link to the slide from another slide).
    for (const [owner, relsXmlText] of await this.finalRelsParts()) {
      for (const rel of parseRels(owner, relsXmlText)) {
        const editIndex = rel.external ? undefined : this.removedParts.get(rel.target)
        if (editIndex === undefined) continue
        const ownerSlide = this.order.find((e) => e.part === owner)
        const who = ownerSlide ? (ownerSlide.origin ? `slide ${ownerSlide.origin}` : 'a new slide') : owner
        return {
          kind: 'refused',
          reason: 'unsupported-content',
          message: `${deletedName(this.deck, rel.target)} cannot be deleted: ${who} links to it (${rel.type} relationship). Remove that link first.`,
          edit_index: editIndex,
        }
      }
    }
    const stillUsed = this.customShowUse()
    if (stillUsed) return stillUsed

    const types = await pkg.text(CONTENT_TYPES)
    this.setIfChanged(CONTENT_TYPES, types, this.contentTypes(types))
    await this.updateAppSlideCount()
    return undefined
  }

  private presentationWithOrder(): string {
    const { presentationXml: xml, slideList } = this.deck
    const root = [...scanTags(xml)].find((t) => t.kind !== 'close')?.name ?? 'p:presentation'
    const r = prefixFor(xml, [REL_NS]) ?? 'r:'
    const entries = this.order.map(
      (e) => e.entryXml ?? `<${qualified(root, 'sldId')} id="${e.slideId}" ${r}id="${e.relId}"/>`,
    )
    const sections = this.order.map((e) => ({
      slideId: e.slideId,
      placed: e.origin === null || this.moved.has(e.origin),
    }))
    return withSectionsFollowing(withSlideList(xml, root, slideList, entries), sections)
  }

  private async presentationRels(): Promise<string> {
    const part = relsPartOf(this.deck.presentationPart)
    const xml = await this.deck.pkg.text(part)
    return withRelationships(this.deck.presentationPart, xml, this.removedRelIds, this.addedRels)
  }

  private contentTypes(xml: string): string {
    return withOverrides(xml, this.removedOverrides, this.addedOverrides)
  }

  /** Every part's relationships as they will be saved, for parts that are not removed. */
  private async finalRelsParts(): Promise<Map<string, string>> {
    const result = new Map<string, string>()
    const names = new Set([...this.deck.pkg.names, ...this.changes.keys()])
    for (const name of names) {
      if (!name.endsWith('.rels')) continue
      const owner = ownerOfRels(name)
      if (owner === undefined || this.changes.get(name) === null) continue
      if (owner !== '' && (this.changes.get(owner) === null || this.removedParts.has(owner))) continue
      const changed = this.changes.get(name)
      result.set(owner, typeof changed === 'string' ? changed : await this.deck.pkg.text(name))
    }
    return result
  }

  /** Parts reachable from the package root through the relationships as saved, never through a deleted slide. */
  private async reachableParts(deletedSlides: ReadonlySet<string>): Promise<Set<string>> {
    const rels = await this.finalRelsParts()
    const seen = new Set<string>()
    const queue = ['']
    while (queue.length > 0) {
      const owner = queue.pop() as string
      const xml = rels.get(owner)
      if (xml === undefined) continue
      for (const rel of parseRels(owner, xml)) {
        if (rel.external || seen.has(rel.target) || deletedSlides.has(rel.target)) continue
        seen.add(rel.target)
        queue.push(rel.target)
      }
    }
    return seen
  }

  private setIfChanged(part: string, before: string, after: string): void {
    if (after !== before) this.changes.set(part, after)
  }

  /** A deleted slide still listed in a custom show would leave `p:custShow` pointing at nothing. */
  private customShowUse(): Finish | undefined {
    const xml = this.deck.presentationXml
    const shows = findFirst(xml, qualified([...scanTags(xml)][0]?.name ?? 'p:presentation', 'custShowLst'))
    if (!shows) return undefined
    for (const tag of scanTags(xml, shows.innerStart, shows.innerEnd)) {
      if (tag.kind === 'close') continue
      const rid = [...attributesAt(xml, tag.start)].find(
        ([name]) => name.includes(':') && localName(name) === 'id',
      )?.[1]
      if (rid === undefined || !this.removedRelIds.has(rid)) continue
      const slide = this.deck.slides.find((s) => s.relId === rid)
      return {
        kind: 'refused',
        reason: 'unsupported-content',
        message: `Slide ${slide?.index ?? '?'} cannot be deleted: a custom slide show lists it.`,
        edit_index: slide ? (this.deleted.get(slide.index) ?? null) : null,
      }
    }
    return undefined
  }

  private async updateAppSlideCount(): Promise<void> {
    const part = 'docProps/app.xml'
    const xml = await this.deck.pkg.textOrNull(part)
    if (xml !== null) this.setIfChanged(part, xml, withAppSlideCount(xml, this.order.length))
  }
}
