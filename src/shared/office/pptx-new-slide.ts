import { LINE_BREAK } from './pptx'
import { paragraphsFromText } from './pptx-text'
import { attributesAt, escapeAttribute, escapeText, scanTags } from './xml'

/** The XML of slides `add_slide` and `duplicate_slide` make. */

const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

export interface LayoutPlaceholder {
  readonly type: string
  /** The `p:ph` attributes a slide placeholder repeats to inherit from this one. */
  readonly attributes: Map<string, string>
  readonly name: string
}

export function layoutPlaceholders(xml: string): LayoutPlaceholder[] {
  const found: LayoutPlaceholder[] = []
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close' || tag.name !== 'p:ph') continue
    const attributes = attributesAt(xml, tag.start)
    // The shape's name is on the `p:cNvPr` before the placeholder in the same `p:nvSpPr`.
    const before = xml.lastIndexOf('<p:cNvPr', tag.start)
    const name = before >= 0 ? (attributesAt(xml, before).get('name') ?? '') : ''
    found.push({ type: attributes.get('type') ?? 'obj', attributes, name })
  }
  return found
}

export function placeholderShape(id: number, placeholder: LayoutPlaceholder, text: string): string {
  const kept = ['type', 'orient', 'sz', 'idx']
    .filter((name) => placeholder.attributes.has(name))
    .map((name) => ` ${name}="${escapeAttribute(placeholder.attributes.get(name) ?? '')}"`)
    .join('')
  const paragraphs = paragraphsFromText(text)
    .map((paragraph) => {
      const runs = paragraph
        .split(LINE_BREAK)
        .map(
          (line, i) =>
            (i > 0 ? '<a:br><a:rPr dirty="0"/></a:br>' : '') +
            (line === '' ? '' : `<a:r><a:rPr dirty="0"/><a:t>${escapeText(line)}</a:t></a:r>`),
        )
        .join('')
      return `<a:p>${runs}<a:endParaRPr dirty="0"/></a:p>`
    })
    .join('')
  const name = placeholder.name !== '' ? placeholder.name : `Placeholder ${id - 1}`
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${escapeAttribute(name)}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph${kept}/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs}</p:txBody></p:sp>`
}

export function newSlideXml(shapes: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${REL_NS}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>${shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`
}

/** PowerPoint tells slides apart in co-authoring by `p14:creationId`: a copy gets its own. */
export function withNewCreationId(xml: string): string {
  return xml.replace(/(<p14:creationId\s+val=")(\d+)(")/, (_, head: string, _old: string, tail: string) => {
    const fresh = 1 + Math.floor(Math.random() * 4_294_967_294)
    return `${head}${fresh}${tail}`
  })
}
