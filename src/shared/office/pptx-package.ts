import { localName } from './opc'
import { DeckRefusal, qualified, type Deck } from './pptx-deck'
import { applySplices, attributesAt, escapeAttribute, findFirst, scanTags, type Splice, type XmlElement } from './xml'
import { relsPartOf, resolvePartTarget } from './zip'

/** Relationship parts read and written as text, for the slide-structure edits of a PPTX. */

export interface RawRel {
  readonly id: string
  readonly type: string
  readonly target: string
  readonly external: boolean
  readonly start: number
  readonly end: number
}

export function parseRels(ownerPart: string, xml: string): RawRel[] {
  const found: RawRel[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close' || localName(tag.name) !== 'Relationship') continue
    const attributes = attributesAt(xml, tag.start)
    const typeUri = attributes.get('Type') ?? ''
    const external = attributes.get('TargetMode') === 'External'
    const target = attributes.get('Target') ?? ''
    const element = tag.kind === 'empty' ? tag : { ...tag, end: xml.indexOf('>', xml.indexOf('</', tag.end)) + 1 }
    found.push({
      id: attributes.get('Id') ?? '',
      type: typeUri.slice(typeUri.lastIndexOf('/') + 1),
      target: external ? target : resolvePartTarget(ownerPart, target),
      external,
      start: tag.start,
      end: element.end,
    })
  }
  return found
}

export function withTarget(xml: string, rel: RawRel, target: string): string {
  const element = xml.slice(rel.start, rel.end)
  return element.replace(
    /(\sTarget\s*=\s*)("[^"]*"|'[^']*')/,
    (_, head: string) => `${head}"${escapeAttribute(target)}"`,
  )
}

/** The owner part of a `.rels` part (`''` for the package relationships), undefined for a stray one. */
export function ownerOfRels(relsPart: string): string | undefined {
  if (relsPart === '_rels/.rels') return ''
  const match = /^(.*?)(?:^|\/)_rels\/([^/]+)\.rels$/.exec(relsPart)
  if (!match) return undefined
  const folder = match[1] ?? ''
  return folder === '' ? (match[2] ?? '') : `${folder}/${match[2] ?? ''}`
}

export function folderOf(part: string): string {
  return part.includes('/') ? part.slice(0, part.lastIndexOf('/') + 1) : ''
}

/** The relationship target that reaches `to` from the part `from` (both package part names). */
export function relativeTarget(from: string, to: string): string {
  const fromDirs = folderOf(from).split('/').filter(Boolean)
  const toSegments = to.split('/')
  let common = 0
  while (common < fromDirs.length && common < toSegments.length - 1 && fromDirs[common] === toSegments[common]) common++
  return [...fromDirs.slice(common).map(() => '..'), ...toSegments.slice(common)].join('/')
}

export function relsXml(relationships: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships.join('')}</Relationships>`
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The presentation part with its slide list holding `entries` (`p:sldId` elements), in that order. */
export function withSlideList(xml: string, root: string, slideList: XmlElement | undefined, entries: string[]): string {
  const inner = entries.join('')
  if (slideList) {
    if (slideList.empty) {
      const name = slideList.name
      return applySplices(xml, [{ start: slideList.start, end: slideList.end, text: `<${name}>${inner}</${name}>` }])
    }
    return applySplices(xml, [{ start: slideList.innerStart, end: slideList.innerEnd, text: inner }])
  }
  // A deck that never had a slide: the list goes after the master lists (schema order).
  let at = -1
  for (const name of ['sldMasterIdLst', 'notesMasterIdLst', 'handoutMasterIdLst']) {
    const found = findFirst(xml, qualified(root, name))
    if (found) at = Math.max(at, found.end)
  }
  if (at < 0) throw new DeckRefusal('damaged', 'The presentation part has no slide master list.')
  const list = qualified(root, 'sldIdLst')
  return applySplices(xml, [{ start: at, end: at, text: `<${list}>${inner}</${list}>` }])
}

/** A relationships part without the relationships `removedIds` and with `added` at its end. */
export function withRelationships(
  ownerPart: string,
  xml: string,
  removedIds: ReadonlySet<string>,
  added: readonly string[],
): string {
  const splices: Splice[] = []
  for (const rel of parseRels(ownerPart, xml)) {
    if (removedIds.has(rel.id)) splices.push({ start: rel.start, end: rel.end, text: '' })
  }
  const close = xml.lastIndexOf('</')
  splices.push({ start: close, end: close, text: added.join('') })
  return applySplices(xml, splices)
}

/** `[Content_Types].xml` without the overrides of `removed` part names and with those of `added`. */
export function withOverrides(xml: string, removed: ReadonlySet<string>, added: ReadonlyMap<string, string>): string {
  const splices: Splice[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close' || localName(tag.name) !== 'Override') continue
    const name = attributesAt(xml, tag.start).get('PartName') ?? ''
    if (removed.has(name)) splices.push({ start: tag.start, end: tag.end, text: '' })
  }
  const entries = [...added]
    .filter(([name]) => !removed.has(name))
    .map(([name, type]) => `<Override PartName="${escapeAttribute(name)}" ContentType="${type}"/>`)
    .join('')
  const close = xml.lastIndexOf('</')
  splices.push({ start: close, end: close, text: entries })
  return applySplices(xml, splices)
}

/** The relationships of `part` in the deck as read (none when it has no relationships part). */
export async function relationshipsIn(deck: Deck, part: string): Promise<RawRel[]> {
  return parseRels(part, (await deck.pkg.textOrNull(relsPartOf(part))) ?? relsXml([]))
}

/** How a refusal names a removed part: "Slide 3" for a slide of the deck, else the part name. */
export function deletedName(deck: Deck, part: string): string {
  const slide = deck.slides.find((s) => s.part === part)
  return slide ? `Slide ${slide.index}` : part
}

/**
 * `docProps/app.xml` states the slide count Explorer and Finder show. PowerPoint and LibreOffice
 * do not check it on open (they rewrite it on save), so only `<Slides>` is kept true; the heading
 * and title lists there stay as the last saving application wrote them.
 */
export function withAppSlideCount(xml: string, count: number): string {
  const slides = findFirst(xml, 'Slides')
  if (!slides || slides.empty) return xml
  return applySplices(xml, [{ start: slides.innerStart, end: slides.innerEnd, text: String(count) }])
}
