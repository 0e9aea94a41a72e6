import { localName, mainPart, relationshipsOf } from './opc'
import {
  applySplices,
  attributesAt,
  children,
  decodeEntities,
  escapeText,
  findAll,
  findFirst,
  prefixFor,
  textOf,
  withAttribute,
  type Splice,
  type XmlElement,
} from './xml'
import { openPackage, PackageError, type OfficePackage } from './zip'

/**
 * XLSX reading for the grid and the one edit the built-in engine makes: a cell value. The edit
 * patches only that `<c>` in the sheet part (plus the cached results of that sheet's formula cells)
 * and sets full recalculation on load in the workbook part, so charts, images, comments, styles
 * and every other part stay byte-identical (verified-facts: a round trip through a spreadsheet
 * library drops charts and comments).
 */

export const MAIN_NS = [
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  'http://purl.oclc.org/ooxml/spreadsheetml/main',
]

export interface CellAddress {
  readonly column: number
  readonly row: number
}

export function parseAddress(address: string): CellAddress | undefined {
  const match = /^\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})$/.exec(address)
  if (!match) return undefined
  let column = 0
  for (const letter of (match[1] ?? '').toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64)
  const row = Number(match[2])
  if (column > 16_384 || row > 1_048_576) return undefined
  return { column, row }
}

export function columnName(column: number): string {
  let name = ''
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

export function formatAddress({ column, row }: CellAddress): string {
  return `${columnName(column)}${row}`
}

export type CellInput =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'formula'; formula: string }
  | { kind: 'empty' }

/** What a person typed into the cell editor: `=…` is a formula, numbers and TRUE/FALSE are typed. */
export function parseCellInput(text: string): CellInput {
  if (text === '') return { kind: 'empty' }
  if (text.startsWith('=') && text.length > 1) return { kind: 'formula', formula: text.slice(1) }
  const trimmed = text.trim()
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) {
    const value = Number(trimmed)
    if (Number.isFinite(value)) return { kind: 'number', value }
  }
  if (/^(true|false)$/i.test(trimmed)) return { kind: 'boolean', value: trimmed.toLowerCase() === 'true' }
  return { kind: 'string', value: text }
}

export interface SheetInfo {
  readonly name: string
  readonly part: string
  readonly state: 'visible' | 'hidden' | 'veryHidden'
}

export interface CellValue {
  readonly address: string
  readonly column: number
  readonly row: number
  /** The cached value as text (numbers unformatted: what the cell editor shows and edits). */
  readonly text: string
  readonly formula?: string
  /**
   * A number's display format from the workbook's styles: a format code, or the id of one of the
   * spreadsheet's built-in formats. Absent for text, booleans and the General format.
   */
  readonly numberFormat?: string | number
}

export interface SheetContent {
  readonly name: string
  readonly cells: CellValue[]
  readonly rows: number
  readonly columns: number
  readonly merges: string[]
  /** Serial day numbers count from 1904 (old Mac workbooks), not 1900. */
  readonly date1904: boolean
}

export type CellEditOutcome =
  | { kind: 'ok'; bytes: Uint8Array; changedParts: string[] }
  | { kind: 'refused'; reason: CellEditRefusal; message: string }

export type CellEditRefusal =
  | 'no-such-sheet'
  | 'bad-address'
  | 'inside-merged-range'
  | 'shared-formula'
  | 'array-formula'
  | 'table-header'
  | 'not-a-number'

export interface Workbook {
  readonly pkg: OfficePackage
  readonly part: string
  readonly xml: string
  readonly sheets: SheetInfo[]
}

export async function openWorkbook(bytes: Uint8Array): Promise<Workbook> {
  const pkg = await openPackage(bytes)
  const part = await mainPart(pkg)
  if (part === undefined || !pkg.has(part)) throw new PackageError('missing-part', 'The package has no workbook.')
  const xml = await pkg.text(part)
  const rels = await relationshipsOf(pkg, part)
  const sheets: SheetInfo[] = []
  for (const element of findAll(xml, `${prefixFor(xml, MAIN_NS) ?? ''}sheet`)) {
    const attributes = attributesAt(xml, element.start)
    const rid = [...attributes].find(([name]) => localName(name) === 'id' && name.includes(':'))?.[1]
    const target = rels.find((r) => r.id === rid && r.type === 'worksheet')
    if (!target) continue
    const state = attributes.get('state')
    sheets.push({
      name: attributes.get('name') ?? '',
      part: target.target,
      state: state === 'hidden' || state === 'veryHidden' ? state : 'visible',
    })
  }
  return { pkg, part, xml, sheets }
}

/**
 * The number format of each cell style (`cellXfs`, by index): a custom code from `numFmts`, or a
 * built-in id. The General format (id 0) is left out: such numbers are shown as stored.
 */
export async function cellNumberFormats(book: Workbook): Promise<Array<string | number | undefined>> {
  const rel = (await relationshipsOf(book.pkg, book.part)).find((r) => r.type === 'styles')
  if (!rel) return []
  const xml = await book.pkg.textOrNull(rel.target)
  if (xml === null) return []
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const custom = new Map<number, string>()
  for (const element of findAll(xml, `${p}numFmt`)) {
    const attributes = attributesAt(xml, element.start)
    const id = Number(attributes.get('numFmtId'))
    const code = attributes.get('formatCode')
    if (Number.isInteger(id) && code !== undefined) custom.set(id, decodeEntities(code))
  }
  const xfs = findFirst(xml, `${p}cellXfs`)
  if (!xfs) return []
  return children(xml, xfs)
    .filter((child) => localName(child.name) === 'xf')
    .map((xf) => {
      const id = Number(attributesAt(xml, xf.start).get('numFmtId') ?? 0)
      if (!Number.isInteger(id) || id === 0) return undefined
      return custom.get(id) ?? id
    })
}

export async function listSheets(bytes: Uint8Array): Promise<SheetInfo[]> {
  return (await openWorkbook(bytes)).sheets
}

/** One sheet's cells (cached values) for the grid. */
export async function readSheet(bytes: Uint8Array, sheetName: string): Promise<SheetContent> {
  const book = await openWorkbook(bytes)
  const sheet = book.sheets.find((s) => s.name === sheetName)
  if (!sheet) throw new PackageError('missing-part', `There is no sheet "${sheetName}".`)
  const shared = await sharedStrings(book)
  const formats = await cellNumberFormats(book)
  const workbookPr = findFirst(book.xml, `${prefixFor(book.xml, MAIN_NS) ?? ''}workbookPr`)
  const date1904 = workbookPr
    ? /^(1|true)$/.test(attributesAt(book.xml, workbookPr.start).get('date1904') ?? '')
    : false
  const xml = await book.pkg.text(sheet.part)
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const cells: CellValue[] = []
  let rows = 0
  let columns = 0
  const data = findFirst(xml, `${p}sheetData`)
  if (data) {
    for (const cell of walkCells(xml, data, p)) {
      const attributes = attributesAt(xml, cell.element.start)
      const type = attributes.get('t') ?? 'n'
      const v = findFirst(xml, `${p}v`, cell.element.innerStart, cell.element.innerEnd)
      const f = findFirst(xml, `${p}f`, cell.element.innerStart, cell.element.innerEnd)
      const raw = v ? decodeEntities(xml.slice(v.innerStart, v.innerEnd)) : ''
      let text: string
      if (type === 's') text = shared[Number(raw)] ?? ''
      else if (type === 'inlineStr') text = textOf(xml, `${p}t`, cell.element.innerStart, cell.element.innerEnd)
      else if (type === 'b') text = raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw
      else text = raw
      const formula = f && !f.empty ? decodeEntities(xml.slice(f.innerStart, f.innerEnd)) : undefined
      if (text === '' && formula === undefined) continue
      rows = Math.max(rows, cell.row)
      columns = Math.max(columns, cell.column)
      const numberFormat = type === 'n' && raw !== '' ? formats[Number(attributes.get('s') ?? 0)] : undefined
      cells.push({
        address: formatAddress(cell),
        column: cell.column,
        row: cell.row,
        text,
        ...(formula !== undefined ? { formula } : {}),
        ...(numberFormat !== undefined ? { numberFormat } : {}),
      })
    }
  }
  const merges = findAll(xml, `${p}mergeCell`).map((m) => attributesAt(xml, m.start).get('ref') ?? '')
  return { name: sheet.name, cells, rows, columns, merges, date1904 }
}

export async function sharedStrings(book: Workbook): Promise<string[]> {
  const rel = (await relationshipsOf(book.pkg, book.part)).find((r) => r.type === 'sharedStrings')
  if (!rel) return []
  const xml = await book.pkg.textOrNull(rel.target)
  if (xml === null) return []
  const p = prefixFor(xml, MAIN_NS) ?? ''
  return findAll(xml, `${p}si`).map((si) => {
    // Phonetic runs (rPh) hold reading hints, not cell text.
    let text = ''
    for (const child of children(xml, si)) {
      const name = localName(child.name)
      if (name === 't') text += decodeEntities(xml.slice(child.innerStart, child.innerEnd))
      else if (name === 'r') text += textOf(xml, `${p}t`, child.innerStart, child.innerEnd)
    }
    return text
  })
}

export interface PlacedRow {
  readonly element: XmlElement
  readonly row: number
  readonly explicit: boolean
}

export interface PlacedCell extends CellAddress {
  readonly element: XmlElement
  readonly explicit: boolean
}

export function rowsOf(xml: string, data: XmlElement, p: string): PlacedRow[] {
  const rows: PlacedRow[] = []
  let previous = 0
  for (const element of children(xml, data)) {
    if (element.name !== `${p}row`) continue
    const r = attributesAt(xml, element.start).get('r')
    const row = r === undefined ? previous + 1 : Number(r)
    rows.push({ element, row, explicit: r !== undefined })
    previous = row
  }
  return rows
}

export function cellsOf(xml: string, row: PlacedRow, p: string): PlacedCell[] {
  const cells: PlacedCell[] = []
  let previous = 0
  for (const element of children(xml, row.element)) {
    if (element.name !== `${p}c`) continue
    const r = attributesAt(xml, element.start).get('r')
    const address = r === undefined ? undefined : parseAddress(r)
    const column = address?.column ?? previous + 1
    cells.push({ element, column, row: row.row, explicit: address !== undefined })
    previous = column
  }
  return cells
}

function* walkCells(xml: string, data: XmlElement, p: string): Generator<PlacedCell> {
  for (const row of rowsOf(xml, data, p)) yield* cellsOf(xml, row, p)
}

export interface Range {
  readonly from: CellAddress
  readonly to: CellAddress
}

export function parseRange(ref: string): Range | undefined {
  const [a, b] = ref.split(':')
  const from = a === undefined ? undefined : parseAddress(a)
  const to = b === undefined ? from : parseAddress(b)
  return from && to ? { from, to } : undefined
}

export function inRange(range: Range, cell: CellAddress): boolean {
  return (
    cell.column >= range.from.column &&
    cell.column <= range.to.column &&
    cell.row >= range.from.row &&
    cell.row <= range.to.row
  )
}

/**
 * Sets one cell. Changes: the sheet part (that `<c>`, `<dimension>` when the cell lies outside
 * it), the cached `<v>` of formula cells (in whichever sheet parts have them) and the workbook
 * part (`fullCalcOnLoad`); when a formula is added or removed, the calculation chain (a cache Excel
 * rebuilds) is removed with its relationship and content-type override. Nothing else changes.
 */
export async function editCell(
  bytes: Uint8Array,
  edit: { sheet: string; address: string; input: CellInput },
): Promise<CellEditOutcome> {
  const book = await openWorkbook(bytes)
  const sheet = book.sheets.find((s) => s.name === edit.sheet)
  if (!sheet) return refuse('no-such-sheet', `There is no sheet "${edit.sheet}".`)
  const target = parseAddress(edit.address)
  if (!target) return refuse('bad-address', `"${edit.address}" is not a cell address.`)
  if (edit.input.kind === 'number' && !Number.isFinite(edit.input.value)) {
    return refuse('not-a-number', 'Only finite numbers can be stored in a cell.')
  }
  const address = formatAddress(target)
  const xml = await book.pkg.text(sheet.part)
  const p = prefixFor(xml, MAIN_NS) ?? ''

  for (const merge of findAll(xml, `${p}mergeCell`)) {
    const range = parseRange(attributesAt(xml, merge.start).get('ref') ?? '')
    if (range && inRange(range, target) && (range.from.column !== target.column || range.from.row !== target.row)) {
      return refuse('inside-merged-range', `${address} is covered by the merged cells ${formatRange(range)}.`)
    }
  }
  for (const f of findAll(xml, `${p}f`)) {
    const attributes = attributesAt(xml, f.start)
    const range = parseRange(attributes.get('ref') ?? '')
    if (!range || !inRange(range, target)) continue
    if (attributes.get('t') === 'array') {
      return refuse('array-formula', `${address} is part of the array formula over ${formatRange(range)}.`)
    }
    if (attributes.get('t') === 'shared') {
      return refuse('shared-formula', `${address} holds a formula other cells share (${formatRange(range)}).`)
    }
  }
  const header = await tableHeaderAt(book.pkg, sheet.part, target)
  if (header) return refuse('table-header', `${address} is a column name of the table "${header}".`)

  const data = findFirst(xml, `${p}sheetData`)
  if (!data) throw new PackageError('corrupt', `The sheet "${sheet.name}" has no cell data.`)
  const splices: Splice[] = []
  const tags = new TagEdits(xml)
  const rows = rowsOf(xml, data, p)
  const row = rows.find((r) => r.row === target.row)
  let hadFormula = false
  let editedStart: number | undefined
  const newCell = (existing: XmlElement | undefined): string =>
    cellXml(p, address, existing ? attributesAt(xml, existing.start).get('s') : undefined, edit.input)

  if (row) {
    const cells = cellsOf(xml, row, p)
    const cell = cells.find((c) => c.column === target.column)
    // Cells after an inserted one would shift if they relied on implicit positions: make them explicit.
    for (const c of cells) if (!c.explicit && c !== cell) tags.set(c.element, 'r', formatAddress(c))
    if (cell) {
      hadFormula = findFirst(xml, `${p}f`, cell.element.innerStart, cell.element.innerEnd) !== undefined
      editedStart = cell.element.start
      splices.push({ start: cell.element.start, end: cell.element.end, text: newCell(cell.element) })
    } else if (edit.input.kind !== 'empty') {
      if (row.element.empty) {
        const open = withAttribute(xml, row.element.start, 'r', String(row.row)).replace(/\s*\/>$/, '>')
        editedStart = row.element.start
        splices.push({ start: row.element.start, end: row.element.end, text: `${open}${newCell(undefined)}</${p}row>` })
      } else {
        const after = cells.find((c) => c.column > target.column)
        const at = after ? after.element.start : row.element.innerEnd
        splices.push({ start: at, end: at, text: newCell(undefined) })
      }
    }
    if (!row.explicit && !row.element.empty) tags.set(row.element, 'r', String(row.row))
  } else if (edit.input.kind !== 'empty') {
    const text = `<${p}row r="${target.row}">${newCell(undefined)}</${p}row>`
    if (data.empty) {
      splices.push({ start: data.start, end: data.end, text: `<${p}sheetData>${text}</${p}sheetData>` })
    } else {
      const after = rows.find((r) => r.row > target.row)
      const at = after ? after.element.start : data.innerEnd
      splices.push({ start: at, end: at, text })
    }
    for (const r of rows) if (!r.explicit) tags.set(r.element, 'r', String(r.row))
  }

  // Cached results of formula cells may depend on the edited one: drop them (in every sheet, since
  // formulas reach across sheets) so no application shows a stale total. Excel recomputes on
  // `fullCalcOnLoad`; LibreOffice ignores that flag but recomputes cells that have no cached value.
  splices.push(...dropCachedResults(xml, data, p, tags, editedStart))
  const dimension = findFirst(xml, `${p}dimension`)
  if (dimension && edit.input.kind !== 'empty') {
    const range = parseRange(attributesAt(xml, dimension.start).get('ref') ?? '')
    if (range && !inRange(range, target)) {
      const grown: Range = {
        from: { column: Math.min(range.from.column, target.column), row: Math.min(range.from.row, target.row) },
        to: { column: Math.max(range.to.column, target.column), row: Math.max(range.to.row, target.row) },
      }
      tags.set(dimension, 'ref', formatRange(grown))
    }
  }

  const changes = new Map<string, string | null>()
  changes.set(sheet.part, applySplices(xml, [...splices, ...tags.splices()]))
  for (const other of book.sheets) {
    if (other.part === sheet.part || changes.has(other.part)) continue
    const otherXml = await book.pkg.textOrNull(other.part)
    if (otherXml === null) continue
    const q = prefixFor(otherXml, MAIN_NS) ?? ''
    const otherData = findFirst(otherXml, `${q}sheetData`)
    if (!otherData) continue
    const otherTags = new TagEdits(otherXml)
    const dropped = dropCachedResults(otherXml, otherData, q, otherTags, undefined)
    if (dropped.length > 0) changes.set(other.part, applySplices(otherXml, [...dropped, ...otherTags.splices()]))
  }
  changes.set(book.part, await withFullCalcOnLoad(book))
  if (hadFormula || edit.input.kind === 'formula') await dropCalcChain(book, changes)
  return { kind: 'ok', bytes: await book.pkg.rewrite(changes), changedParts: [...changes.keys()] }
}

function dropCachedResults(
  xml: string,
  data: XmlElement,
  p: string,
  tags: TagEdits,
  skipStart: number | undefined,
): Splice[] {
  const splices: Splice[] = []
  for (const cell of walkCells(xml, data, p)) {
    if (cell.element.start === skipStart || cell.element.empty) continue
    if (!findFirst(xml, `${p}f`, cell.element.innerStart, cell.element.innerEnd)) continue
    const v = findFirst(xml, `${p}v`, cell.element.innerStart, cell.element.innerEnd)
    if (!v) continue
    splices.push({ start: v.start, end: v.end, text: '' })
    if (attributesAt(xml, cell.element.start).has('t')) tags.set(cell.element, 't', null)
  }
  return splices
}

/** Attribute changes collected per start tag, turned into one splice per tag. */
export class TagEdits {
  private readonly edits = new Map<number, { element: XmlElement; changes: Array<[string, string | null]> }>()
  constructor(private readonly xml: string) {}
  set(element: XmlElement, name: string, value: string | null): void {
    const entry = this.edits.get(element.start) ?? { element, changes: [] }
    entry.changes.push([name, value])
    this.edits.set(element.start, entry)
  }
  splices(): Splice[] {
    return [...this.edits.values()].map(({ element, changes }) => {
      const end = element.empty ? element.end : element.innerStart
      let tag = this.xml.slice(element.start, end)
      for (const [name, value] of changes) tag = withAttribute(tag, 0, name, value)
      return { start: element.start, end, text: tag }
    })
  }
}

function refuse(reason: CellEditRefusal, message: string): CellEditOutcome {
  return { kind: 'refused', reason, message }
}

export function formatRange(range: Range): string {
  const from = formatAddress(range.from)
  const to = formatAddress(range.to)
  return from === to ? from : `${from}:${to}`
}

export function cellXml(p: string, address: string, style: string | undefined, input: CellInput): string {
  const s = style === undefined ? '' : ` s="${style}"`
  switch (input.kind) {
    case 'empty':
      // A styled empty cell keeps its formatting; an unstyled one disappears.
      return style === undefined ? '' : `<${p}c r="${address}"${s}/>`
    case 'number':
      return `<${p}c r="${address}"${s}><${p}v>${String(input.value)}</${p}v></${p}c>`
    case 'boolean':
      return `<${p}c r="${address}"${s} t="b"><${p}v>${input.value ? 1 : 0}</${p}v></${p}c>`
    case 'formula':
      return `<${p}c r="${address}"${s}><${p}f>${escapeText(input.formula)}</${p}f></${p}c>`
    case 'string': {
      // An inline string keeps the shared-string table (and every other cell's index into it) untouched.
      const space = /^\s|\s$|\n/.test(input.value) ? ' xml:space="preserve"' : ''
      return `<${p}c r="${address}"${s} t="inlineStr"><${p}is><${p}t${space}>${escapeText(input.value)}</${p}t></${p}is></${p}c>`
    }
  }
}

async function tableHeaderAt(pkg: OfficePackage, sheetPart: string, cell: CellAddress): Promise<string | undefined> {
  const header = (await tableHeaderRows(pkg, sheetPart)).find(
    ({ range }) => cell.row === range.from.row && cell.column >= range.from.column && cell.column <= range.to.column,
  )
  return header?.name
}

/** The tables on a sheet that have a header row (whose cells are the tables' column names). */
export async function tableHeaderRows(
  pkg: OfficePackage,
  sheetPart: string,
): Promise<Array<{ name: string; range: Range }>> {
  const found: Array<{ name: string; range: Range }> = []
  for (const rel of await relationshipsOf(pkg, sheetPart)) {
    if (rel.type !== 'table' || rel.external) continue
    const xml = await pkg.textOrNull(rel.target)
    if (xml === null) continue
    const table = findFirst(xml, `${prefixFor(xml, MAIN_NS) ?? ''}table`)
    if (!table) continue
    const attributes = attributesAt(xml, table.start)
    const range = parseRange(attributes.get('ref') ?? '')
    if (!range || attributes.get('headerRowCount') === '0') continue
    found.push({ name: attributes.get('displayName') ?? attributes.get('name') ?? '', range })
  }
  return found
}

export async function withFullCalcOnLoad(book: Workbook): Promise<string> {
  const xml = await book.pkg.text(book.part)
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const calcPr = findFirst(xml, `${p}calcPr`)
  if (calcPr) {
    const end = calcPr.empty ? calcPr.end : calcPr.innerStart
    return applySplices(xml, [
      { start: calcPr.start, end, text: withAttribute(xml, calcPr.start, 'fullCalcOnLoad', '1') },
    ])
  }
  // Schema order: … sheets, functionGroups?, externalReferences?, definedNames?, calcPr …
  const anchor =
    findFirst(xml, `${p}definedNames`) ??
    findFirst(xml, `${p}externalReferences`) ??
    findFirst(xml, `${p}functionGroups`)
  const sheets = findFirst(xml, `${p}sheets`)
  const at = (anchor ?? sheets)?.end
  if (at === undefined) throw new PackageError('corrupt', 'The workbook part lists no sheets.')
  return applySplices(xml, [{ start: at, end: at, text: `<${p}calcPr fullCalcOnLoad="1"/>` }])
}

export async function dropCalcChain(book: Workbook, changes: Map<string, string | null>): Promise<void> {
  const relsPart = book.part.replace(/([^/]+)$/, '_rels/$1.rels')
  const rel = (await relationshipsOf(book.pkg, book.part)).find((r) => r.type === 'calcChain')
  if (!rel) return
  changes.set(rel.target, null)
  const rels = await book.pkg.text(relsPart)
  const entry = findAll(rels, 'Relationship').find((r) => attributesAt(rels, r.start).get('Id') === rel.id)
  if (entry) changes.set(relsPart, applySplices(rels, [{ start: entry.start, end: entry.end, text: '' }]))
  const types = await book.pkg.textOrNull('[Content_Types].xml')
  if (types !== null) {
    const override = findAll(types, 'Override').find(
      (o) => attributesAt(types, o.start).get('PartName') === `/${rel.target}`,
    )
    if (override)
      changes.set('[Content_Types].xml', applySplices(types, [{ start: override.start, end: override.end, text: '' }]))
  }
}
