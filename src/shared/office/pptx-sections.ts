import { localName } from './opc'
import { qualified } from './pptx-deck'
import { applySplices, attributesAt, children, elementAt, scanTags, type Splice, type XmlElement } from './xml'

/**
 * PowerPoint 2010 sections (`p14:sectionLst` in the presentation's extension list) list every
 * slide id, each section a contiguous run of the slide order; PowerPoint repairs a file whose
 * sections name a slide that is gone or miss one that exists. After a structural edit the
 * sections are rewritten from the final order: a slide that stayed in place keeps its section, a
 * new or moved slide joins the section of the slide just before it (the first section at the
 * start), as it does when a slide is dropped there in PowerPoint.
 */

export interface SectionSlide {
  readonly slideId: number
  /** True for a slide the call added or moved: it takes its neighbour's section. */
  readonly placed: boolean
}

export function withSectionsFollowing(xml: string, order: readonly SectionSlide[]): string {
  const sections = sectionLists(xml)
  if (sections.length === 0) return xml
  const sectionOf = new Map<number, number>()
  sections.forEach((section, i) => {
    for (const id of section.ids) sectionOf.set(id, i)
  })
  const members: number[][] = sections.map(() => [])
  let current = 0
  for (const slide of order) {
    const own = slide.placed ? undefined : sectionOf.get(slide.slideId)
    // A kept slide never goes back to an earlier section: sections stay contiguous runs.
    if (own !== undefined && own >= current) current = own
    members[current]?.push(slide.slideId)
  }
  const splices: Splice[] = sections.map((section, i) => {
    const name = section.list.name
    const entries = (members[i] ?? []).map((id) => `<${qualified(name, 'sldId')} id="${id}"/>`).join('')
    return section.list.empty
      ? { start: section.list.start, end: section.list.end, text: `<${name}>${entries}</${name}>` }
      : { start: section.list.innerStart, end: section.list.innerEnd, text: entries }
  })
  return applySplices(xml, splices)
}

interface SectionList {
  /** The section's `sldIdLst` element. */
  readonly list: XmlElement
  readonly ids: number[]
}

function sectionLists(xml: string): SectionList[] {
  const found: SectionList[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind !== 'open' || localName(tag.name) !== 'section') continue
    const section = elementAt(xml, tag)
    const list = children(xml, section).find((child) => localName(child.name) === 'sldIdLst')
    if (!list) continue
    const ids = list.empty
      ? []
      : children(xml, list)
          .filter((child) => localName(child.name) === 'sldId')
          .map((child) => Number(attributesAt(xml, child.start).get('id')))
    found.push({ list, ids })
  }
  return found
}
