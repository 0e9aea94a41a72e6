import { attributesAt, children, decodeEntities, findFirst, scanTags, type XmlElement } from './xml'
import { PackageError } from './zip'

/**
 * One DOCX paragraph read for the tools: its text as atoms (a `w:t`, a tab, a break, or an opaque
 * element such as a picture or a field mark), each pointing at the exact XML it came from, with the
 * run properties that apply to it.
 */

/** Soft line break (`w:br`, `w:cr`) inside a paragraph's text, as in PowerPoint's object model. */
export const DOCX_LINE_BREAK = '\u000b'
/** Hyperlinks in smart tags in content controls…: past this a paragraph is refused as too large. */
const MAX_INLINE_NESTING = 32
/** How the view shows a soft line break; `office_edit` text takes it back (and U+000B). */
export const DOCX_LINE_BREAK_SHOWN = '↵'

export interface RunProps {
  readonly bold: boolean
  readonly italic: boolean
  readonly underline: boolean
  readonly strike: boolean
  /** Half-points as written (`w:sz`), or null when inherited. */
  readonly size: string | null
  readonly color: string | null
  readonly font: string | null
  readonly highlight: string | null
}

export interface Atom {
  readonly kind: 'text' | 'tab' | 'break' | 'opaque'
  /** The run content element (`w:t`, `w:tab`, `w:br`, `w:drawing`, …). */
  readonly element: XmlElement
  readonly run: XmlElement | null
  /** Its characters in the paragraph's text ('' for an opaque atom). */
  readonly text: string
  /** Offset in the paragraph's text. */
  readonly from: number
  /** What it belongs to that an edit must not touch: a field, a content control; null when free. */
  readonly guard: string | null
  /** For an opaque atom: what it is in English ("picture", "field code", "footnote reference"). */
  readonly what: string | null
  readonly props: RunProps
}

export interface ParagraphInfo {
  readonly text: string
  readonly atoms: Atom[]
  readonly styleId: string | null
  readonly listLevel: number | null
  readonly tracked: boolean
  readonly hasSectPr: boolean
  readonly alignment: string | null
}

const TRACKED = new Set(['w:ins', 'w:del', 'w:moveFrom', 'w:moveTo', 'w:rPrChange', 'w:pPrChange'])

const OPAQUE: Record<string, string> = {
  'w:drawing': 'picture',
  'w:pict': 'picture',
  'w:object': 'embedded object',
  'w:sym': 'symbol',
  'w:footnoteReference': 'footnote reference',
  'w:endnoteReference': 'endnote reference',
  'w:commentReference': 'comment',
  'w:fldChar': 'field',
  'w:instrText': 'field code',
  'w:ptab': 'positioned tab',
  'mc:AlternateContent': 'picture',
  'w:ruby': 'ruby text',
}

const INHERITED_PROPS: RunProps = {
  bold: false,
  italic: false,
  underline: false,
  strike: false,
  size: null,
  color: null,
  font: null,
  highlight: null,
}

export function readParagraph(xml: string, element: XmlElement): ParagraphInfo {
  const pPr = element.empty ? undefined : findFirstChild(xml, element, 'w:pPr')
  let styleId: string | null = null
  let listLevel: number | null = null
  let hasSectPr = false
  let alignment: string | null = null
  if (pPr) {
    for (const child of children(xml, pPr)) {
      if (child.name === 'w:pStyle') styleId = attributesAt(xml, child.start).get('w:val') ?? null
      else if (child.name === 'w:numPr') {
        const level = findFirst(xml, 'w:ilvl', child.innerStart, child.innerEnd)
        const numId = findFirst(xml, 'w:numId', child.innerStart, child.innerEnd)
        // numId 0 is Word's way of switching numbering off.
        if (!numId || attributesAt(xml, numId.start).get('w:val') !== '0') listLevel = numberAttribute(xml, level) ?? 0
      } else if (child.name === 'w:sectPr') hasSectPr = true
      else if (child.name === 'w:jc') alignment = attributesAt(xml, child.start).get('w:val') ?? null
    }
  }
  let tracked = false
  for (const tag of scanTags(xml, element.innerStart, element.innerEnd)) {
    if (tag.kind !== 'close' && TRACKED.has(tag.name)) {
      tracked = true
      break
    }
  }
  const atoms: Atom[] = []
  const state = { at: 0, field: 0, depth: 0 }
  if (!element.empty) collectAtoms(xml, element, null, atoms, state)
  const text = atoms.map((a) => a.text).join('')
  return { text, atoms, styleId, listLevel, tracked, hasSectPr, alignment }
}

function collectAtoms(
  xml: string,
  parent: XmlElement,
  guard: string | null,
  atoms: Atom[],
  state: { at: number; field: number; depth: number },
): void {
  if (++state.depth > MAX_INLINE_NESTING) {
    throw new PackageError(
      'too-large',
      `A paragraph nests links or controls more than ${MAX_INLINE_NESTING} levels deep.`,
    )
  }
  for (const child of children(xml, parent)) {
    switch (child.name) {
      case 'w:r':
        collectRun(xml, child, guard, atoms, state)
        break
      case 'w:hyperlink':
      case 'w:smartTag':
      case 'w:customXml':
      case 'w:ins':
      case 'w:moveTo':
      case 'w:dir':
      case 'w:bdo':
        if (!child.empty) collectAtoms(xml, child, guard, atoms, state)
        break
      case 'w:sdt': {
        const content = findFirst(xml, 'w:sdtContent', child.innerStart, child.innerEnd)
        if (content && !content.empty) collectAtoms(xml, content, 'content control', atoms, state)
        break
      }
      case 'w:fldSimple':
        if (!child.empty) collectAtoms(xml, child, 'field', atoms, state)
        else atoms.push(opaque(child, null, state.at, 'field'))
        break
      case 'm:oMath':
      case 'm:oMathPara':
        atoms.push(opaque(child, null, state.at, 'equation'))
        break
      default:
        // Deleted text (w:del, w:moveFrom) reads as accepted: gone. Bookmarks, comment ranges and
        // proofing marks sit between runs, and edits never splice there.
        break
    }
  }
  state.depth--
}

function opaque(element: XmlElement, run: XmlElement | null, at: number, what: string): Atom {
  return { kind: 'opaque', element, run, text: '', from: at, guard: null, what, props: INHERITED_PROPS }
}

function collectRun(
  xml: string,
  run: XmlElement,
  guard: string | null,
  atoms: Atom[],
  state: { at: number; field: number; depth: number },
): void {
  if (run.empty) return
  let props = INHERITED_PROPS
  for (const child of children(xml, run)) {
    const runGuard = guard ?? (state.field > 0 ? 'field' : null)
    const push = (kind: Atom['kind'], text: string, what: string | null = null) => {
      atoms.push({ kind, element: child, run, text, from: state.at, guard: runGuard, what, props })
      state.at += text.length
    }
    switch (child.name) {
      case 'w:rPr':
        props = runProps(xml, child)
        break
      case 'w:t':
        push('text', child.empty ? '' : decodeEntities(xml.slice(child.innerStart, child.innerEnd)))
        break
      case 'w:tab':
        push('tab', '\t')
        break
      case 'w:br': {
        // Page and column breaks are layout, not text: kept as they are, never typed over.
        const type = attributesAt(xml, child.start).get('w:type')
        if (type === 'page' || type === 'column') atoms.push(opaque(child, run, state.at, `${type} break`))
        else push('break', DOCX_LINE_BREAK)
        break
      }
      case 'w:cr':
        push('break', DOCX_LINE_BREAK)
        break
      case 'w:noBreakHyphen':
        push('opaque', '\u2011', 'non-breaking hyphen')
        break
      case 'w:fldChar': {
        const type = attributesAt(xml, child.start).get('w:fldCharType')
        if (type === 'begin') state.field++
        else if (type === 'end') state.field = Math.max(0, state.field - 1)
        atoms.push(opaque(child, run, state.at, 'field'))
        break
      }
      default: {
        const what = OPAQUE[child.name]
        // A text box is drawn as a picture holding its own paragraphs: name it for what it is.
        const named =
          what === 'picture' && xml.slice(child.innerStart, child.innerEnd).includes('<w:txbxContent')
            ? 'text box'
            : what
        if (named) atoms.push(opaque(child, run, state.at, named))
      }
    }
  }
}

function flag(xml: string, element: XmlElement | undefined): boolean {
  if (!element) return false
  const value = attributesAt(xml, element.start).get('w:val')
  return value === undefined || !(value === '0' || value === 'false' || value === 'none')
}

export function runProps(xml: string, rPr: XmlElement): RunProps {
  if (rPr.empty) return INHERITED_PROPS
  const byName = new Map<string, XmlElement>()
  for (const child of children(xml, rPr)) if (!byName.has(child.name)) byName.set(child.name, child)
  const value = (name: string, attribute = 'w:val') => {
    const element = byName.get(name)
    return element ? (attributesAt(xml, element.start).get(attribute) ?? null) : null
  }
  return {
    bold: flag(xml, byName.get('w:b')),
    italic: flag(xml, byName.get('w:i')),
    underline: flag(xml, byName.get('w:u')),
    strike: flag(xml, byName.get('w:strike')) || flag(xml, byName.get('w:dstrike')),
    size: value('w:sz'),
    color: value('w:color'),
    font: value('w:rFonts', 'w:ascii'),
    highlight: value('w:highlight'),
  }
}

export function findFirstChild(xml: string, parent: XmlElement, name: string): XmlElement | undefined {
  return children(xml, parent).find((c) => c.name === name)
}

export function numberAttribute(xml: string, element: XmlElement | undefined): number | null {
  if (!element) return null
  const value = Number.parseInt(attributesAt(xml, element.start).get('w:val') ?? '', 10)
  return Number.isFinite(value) ? value : null
}
