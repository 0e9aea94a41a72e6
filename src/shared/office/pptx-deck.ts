import type { DocumentEditRefusalReason } from './document-edits'
import { localName, mainPart, relationshipsOf, type Relationship } from './opc'
import { LINE_BREAK, textBodyParagraphs } from './pptx'
import { attributesAt, children, elementAt, findAll, findFirst, scanTags, XmlError, type XmlElement } from './xml'
import { openPackage, PackageError, type OfficePackage } from './zip'

/**
 * A presentation as the document tools see it (issue 26): slides in `p:sldIdLst` order with their
 * stable `p:sldId/@id`, and every text unit of a slide under the anchor `read` shows and
 * `office_edit` takes — `sh5` for a shape (its `p:cNvPr/@id`), `sh8.r1.c2` for a table cell.
 */

/** Larger inputs are refused before unzipping: no real deck the agent edits comes near it. */
export const PPTX_MAX_INPUT_BYTES = 512 * 1024 * 1024

export interface DeckSlide {
  /** 1-based, in presentation order. */
  readonly index: number
  /** `p:sldId/@id`: stable across reorders, new for a duplicated or added slide. */
  readonly slideId: string
  readonly relId: string
  readonly part: string
  /** The start tag of the `p:sldId` element as written, kept verbatim on a reorder. */
  readonly entryXml: string
}

export interface Deck {
  readonly pkg: OfficePackage
  readonly presentationPart: string
  readonly presentationXml: string
  readonly presentationRels: Relationship[]
  readonly slides: DeckSlide[]
  /** The `p:sldIdLst` element, absent in a deck that never had a slide. */
  readonly slideList: XmlElement | undefined
}

/** A text body of a slide: a shape's `p:txBody` or a table cell's `a:txBody`. */
export interface TextUnit {
  /** `sh5` or `sh8.r1.c2`. */
  readonly anchor: string
  readonly shapeId: string
  readonly name: string
  readonly kind: 'shape' | 'cell'
  /** Placeholder type (`title`, `ctrTitle`, `body`, `subTitle`, `obj`, …), null for a free shape. */
  readonly placeholder: string | null
  /** The text body element; undefined for a merged-away table cell. */
  readonly body: XmlElement | undefined
  /** True for a cell covered by a merge (`hMerge`/`vMerge`): its text is not shown. */
  readonly merged: boolean
  /** Paragraph texts, soft breaks as U+000B. */
  readonly paragraphs: string[]
}

export interface SlideContent {
  readonly hidden: boolean
  readonly units: TextUnit[]
  /** Pictures, charts and other frames without editable text: `sh1026`, name and what it is. */
  readonly objects: Array<{ anchor: string; name: string; what: string }>
}

export class DeckRefusal extends Error {
  constructor(
    readonly reason: DocumentEditRefusalReason,
    message: string,
  ) {
    super(message)
  }
}

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

/** Opens a deck or throws `DeckRefusal` with the reason the tools report. */
export async function openDeck(bytes: Uint8Array): Promise<Deck> {
  if (bytes.length > PPTX_MAX_INPUT_BYTES) {
    throw new DeckRefusal(
      'too-large',
      `The presentation is ${Math.round(bytes.length / 1024 / 1024)} MiB; documents over ${PPTX_MAX_INPUT_BYTES / 1024 / 1024} MiB are not opened.`,
    )
  }
  // A password-protected OOXML file is an OLE compound file holding the encrypted package.
  if (OLE_SIGNATURE.every((byte, i) => bytes[i] === byte)) {
    throw new DeckRefusal(
      'encrypted',
      'The file is password-protected (an encrypted package) or a legacy binary .ppt; it cannot be read or edited as PPTX.',
    )
  }
  return guard(async () => {
    const pkg = await openPackage(bytes)
    const presentationPart = await mainPart(pkg)
    if (presentationPart === undefined || !pkg.has(presentationPart)) {
      throw new DeckRefusal('damaged', 'The package has no main document part.')
    }
    const presentationXml = await pkg.text(presentationPart)
    const root = firstElementName(presentationXml)
    if (root === undefined || localName(root) !== 'presentation') {
      throw new DeckRefusal(
        'wrong-format',
        `The file is not a PowerPoint presentation (its main part is ${presentationPart}).`,
      )
    }
    const presentationRels = await relationshipsOf(pkg, presentationPart)
    const slideList = findFirst(presentationXml, qualified(root, 'sldIdLst'))
    const slides: DeckSlide[] = []
    if (slideList) {
      for (const entry of children(presentationXml, slideList)) {
        if (localName(entry.name) !== 'sldId') continue
        const attributes = attributesAt(presentationXml, entry.start)
        const relId = [...attributes].find(([name]) => name.includes(':') && localName(name) === 'id')?.[1] ?? ''
        const rel = presentationRels.find((r) => r.id === relId && r.type === 'slide' && !r.external)
        if (!rel || !pkg.has(rel.target)) {
          throw new DeckRefusal('damaged', `Slide ${slides.length + 1} points at a slide part that does not exist.`)
        }
        slides.push({
          index: slides.length + 1,
          slideId: attributes.get('id') ?? '',
          relId,
          part: rel.target,
          entryXml: presentationXml.slice(entry.start, entry.end),
        })
      }
    }
    return { pkg, presentationPart, presentationXml, presentationRels, slides, slideList }
  })
}

/** Runs a read of the package, turning package and XML failures into refusals. */
export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw asRefusal(error)
  }
}

export function asRefusal(error: unknown): DeckRefusal {
  if (error instanceof DeckRefusal) return error
  if (error instanceof PackageError) {
    switch (error.reason) {
      case 'encrypted':
        return new DeckRefusal('encrypted', error.message)
      case 'too-large':
        return new DeckRefusal('too-large', error.message)
      case 'unsupported':
        return new DeckRefusal('unsupported-content', error.message)
      case 'corrupt':
      case 'missing-part':
        return new DeckRefusal('damaged', error.message)
    }
  }
  if (error instanceof XmlError)
    return new DeckRefusal('damaged', `A part of the presentation is not well-formed XML (${error.message}).`)
  throw error
}

function firstElementName(xml: string): string | undefined {
  for (const tag of scanTags(xml)) if (tag.kind !== 'close') return tag.name
  return undefined
}

/** `name` with the prefix the element `like` uses (`p:sldIdLst` next to `p:presentation`). */
export function qualified(like: string, name: string): string {
  const colon = like.indexOf(':')
  return colon === -1 ? name : `${like.slice(0, colon + 1)}${name}`
}

/** The text units, pictures and frames of one slide (or notes) part, in document order. */
export function slideContent(xml: string): SlideContent {
  const root = findFirst(xml, 'p:sld')
  const hidden = root !== undefined && attributesAt(xml, root.start).get('show') === '0'
  const units: TextUnit[] = []
  const objects: SlideContent['objects'] = []
  // Markup compatibility: a reader shows `mc:Choice` or `mc:Fallback`, never both, and both carry
  // the same shape ids; the fallback copy is left out so one anchor names one shape.
  const fallbacks = findAll(xml, 'mc:Fallback')
  for (const tag of scanTags(xml)) {
    if (tag.kind !== 'open') continue
    if (fallbacks.some((f) => tag.start > f.start && tag.start < f.end)) continue
    if (tag.name === 'p:sp') {
      const element = elementAt(xml, tag)
      const props = findFirst(xml, 'p:cNvPr', element.innerStart, element.innerEnd)
      const body = findFirst(xml, 'p:txBody', element.innerStart, element.innerEnd)
      if (!props || !body) continue
      const attributes = attributesAt(xml, props.start)
      const id = attributes.get('id') ?? ''
      units.push({
        anchor: `sh${id}`,
        shapeId: id,
        name: attributes.get('name') ?? '',
        kind: 'shape',
        placeholder: placeholderOf(xml, element),
        body,
        merged: false,
        paragraphs: textBodyParagraphs(xml, body),
      })
    } else if (tag.name === 'p:graphicFrame' || tag.name === 'p:pic') {
      const element = elementAt(xml, tag)
      const props = findFirst(xml, 'p:cNvPr', element.innerStart, element.innerEnd)
      if (!props) continue
      const attributes = attributesAt(xml, props.start)
      const id = attributes.get('id') ?? ''
      const name = attributes.get('name') ?? ''
      const table =
        tag.name === 'p:graphicFrame' ? findFirst(xml, 'a:tbl', element.innerStart, element.innerEnd) : undefined
      if (table) {
        units.push(...tableCells(xml, table, id, name))
        continue
      }
      objects.push({ anchor: `sh${id}`, name, what: tag.name === 'p:pic' ? 'picture' : frameKind(xml, element) })
    }
  }
  return { hidden, units, objects }
}

function placeholderOf(xml: string, shape: XmlElement): string | null {
  const nv = findFirst(xml, 'p:nvSpPr', shape.innerStart, shape.innerEnd)
  if (!nv) return null
  const ph = findFirst(xml, 'p:ph', nv.innerStart, nv.innerEnd)
  if (!ph) return null
  // ECMA-376 §19.7.10: a placeholder without a type is an object (content) placeholder.
  return attributesAt(xml, ph.start).get('type') ?? 'obj'
}

function frameKind(xml: string, frame: XmlElement): string {
  const data = findFirst(xml, 'a:graphicData', frame.innerStart, frame.innerEnd)
  const uri = data ? (attributesAt(xml, data.start).get('uri') ?? '') : ''
  if (uri.endsWith('/chart')) return 'chart'
  if (uri.endsWith('/diagram')) return 'SmartArt diagram'
  if (uri.endsWith('/ole')) return 'embedded object'
  return 'graphic frame'
}

function tableCells(xml: string, table: XmlElement, shapeId: string, name: string): TextUnit[] {
  const cells: TextUnit[] = []
  let row = 0
  for (const tr of children(xml, table)) {
    if (tr.name !== 'a:tr') continue
    row++
    let column = 0
    for (const tc of children(xml, tr)) {
      if (tc.name !== 'a:tc') continue
      column++
      const attributes = attributesAt(xml, tc.start)
      const merged = attributes.get('hMerge') === '1' || attributes.get('vMerge') === '1'
      const body = tc.empty ? undefined : findFirst(xml, 'a:txBody', tc.innerStart, tc.innerEnd)
      cells.push({
        anchor: `sh${shapeId}.r${row}.c${column}`,
        shapeId,
        name,
        kind: 'cell',
        placeholder: null,
        body,
        merged,
        paragraphs: body && !merged ? textBodyParagraphs(xml, body) : [],
      })
    }
  }
  return cells
}

export function isTitlePlaceholder(placeholder: string | null): boolean {
  return placeholder === 'title' || placeholder === 'ctrTitle'
}

/** The slide's title: its title placeholder's text, paragraphs joined by spaces. */
export function titleOf(content: SlideContent): string {
  const title = content.units.find((u) => isTitlePlaceholder(u.placeholder))
  return title
    ? title.paragraphs
        .map((p) => p.split(LINE_BREAK).join(' '))
        .join(' ')
        .trim()
    : ''
}

/** The layout name of a slide (`p:cSld/@name` of its layout part), or null. */
export async function layoutOf(pkg: OfficePackage, slidePart: string): Promise<{ part: string; name: string } | null> {
  const rel = (await relationshipsOf(pkg, slidePart)).find((r) => r.type === 'slideLayout' && !r.external)
  if (!rel || !pkg.has(rel.target)) return null
  const xml = await pkg.text(rel.target)
  const cSld = findFirst(xml, 'p:cSld')
  return { part: rel.target, name: cSld ? (attributesAt(xml, cSld.start).get('name') ?? '') : '' }
}

/** The speaker notes of a slide (its notes slide's body placeholders), or [] when it has none. */
export async function notesOf(pkg: OfficePackage, slidePart: string): Promise<string[]> {
  const rel = (await relationshipsOf(pkg, slidePart)).find((r) => r.type === 'notesSlide' && !r.external)
  if (!rel || !pkg.has(rel.target)) return []
  const content = slideContent(await pkg.text(rel.target))
  return content.units.filter((u) => u.placeholder === 'body').flatMap((u) => u.paragraphs)
}
