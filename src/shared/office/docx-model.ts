import { mainPart, relationshipsOf } from './opc'
import { findFirstChild, numberAttribute, readParagraph, type Atom } from './docx-paragraph'
import { attributesAt, children, findFirst, scanTags, type XmlElement } from './xml'
import { openPackage, PackageError, type OfficePackage } from './zip'

/**
 * The DOCX model the read view, the edits and the redline share (issue 26): every story part
 * (body, headers, footers, notes) split into paragraphs and table cells with the anchors `read`
 * shows, each paragraph's text as a list of atoms that point at the exact XML they came from, so
 * an edit splices only those bytes.
 *
 * Anchors: body paragraphs `p1…pN` (direct body paragraphs, also those inside block content
 * controls); tables `t1…` numbered in document order including nested ones, cells `t2.r3.c1` by
 * row and grid column (1-based); header/footer stories prefix them with `hdr1.` / `ftr1.` in the
 * order the document's relationships list the parts; foot/endnotes are `fn<id>` / `en<id>` and
 * read-only.
 *
 * Tracked changes read as if accepted: inserted text shows, deleted text (`w:delText`,
 * `w:moveFrom`) does not; such paragraphs are marked and refused for edits.
 */

export { DOCX_LINE_BREAK, DOCX_LINE_BREAK_SHOWN, runProps, type Atom, type RunProps } from './docx-paragraph'

export type StoryKind = 'body' | 'header' | 'footer' | 'footnotes' | 'endnotes'

export interface DocxParagraph {
  readonly anchor: string
  readonly element: XmlElement
  readonly text: string
  readonly atoms: Atom[]
  readonly styleId: string | null
  /** 0-based list level, null when not a list item. */
  readonly listLevel: number | null
  readonly tracked: boolean
  readonly hasSectPr: boolean
  /** Block container an edit must not touch ("content control"), else null. */
  readonly container: string | null
  /** Normalised paragraph properties other than the style (alignment etc.), for the redline. */
  readonly alignment: string | null
}

export interface DocxCell {
  readonly anchor: string
  readonly row: number
  readonly column: number
  /** The first cell of the merge when this position continues a merged cell. */
  readonly mergedInto: string | null
  readonly element: XmlElement
  readonly paragraphs: DocxParagraph[]
  /** Anchors of tables nested directly in this cell. */
  readonly nested: string[]
}

export interface DocxTable {
  readonly anchor: string
  readonly rows: number
  readonly columns: number
  /** Every grid position in row-major order, merged continuations included. */
  readonly cells: DocxCell[]
}

export type DocxBlock =
  | { readonly kind: 'paragraph'; readonly paragraph: DocxParagraph }
  | { readonly kind: 'table'; readonly table: DocxTable; readonly element: XmlElement }

export interface DocxStory {
  readonly kind: StoryKind
  /** `''` for the body, `hdr1.`, `ftr2.`; notes have none. */
  readonly prefix: string
  readonly part: string
  readonly xml: string
  readonly blocks: DocxBlock[]
  /** Every top-level-of-story paragraph and every cell paragraph, by paragraph anchor. */
  readonly paragraphs: Map<string, DocxParagraph>
  readonly tables: Map<string, DocxTable>
  readonly cells: Map<string, DocxCell>
  /** Notes only: each note as one read-only unit. */
  readonly notes: Array<{ anchor: string; paragraphs: DocxParagraph[] }>
  readonly editable: boolean
}

export interface DocxStyles {
  readonly names: Map<string, string>
  readonly defaultParagraph: string | null
}

export interface DocxDocument {
  readonly pkg: OfficePackage
  readonly stories: DocxStory[]
  readonly body: DocxStory
  readonly styles: DocxStyles
}

export type DocxOpenOutcome =
  | { kind: 'ok'; document: DocxDocument }
  | { kind: 'refused'; reason: 'encrypted' | 'damaged' | 'too-large'; message: string }

const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]

/** Opens a DOCX for the model's tools; every way the bytes can be wrong is a refusal, never a throw. */
export async function openDocx(bytes: Uint8Array): Promise<DocxOpenOutcome> {
  if (OLE_SIGNATURE.every((byte, i) => bytes[i] === byte)) {
    // Office saves a password-protected DOCX as an OLE compound file holding `EncryptedPackage`;
    // any other OLE file here is a legacy .doc under the wrong name.
    return hasUtf16(bytes, 'EncryptedPackage')
      ? { kind: 'refused', reason: 'encrypted', message: 'The document is password-protected (encrypted).' }
      : {
          kind: 'refused',
          reason: 'damaged',
          message: 'The file is an OLE compound file (a legacy .doc?), not a DOCX package.',
        }
  }
  try {
    const pkg = await openPackage(bytes)
    const documentPart = await mainPart(pkg)
    if (documentPart === undefined || !pkg.has(documentPart)) {
      return { kind: 'refused', reason: 'damaged', message: 'The package has no document part (word/document.xml).' }
    }
    const rels = await relationshipsOf(pkg, documentPart)
    const styles = parseStyles(await readRelated(pkg, rels, 'styles'))
    const body = parseStory('body', '', documentPart, await pkg.text(documentPart))
    const stories: DocxStory[] = [body]
    let headers = 0
    let footers = 0
    for (const rel of rels) {
      if (rel.external || !pkg.has(rel.target)) continue
      if (rel.type === 'header')
        stories.push(parseStory('header', `hdr${++headers}.`, rel.target, await pkg.text(rel.target)))
      else if (rel.type === 'footer')
        stories.push(parseStory('footer', `ftr${++footers}.`, rel.target, await pkg.text(rel.target)))
    }
    for (const kind of ['footnotes', 'endnotes'] as const) {
      const rel = rels.find((r) => r.type === kind && !r.external && pkg.has(r.target))
      if (rel) stories.push(parseNotes(kind, rel.target, await pkg.text(rel.target)))
    }
    return { kind: 'ok', document: { pkg, stories, body, styles } }
  } catch (error) {
    if (error instanceof PackageError) {
      if (error.reason === 'too-large') return { kind: 'refused', reason: 'too-large', message: error.message }
      if (error.reason === 'encrypted') return { kind: 'refused', reason: 'encrypted', message: error.message }
      return { kind: 'refused', reason: 'damaged', message: error.message }
    }
    return { kind: 'refused', reason: 'damaged', message: `The document's XML cannot be read (${String(error)}).` }
  }
}

function hasUtf16(bytes: Uint8Array, word: string): boolean {
  const needle = new Uint8Array(word.length * 2)
  for (let i = 0; i < word.length; i++) needle[i * 2] = word.charCodeAt(i)
  // The directory sits in the first sectors of a small OLE file; a bounded look is enough.
  const limit = Math.min(bytes.length, 4 * 1024 * 1024) - needle.length
  outer: for (let at = 0; at <= limit; at++) {
    for (let j = 0; j < needle.length; j++) if (bytes[at + j] !== needle[j]) continue outer
    return true
  }
  return false
}

async function readRelated(
  pkg: OfficePackage,
  rels: Awaited<ReturnType<typeof relationshipsOf>>,
  type: string,
): Promise<string | null> {
  const rel = rels.find((r) => r.type === type && !r.external)
  return rel ? pkg.textOrNull(rel.target) : null
}

function parseStyles(xml: string | null): DocxStyles {
  const names = new Map<string, string>()
  let defaultParagraph: string | null = null
  if (xml === null) return { names, defaultParagraph }
  for (const tag of scanTags(xml)) {
    if (tag.kind !== 'open' || tag.name !== 'w:style') continue
    const attributes = attributesAt(xml, tag.start)
    const id = attributes.get('w:styleId')
    if (!id) continue
    const end = xml.indexOf('</w:style>', tag.end)
    const name = findFirst(xml, 'w:name', tag.end, end === -1 ? xml.length : end)
    names.set(id, displayStyleName(name ? (attributesAt(xml, name.start).get('w:val') ?? id) : id))
    const isDefault = attributes.get('w:default')
    if (attributes.get('w:type') === 'paragraph' && (isDefault === '1' || isDefault === 'true')) defaultParagraph = id
  }
  return { names, defaultParagraph }
}

/** Word stores built-in names in lower case ("heading 1"); people read them capitalised. */
function displayStyleName(name: string): string {
  return /^[a-z]/.test(name) ? name.charAt(0).toUpperCase() + name.slice(1) : name
}

export function styleName(styles: DocxStyles, styleId: string | null): string {
  const id = styleId ?? styles.defaultParagraph
  if (id === null) return 'Normal'
  return styles.names.get(id) ?? id
}

/** The style id a name or id means (ids first, then names case-insensitively), paragraph styles only. */
export function resolveStyle(styles: DocxStyles, nameOrId: string): string | undefined {
  if (styles.names.has(nameOrId)) return nameOrId
  const wanted = nameOrId.trim().toLowerCase()
  for (const [id, name] of styles.names) if (name.toLowerCase() === wanted) return id
  return undefined
}

function rootOf(xml: string, kinds: readonly string[]): XmlElement {
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close') continue
    if (kinds.includes(tag.name)) {
      const root = findFirst(xml, tag.name, tag.start)
      if (root) return root
    }
  }
  throw new PackageError('corrupt', `The part has no <${kinds.join('> or <')}> element.`)
}

function parseStory(kind: StoryKind, prefix: string, part: string, xml: string): DocxStory {
  const rootName = kind === 'body' ? 'w:body' : kind === 'header' ? 'w:hdr' : 'w:ftr'
  const root = rootOf(xml, [rootName])
  const story: DocxStory = {
    kind,
    prefix,
    part,
    xml,
    blocks: [],
    paragraphs: new Map(),
    tables: new Map(),
    cells: new Map(),
    notes: [],
    editable: true,
  }
  const counters = { paragraphs: 0, tables: 0 }
  for (const { element, container } of blockChildren(xml, root, null)) {
    if (element.name === 'w:p') {
      const paragraph = parseParagraph(xml, element, `${prefix}p${++counters.paragraphs}`, container)
      story.paragraphs.set(paragraph.anchor, paragraph)
      story.blocks.push({ kind: 'paragraph', paragraph })
    } else if (element.name === 'w:tbl') {
      const table = parseTable(xml, element, story, counters, container)
      story.blocks.push({ kind: 'table', table, element })
    }
  }
  return story
}

function parseNotes(kind: 'footnotes' | 'endnotes', part: string, xml: string): DocxStory {
  const root = rootOf(xml, [kind === 'footnotes' ? 'w:footnotes' : 'w:endnotes'])
  const story: DocxStory = {
    kind,
    prefix: '',
    part,
    xml,
    blocks: [],
    paragraphs: new Map(),
    tables: new Map(),
    cells: new Map(),
    notes: [],
    editable: false,
  }
  const letter = kind === 'footnotes' ? 'fn' : 'en'
  for (const note of children(xml, root)) {
    const attributes = attributesAt(xml, note.start)
    const type = attributes.get('w:type')
    // Separators are Word's own lines between body and notes, not notes anyone wrote.
    if (type === 'separator' || type === 'continuationSeparator' || type === 'continuationNotice') continue
    const anchor = `${letter}${attributes.get('w:id') ?? story.notes.length + 1}`
    const paragraphs = blockChildren(xml, note, null)
      .filter((b) => b.element.name === 'w:p')
      .map((b, i) => parseParagraph(xml, b.element, `${anchor}#${i + 1}`, b.container))
    story.notes.push({ anchor, paragraphs })
  }
  return story
}

/** Block-level children, looking through block content controls and custom XML. */
function blockChildren(
  xml: string,
  parent: XmlElement,
  container: string | null,
  depth = 0,
): Array<{ element: XmlElement; container: string | null }> {
  if (depth > MAX_NESTING) throw nestedTooDeep()
  const found: Array<{ element: XmlElement; container: string | null }> = []
  for (const child of children(xml, parent)) {
    if (child.name === 'w:p' || child.name === 'w:tbl') found.push({ element: child, container })
    else if (child.name === 'w:sdt') {
      const content = findFirst(xml, 'w:sdtContent', child.innerStart, child.innerEnd)
      if (content) found.push(...blockChildren(xml, content, 'content control', depth + 1))
    } else if (child.name === 'w:customXml') found.push(...blockChildren(xml, child, container, depth + 1))
  }
  return found
}

/**
 * Nesting (tables in cells, content controls in content controls) past which a document is refused
 * as too large: every level re-scans its content, so a hostile file nested thousands deep would
 * cost quadratic time and could exhaust the stack.
 */
export const MAX_NESTING = 32

export function nestedTooDeep(): PackageError {
  return new PackageError('too-large', `The document nests tables or controls more than ${MAX_NESTING} levels deep.`)
}

function parseTable(
  xml: string,
  element: XmlElement,
  story: DocxStory,
  counters: { paragraphs: number; tables: number },
  container: string | null,
  depth = 0,
): DocxTable {
  if (depth > MAX_NESTING) throw nestedTooDeep()
  const anchor = `${story.prefix}t${++counters.tables}`
  const cells: DocxCell[] = []
  // Which cell owns each grid column in the row above, for vertical merges.
  let above = new Map<number, string>()
  let rows = 0
  let columns = 0
  for (const row of children(xml, element).filter((c) => c.name === 'w:tr')) {
    rows++
    const current = new Map<number, string>()
    const trPr = findFirstChild(xml, row, 'w:trPr')
    const gridBefore = trPr ? numberAttribute(xml, findFirstChild(xml, trPr, 'w:gridBefore')) : null
    let column = gridBefore ?? 0
    for (const tc of children(xml, row).filter((c) => c.name === 'w:tc')) {
      const tcPr = findFirstChild(xml, tc, 'w:tcPr')
      const span = Math.max(1, (tcPr ? numberAttribute(xml, findFirstChild(xml, tcPr, 'w:gridSpan')) : null) ?? 1)
      const vMerge = tcPr ? findFirstChild(xml, tcPr, 'w:vMerge') : undefined
      const continues = vMerge !== undefined && attributesAt(xml, vMerge.start).get('w:val') !== 'restart'
      const cellAnchor = `${anchor}.r${rows}.c${column + 1}`
      const owner = continues ? (above.get(column + 1) ?? null) : null
      const paragraphs: DocxParagraph[] = []
      const nested: string[] = []
      for (const block of blockChildren(xml, tc, container)) {
        if (block.element.name === 'w:p') {
          paragraphs.push(parseParagraph(xml, block.element, `${cellAnchor}#${paragraphs.length + 1}`, block.container))
        } else {
          const table = parseTable(xml, block.element, story, counters, block.container, depth + 1)
          nested.push(table.anchor)
        }
      }
      const cell: DocxCell = {
        anchor: cellAnchor,
        row: rows,
        column: column + 1,
        mergedInto: owner,
        element: tc,
        paragraphs,
        nested,
      }
      cells.push(cell)
      story.cells.set(cellAnchor, cell)
      const head = owner ?? cellAnchor
      current.set(column + 1, head)
      for (let extra = 1; extra < span; extra++) {
        const position = column + 1 + extra
        const continuation: DocxCell = {
          anchor: `${anchor}.r${rows}.c${position}`,
          row: rows,
          column: position,
          mergedInto: head,
          element: tc,
          paragraphs: [],
          nested: [],
        }
        cells.push(continuation)
        story.cells.set(continuation.anchor, continuation)
        current.set(position, head)
      }
      column += span
    }
    columns = Math.max(columns, column)
    above = current
  }
  const table: DocxTable = { anchor, rows, columns, cells }
  story.tables.set(anchor, table)
  return table
}

export function parseParagraph(
  xml: string,
  element: XmlElement,
  anchor: string,
  container: string | null,
): DocxParagraph {
  return { anchor, element, container, ...readParagraph(xml, element) }
}

/** A cell's text as `read` shows it and `replace_text` takes it: its paragraphs joined by "\n". */
export function cellText(cell: DocxCell): string {
  return cell.paragraphs.map((p) => p.text).join('\n')
}

/** Anchors are compared as the model might type them: case and stray spaces do not matter. */
export function normaliseAnchor(anchor: string): string {
  return anchor.trim().toLowerCase()
}
