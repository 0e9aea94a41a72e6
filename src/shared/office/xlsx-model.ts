import type { DocumentEditRefusalReason } from './document-edits'
import { localName } from './opc'
import { shiftFormula } from './xlsx-formula-text'
import FormulaParser from 'fast-formula-parser'
import {
  MAIN_NS,
  cellNumberFormats,
  formatAddress,
  openWorkbook,
  parseRange,
  rowsOf,
  cellsOf,
  sharedStrings,
  type Range,
  type Workbook,
} from './xlsx'
import { XmlError, attributesAt, children, decodeEntities, findFirst, findAll, prefixFor, textOf } from './xml'
import { PackageError } from './zip'

/**
 * A workbook's cells as typed values, for the agent's read view, the cell diff, `set_cells` and
 * the formula engine (issue 26). Parsed with the same offset-keeping scanner as the grid's
 * `readSheet`, so what the model reads and what the patcher splices are the same cells.
 */

export type XlsxErrorValue = { readonly error: string }
export type XlsxScalar = number | string | boolean | XlsxErrorValue | null

export interface ModelCell {
  readonly row: number
  readonly column: number
  /** The cached value (a formula's last result as the file stores it); null for an empty cell. */
  readonly value: XlsxScalar
  /** The cached value as shown to the model and in Review: numbers as stored, booleans TRUE/FALSE. */
  readonly text: string
  /** A number as its cell's number format shows it (`2024-03-03`, `2.34%`), when that differs from `text`. */
  readonly shown?: string
  /** Without the leading "="; a shared formula's dependent cell gets the master's text moved to it. */
  readonly formula?: string
  readonly formulaType?: 'normal' | 'shared' | 'array'
  /** For a shared formula's master and an array formula: the cells it covers. */
  readonly formulaRef?: string
}

export interface ModelSheet {
  readonly name: string
  readonly sheetId: string
  readonly part: string
  readonly state: 'visible' | 'hidden' | 'veryHidden'
  /** Keyed by `cellKey(row, column)`; only cells with a value or a formula. */
  readonly cells: Map<number, ModelCell>
  readonly merges: Range[]
  /** Bounding box of the non-empty cells; undefined for an empty sheet. */
  readonly used: Range | undefined
}

export interface DefinedName {
  readonly name: string
  /** Index into `sheets` for a name local to one sheet. */
  readonly localSheet: number | undefined
  readonly text: string
}

export interface WorkbookModel {
  readonly book: Workbook
  readonly sheets: ModelSheet[]
  readonly names: DefinedName[]
  /** Serial day numbers count from 1904 (old Mac workbooks), not 1900. */
  readonly date1904: boolean
}

const COLUMNS = 16_384

export function cellKey(row: number, column: number): number {
  return (row - 1) * COLUMNS + (column - 1)
}

export function keyRow(key: number): number {
  return Math.floor(key / COLUMNS) + 1
}

export function keyColumn(key: number): number {
  return (key % COLUMNS) + 1
}

/** OLE compound files: what Office writes for a password-protected OOXML document. */
export function isOleCompoundFile(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0
}

export type ModelOutcome =
  { kind: 'ok'; model: WorkbookModel } | { kind: 'refused'; reason: DocumentEditRefusalReason; message: string }

/** Opens a workbook for the agent's tools: every failure is a refusal with a reason, never a throw. */
export async function loadWorkbookModel(bytes: Uint8Array): Promise<ModelOutcome> {
  try {
    return { kind: 'ok', model: await parseWorkbookModel(bytes) }
  } catch (error) {
    return { kind: 'refused', ...refusalOf(error) }
  }
}

export function refusalOf(error: unknown): { reason: DocumentEditRefusalReason; message: string } {
  if (error instanceof PackageError) {
    switch (error.reason) {
      case 'encrypted':
        return { reason: 'encrypted', message: error.message }
      case 'too-large':
        return { reason: 'too-large', message: error.message }
      case 'unsupported':
        return { reason: 'unsupported-content', message: error.message }
      case 'corrupt':
      case 'missing-part':
        return { reason: 'damaged', message: `The workbook is damaged: ${error.message}` }
    }
  }
  if (error instanceof XmlError) return { reason: 'damaged', message: `The workbook is damaged: ${error.message}.` }
  throw error
}

/** Throws PackageError / XmlError for an unreadable package. */
export async function parseWorkbookModel(bytes: Uint8Array): Promise<WorkbookModel> {
  if (isOleCompoundFile(bytes)) {
    throw new PackageError(
      'encrypted',
      'The workbook is password-protected (an encrypted OLE container); open it in a spreadsheet app and remove the password first.',
    )
  }
  const book = await openWorkbook(bytes)
  const shared = await sharedStrings(book)
  const formats = await cellNumberFormats(book)
  const workbookPr = findFirst(book.xml, `${prefixFor(book.xml, MAIN_NS) ?? ''}workbookPr`)
  const date1904 = workbookPr
    ? /^(1|true)$/.test(attributesAt(book.xml, workbookPr.start).get('date1904') ?? '')
    : false
  const show = (value: number, style: string | undefined): string | undefined => {
    const format = formats[Number(style ?? 0)]
    if (format === undefined) return undefined
    try {
      const text = FormulaParser.SSF.format(format, value, { date1904 })
      return text === displayText(value) ? undefined : text
    } catch {
      return undefined
    }
  }
  const sheets: ModelSheet[] = []
  const ids = sheetIds(book.xml)
  for (const [index, info] of book.sheets.entries()) {
    const xml = await book.pkg.textOrNull(info.part)
    if (xml === null) throw new PackageError('missing-part', `The sheet "${info.name}" has no part "${info.part}".`)
    sheets.push({ ...info, sheetId: ids.get(info.name) ?? String(index + 1), ...parseSheetXml(xml, shared, show) })
  }
  return { book, sheets, names: definedNames(book.xml), date1904 }
}

function sheetIds(xml: string): Map<string, string> {
  const ids = new Map<string, string>()
  for (const element of findAll(xml, `${prefixFor(xml, MAIN_NS) ?? ''}sheet`)) {
    const attributes = attributesAt(xml, element.start)
    const name = attributes.get('name')
    const id = attributes.get('sheetId')
    if (name !== undefined && id !== undefined) ids.set(name, id)
  }
  return ids
}

function definedNames(xml: string): DefinedName[] {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  return findAll(xml, `${p}definedName`).flatMap((element) => {
    if (element.empty) return []
    const attributes = attributesAt(xml, element.start)
    const name = attributes.get('name')
    if (name === undefined) return []
    const local = attributes.get('localSheetId')
    return [
      {
        name,
        localSheet: local === undefined ? undefined : Number(local),
        text: decodeEntities(xml.slice(element.innerStart, element.innerEnd)),
      },
    ]
  })
}

interface SharedMaster {
  readonly formula: string
  readonly row: number
  readonly column: number
}

function parseSheetXml(
  xml: string,
  shared: readonly string[],
  show: (value: number, style: string | undefined) => string | undefined,
): Pick<ModelSheet, 'cells' | 'merges' | 'used'> {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const cells = new Map<number, ModelCell>()
  const masters = new Map<string, SharedMaster>()
  const pendingShared: Array<{ row: number; column: number; si: string; base: Omit<ModelCell, 'formula'> }> = []
  let minRow = Infinity
  let minColumn = Infinity
  let maxRow = 0
  let maxColumn = 0
  const data = findFirst(xml, `${p}sheetData`)
  if (data) {
    for (const row of rowsOf(xml, data, p)) {
      for (const cell of cellsOf(xml, row, p)) {
        if (cell.element.empty) continue
        const attributes = attributesAt(xml, cell.element.start)
        const type = attributes.get('t') ?? 'n'
        let raw: string | undefined
        let f: { text: string; attributes: Map<string, string> } | undefined
        let inline: string | undefined
        for (const child of children(xml, cell.element)) {
          const name = localName(child.name)
          if (name === 'v') raw = decodeEntities(xml.slice(child.innerStart, child.innerEnd))
          else if (name === 'f') {
            f = {
              text: child.empty ? '' : decodeEntities(xml.slice(child.innerStart, child.innerEnd)),
              attributes: attributesAt(xml, child.start),
            }
          } else if (name === 'is') inline = textOf(xml, `${p}t`, child.innerStart, child.innerEnd)
        }
        const value = typedValue(type, raw, inline, shared)
        // An empty text shows nothing: like the grid's readSheet, such a cell is not a value.
        if ((value === null || value === '') && f === undefined) continue
        const formulaType = f?.attributes.get('t')
        const ref = f?.attributes.get('ref')
        const shown = typeof value === 'number' ? show(value, attributes.get('s')) : undefined
        const base: Omit<ModelCell, 'formula'> = {
          row: cell.row,
          column: cell.column,
          value,
          text: displayText(value),
          ...(shown !== undefined ? { shown } : {}),
          ...(f ? { formulaType: formulaType === 'shared' || formulaType === 'array' ? formulaType : 'normal' } : {}),
          ...(ref !== undefined ? { formulaRef: ref } : {}),
        }
        const si = f?.attributes.get('si')
        if (f && formulaType === 'shared' && si !== undefined) {
          if (f.text !== '') masters.set(si, { formula: f.text, row: cell.row, column: cell.column })
          else {
            pendingShared.push({ row: cell.row, column: cell.column, si, base })
            continue
          }
        }
        cells.set(cellKey(cell.row, cell.column), f && f.text !== '' ? { ...base, formula: f.text } : base)
        minRow = Math.min(minRow, cell.row)
        minColumn = Math.min(minColumn, cell.column)
        maxRow = Math.max(maxRow, cell.row)
        maxColumn = Math.max(maxColumn, cell.column)
      }
    }
  }
  for (const pending of pendingShared) {
    const master = masters.get(pending.si)
    const formula = master
      ? shiftFormula(master.formula, pending.row - master.row, pending.column - master.column)
      : undefined
    cells.set(cellKey(pending.row, pending.column), formula === undefined ? pending.base : { ...pending.base, formula })
    minRow = Math.min(minRow, pending.row)
    minColumn = Math.min(minColumn, pending.column)
    maxRow = Math.max(maxRow, pending.row)
    maxColumn = Math.max(maxColumn, pending.column)
  }
  const merges = findAll(xml, `${p}mergeCell`).flatMap((m) => {
    const range = parseRange(attributesAt(xml, m.start).get('ref') ?? '')
    return range ? [range] : []
  })
  const used =
    maxRow === 0 ? undefined : { from: { row: minRow, column: minColumn }, to: { row: maxRow, column: maxColumn } }
  return { cells, merges, used }
}

function typedValue(
  type: string,
  raw: string | undefined,
  inline: string | undefined,
  shared: readonly string[],
): XlsxScalar {
  switch (type) {
    case 's':
      return raw === undefined ? null : (shared[Number(raw)] ?? '')
    case 'inlineStr':
      return inline ?? null
    case 'str':
      return raw ?? null
    case 'b':
      return raw === undefined ? null : raw === '1' || raw.toLowerCase() === 'true'
    case 'e':
      return raw === undefined ? null : { error: raw }
    default: {
      if (raw === undefined || raw === '') return null
      const number = Number(raw)
      return Number.isFinite(number) ? number : raw
    }
  }
}

/** A value as the read view and Review show it: numbers unformatted, as the file stores them. */
export function displayText(value: XlsxScalar): string {
  if (value === null) return ''
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'number') return formatNumber(value)
  if (typeof value === 'string') return value
  return value.error
}

/** Up to 15 significant digits, like a spreadsheet shows a General number (0.1+0.2 is 0.3). */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value)
  return String(Number(value.toPrecision(15)))
}

export function sheetByName(model: WorkbookModel, name: string): ModelSheet | undefined {
  // Sheet names are case-insensitive in every spreadsheet app.
  return (
    model.sheets.find((s) => s.name === name) ?? model.sheets.find((s) => s.name.toLowerCase() === name.toLowerCase())
  )
}

export function rangeText(range: Range): string {
  const from = formatAddress(range.from)
  const to = formatAddress(range.to)
  return from === to ? from : `${from}:${to}`
}

/** `Data`, `'Q1 figures'`: a sheet name as a formula or a range argument writes it. */
export function quoteSheetName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}[0-9]+$/.test(name)
    ? name
    : `'${name.replace(/'/g, "''")}'`
}
