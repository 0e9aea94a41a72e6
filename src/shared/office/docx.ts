import { mainPart, relationshipsOf } from './opc'
import { attributesAt, elementAt, findFirst, scanTags, type XmlTag } from './xml'
import { openPackage, PackageError, type OfficePackage } from './zip'

/**
 * What the built-in DOCX editor would lose. `@eigenpal/docx-editor-react` drops charts, SmartArt,
 * text boxes and content controls on save and flattens tracked changes and comments
 * (verified-facts "Office"); a document holding any of them opens read-only with this list as
 * the reason, so it is never edited lossily.
 */

export type DocxFeature =
  | 'chart'
  | 'smartart'
  | 'text-box'
  | 'table-of-contents'
  | 'content-control'
  | 'tracked-change'
  | 'comment'
  | 'embedded-object'

export interface DocxLoss {
  readonly feature: DocxFeature
  readonly count: number
  /** Parts where it was found. */
  readonly parts: string[]
}

export interface DocxScan {
  readonly losses: DocxLoss[]
  /** The parts that hold text the editor shows (document, headers, footers, notes). */
  readonly storyParts: string[]
}

const TRACKED = new Set([
  'w:ins',
  'w:del',
  'w:moveFrom',
  'w:moveTo',
  'w:rPrChange',
  'w:pPrChange',
  'w:sectPrChange',
  'w:tblPrChange',
  'w:trPrChange',
  'w:tcPrChange',
  'w:numberingChange',
  'w:cellIns',
  'w:cellDel',
])

const STORY_TYPES = new Set(['header', 'footer', 'footnotes', 'endnotes', 'comments'])

export async function scanDocx(bytes: Uint8Array): Promise<DocxScan> {
  return scanDocxPackage(await openPackage(bytes))
}

/** The same scan of a package already open (the engine's inspection reads it under its own limits). */
export async function scanDocxPackage(pkg: OfficePackage): Promise<DocxScan> {
  const document = await mainPart(pkg)
  if (document === undefined || !pkg.has(document))
    throw new PackageError('missing-part', 'The package has no document part.')
  const rels = await relationshipsOf(pkg, document)
  const storyParts = [
    document,
    ...rels.filter((r) => STORY_TYPES.has(r.type) && !r.external).map((r) => r.target),
  ].filter((part, i, all) => pkg.has(part) && all.indexOf(part) === i)

  const counts = new Map<DocxFeature, { count: number; parts: Set<string> }>()
  const add = (feature: DocxFeature, part: string, count = 1) => {
    const entry = counts.get(feature) ?? { count: 0, parts: new Set<string>() }
    entry.count += count
    entry.parts.add(part)
    counts.set(feature, entry)
  }

  for (const part of storyParts) {
    const xml = await pkg.text(part)
    const isComments = rels.some((r) => r.target === part && r.type === 'comments')
    for (const tag of scanTags(xml)) {
      if (tag.kind === 'close') continue
      if (tag.name === 'w:txbxContent') add('text-box', part)
      else if (tag.name === 'w:sdt') add(isTableOfContents(xml, tag) ? 'table-of-contents' : 'content-control', part)
      else if (TRACKED.has(tag.name)) add('tracked-change', part)
      else if (tag.name === 'c:chart') add('chart', part)
      else if (tag.name === 'dgm:relIds') add('smartart', part)
      else if (tag.name === 'w:commentReference' || (isComments && tag.name === 'w:comment')) add('comment', part)
      else if (tag.name === 'w:object' || tag.name === 'o:OLEObject') add('embedded-object', part)
    }
  }
  // Charts and diagrams are parts of their own, reachable from any story part.
  for (const part of storyParts) {
    for (const rel of await relationshipsOf(pkg, part)) {
      if (rel.external) continue
      if (rel.type === 'chart' && !counts.has('chart')) add('chart', rel.target)
      if ((rel.type === 'diagramData' || rel.type === 'diagramLayout') && !counts.has('smartart'))
        add('smartart', rel.target)
    }
  }
  const order: DocxFeature[] = [
    'chart',
    'smartart',
    'text-box',
    'table-of-contents',
    'content-control',
    'tracked-change',
    'comment',
    'embedded-object',
  ]
  return {
    storyParts,
    losses: order.flatMap((feature) => {
      const entry = counts.get(feature)
      return entry ? [{ feature, count: entry.count, parts: [...entry.parts] }] : []
    }),
  }
}

/**
 * A table of contents that Word (or LibreOffice) wraps in a content control: `w:sdtPr` holding
 * `w:docPartObj/w:docPartGallery w:val="Table of Contents"`. Named apart from other content
 * controls because the reason is specific and measured (e2e/office-docx-fidelity.test.ts): the
 * editor 1.9 shows and saves it without its TOC field (begin, instruction, separator, end) and
 * without the entry that shares the paragraph with the field's start, so the document stays
 * read-only rather than losing its table of contents on the first save.
 */
function isTableOfContents(xml: string, tag: XmlTag): boolean {
  if (tag.kind !== 'open') return false
  // `w:sdtPr` is the first child (schema order); reading only it keeps the scan linear however
  // many content controls a hostile part nests.
  const first = scanTags(xml, tag.end).next()
  if (first.done || first.value.name !== 'w:sdtPr' || first.value.kind !== 'open') return false
  const properties = elementAt(xml, first.value)
  const gallery = findFirst(xml, 'w:docPartGallery', properties.innerStart, properties.innerEnd)
  return gallery !== undefined && attributesAt(xml, gallery.start).get('w:val') === 'Table of Contents'
}

/** English names for a reason line; the renderer translates by feature id. */
export const DOCX_FEATURE_LABELS: Record<DocxFeature, string> = {
  chart: 'charts',
  smartart: 'SmartArt diagrams',
  'text-box': 'text boxes',
  'table-of-contents': 'table of contents fields and their first entry',
  'content-control': 'content controls',
  'tracked-change': 'tracked changes',
  comment: 'comments',
  'embedded-object': 'embedded objects',
}
