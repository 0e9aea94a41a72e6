import { relationshipsOf } from './opc'
import {
  MAIN_NS,
  cellsOf,
  columnName,
  dropCalcChain,
  openWorkbook,
  rowsOf,
  withFullCalcOnLoad,
  type Workbook,
} from './xlsx'
import { shiftFormula } from './xlsx-formula-text'
import { columnNumber, shiftReferences, type Shift } from './xlsx-structure-refs'
import {
  applySplices,
  attributesAt,
  children,
  decodeEntities,
  escapeText,
  findAll,
  findFirst,
  prefixFor,
  withAttribute,
  type Splice,
} from './xml'
import { PackageError } from './zip'

/**
 * Inserting and deleting whole rows or columns of a sheet (issue 27), as a patch: every reference
 * to the moved cells follows them — cell positions, formulas in every sheet that point into the
 * sheet, shared and array formula ranges, merges, defined names, conditional formatting and data
 * validation ranges and formulas, hyperlinks, the auto-filter, the dimension and column widths.
 * A reference to a deleted cell becomes `#REF!`, as in Excel. All or nothing: what cannot be moved
 * safely (tables, pivot sources, charts and pictures anchored to cells, comments, an array formula
 * or a shared formula the line would cut) is refused with the reason, and nothing is written.
 * Untouched parts stay byte-identical.
 */

export type StructureEdit = {
  readonly sheet: string
  readonly axis: 'row' | 'column'
  /** 1-based index of the first row or column inserted or deleted. */
  readonly at: number
  /** Rows or columns: positive inserts before `at`, negative deletes from `at`. */
  readonly count: number
}

export type StructureRefusal =
  | 'no-such-sheet'
  | 'bad-position'
  | 'out-of-sheet'
  | 'table'
  | 'pivot-source'
  | 'anchored-objects'
  | 'array-formula'
  | 'shared-formula'
  | 'extension-ranges'
  | 'damaged'

export type StructureOutcome =
  | { kind: 'ok'; bytes: Uint8Array; changedParts: string[] }
  | { kind: 'refused'; reason: StructureRefusal; message: string }

const MAX_ROW = 1_048_576
const MAX_COLUMN = 16_384
/** One call moves at most this many rows or columns (a hostile count is not an edit). */
export const STRUCTURE_MAX_COUNT = 10_000

class Refused extends Error {
  constructor(
    readonly reason: StructureRefusal,
    message: string,
  ) {
    super(message)
  }
}

function shiftOf(edit: StructureEdit): Shift {
  const limit = edit.axis === 'row' ? MAX_ROW : MAX_COLUMN
  if (edit.count > 0) {
    const n = edit.count
    return {
      axis: edit.axis,
      limit,
      index: (i) => (i >= edit.at ? i + n : i),
      span: (from, to) => [from >= edit.at ? from + n : from, to >= edit.at ? to + n : to],
      cuts: (from, to) => from < edit.at && to >= edit.at,
    }
  }
  const first = edit.at
  const last = edit.at - edit.count - 1
  return {
    axis: edit.axis,
    limit,
    index: (i) => (i < first ? i : i > last ? i + edit.count : null),
    span: (from, to) => {
      const start = from < first ? from : from > last ? from + edit.count : first
      const end = to < first ? to : to > last ? to + edit.count : first - 1
      return end < start ? null : [start, end]
    },
    cuts: (from, to) => !(to < first || from > last) && !(from >= first && to <= last),
  }
}

export async function editXlsxStructure(bytes: Uint8Array, edit: StructureEdit): Promise<StructureOutcome> {
  try {
    return await apply(bytes, edit)
  } catch (error) {
    if (error instanceof Refused) return { kind: 'refused', reason: error.reason, message: error.message }
    if (error instanceof PackageError) return { kind: 'refused', reason: 'damaged', message: error.message }
    throw error
  }
}

async function apply(bytes: Uint8Array, edit: StructureEdit): Promise<StructureOutcome> {
  const book = await openWorkbook(bytes)
  const sheet = book.sheets.find((s) => s.name === edit.sheet)
  if (!sheet) throw new Refused('no-such-sheet', `There is no sheet "${edit.sheet}".`)
  const noun = edit.axis === 'row' ? 'row' : 'column'
  const limit = edit.axis === 'row' ? MAX_ROW : MAX_COLUMN
  if (!Number.isInteger(edit.at) || edit.at < 1 || edit.at > limit) {
    throw new Refused('bad-position', `${edit.at} is not a ${noun} of a sheet.`)
  }
  if (!Number.isInteger(edit.count) || edit.count === 0 || Math.abs(edit.count) > STRUCTURE_MAX_COUNT) {
    throw new Refused('bad-position', `One edit inserts or deletes 1 to ${STRUCTURE_MAX_COUNT} ${noun}s.`)
  }
  if (edit.count < 0 && edit.at - edit.count - 1 > limit) {
    throw new Refused('bad-position', `The sheet has no ${noun} ${edit.at - edit.count - 1}.`)
  }
  const shift = shiftOf(edit)
  await refuseUnmovable(book, sheet.part, edit)

  const changes = new Map<string, string | null>()
  for (const other of book.sheets) {
    const xml = await book.pkg.textOrNull(other.part)
    if (xml === null) continue
    const patched =
      other.part === sheet.part ? patchTargetSheet(xml, edit, shift) : patchOtherSheet(xml, other.name, edit, shift)
    if (patched !== xml) changes.set(other.part, patched)
  }
  // Cells moved: the calculation chain names cells by position; it is a cache Excel rebuilds.
  await dropCalcChain(book, changes)
  changes.set(book.part, patchDefinedNames(await withFullCalcOnLoad(book), edit, shift, book))
  return { kind: 'ok', bytes: await book.pkg.rewrite(changes), changedParts: [...changes.keys()] }
}

async function refuseUnmovable(book: Workbook, sheetPart: string, edit: StructureEdit): Promise<void> {
  for (const rel of await relationshipsOf(book.pkg, sheetPart)) {
    if (rel.type === 'table') {
      throw new Refused(
        'table',
        `The sheet "${edit.sheet}" has a table; insert or delete ${edit.axis}s in a spreadsheet app, which moves the table with them.`,
      )
    }
    if (
      rel.type === 'drawing' ||
      rel.type === 'vmlDrawing' ||
      rel.type === 'comments' ||
      rel.type === 'threadedComment'
    ) {
      throw new Refused(
        'anchored-objects',
        `The sheet "${edit.sheet}" has charts, pictures or comments anchored to its cells, which are not moved yet; insert or delete ${edit.axis}s in a spreadsheet app.`,
      )
    }
  }
  const sheetXml = (await book.pkg.textOrNull(sheetPart)) ?? ''
  // Excel 2010+ keeps some rules and validations in the sheet's extension list (`xm:sqref`,
  // `xm:f`), in a namespace this patcher does not rewrite: moving cells under them would detach them.
  if (/<[A-Za-z0-9]+:sqref\b/.test(sheetXml) || /<x14:conditionalFormatting\b|<x14:dataValidation\b/.test(sheetXml)) {
    throw new Refused(
      'extension-ranges',
      `The sheet "${edit.sheet}" has conditional formatting or data validation in Excel 2010's extension format, which is not moved yet; insert or delete ${edit.axis}s in a spreadsheet app.`,
    )
  }
  const quoted = new RegExp(`(^|[^A-Za-z0-9_.])'?${escapeRegExp(edit.sheet)}'?!`)
  for (const name of book.pkg.names) {
    if (/^xl\/pivotCache\/pivotCacheDefinition\d*\.xml$/.test(name)) {
      const xml = (await book.pkg.textOrNull(name)) ?? ''
      const source = findAll(xml, `${prefixFor(xml, MAIN_NS) ?? ''}worksheetSource`).some(
        (s) => attributesAt(xml, s.start).get('sheet') === edit.sheet,
      )
      if (source) {
        throw new Refused(
          'pivot-source',
          `A pivot table reads its data from "${edit.sheet}"; insert or delete ${edit.axis}s in a spreadsheet app, which moves its source range.`,
        )
      }
    }
    if (/^xl\/charts\/chart\d*\.xml$/.test(name)) {
      const xml = (await book.pkg.textOrNull(name)) ?? ''
      if (findAll(xml, 'c:f').some((f) => quoted.test(decodeEntities(xml.slice(f.innerStart, f.innerEnd))))) {
        throw new Refused(
          'anchored-objects',
          `A chart reads its data from "${edit.sheet}", which is not moved yet; insert or delete ${edit.axis}s in a spreadsheet app.`,
        )
      }
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The target sheet: cells moved or dropped, its own formulas and ranges shifted. */
function patchTargetSheet(xml: string, edit: StructureEdit, shift: Shift): string {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const splices: Splice[] = []
  const moveFormula = (formula: string) => shiftReferences(formula, edit.sheet, edit, shift)
  const data = findFirst(xml, `${p}sheetData`)
  const sharedMasters = new Map<string, { formula: string; row: number; column: number; moved: string }>()
  const sharedDependents: Array<{ si: string; row: number; column: number; newRow: number; newColumn: number }> = []

  if (data) {
    for (const row of rowsOf(xml, data, p)) {
      const newRow = edit.axis === 'row' ? shift.index(row.row) : row.row
      if (newRow === null) {
        splices.push({ start: row.element.start, end: row.element.end, text: '' })
        continue
      }
      if (newRow > MAX_ROW) throw new Refused('out-of-sheet', `Row ${row.row} would move past the sheet's last row.`)
      let rowTag = withAttribute(xml, row.element.start, 'r', String(newRow))
      // `spans` is an optional hint of the row's first and last columns: dropped rather than recomputed.
      if (edit.axis === 'column') rowTag = withAttribute(rowTag, 0, 'spans', null)
      const rowTagEnd = row.element.empty ? row.element.end : row.element.innerStart
      if (rowTag !== xml.slice(row.element.start, rowTagEnd)) {
        splices.push({ start: row.element.start, end: rowTagEnd, text: rowTag })
      }
      for (const cell of cellsOf(xml, row, p)) {
        const newColumn = edit.axis === 'column' ? shift.index(cell.column) : cell.column
        if (newColumn === null) {
          splices.push({ start: cell.element.start, end: cell.element.end, text: '' })
          continue
        }
        if (newColumn > MAX_COLUMN) {
          throw new Refused(
            'out-of-sheet',
            `Column ${columnName(cell.column)} would move past the sheet's last column.`,
          )
        }
        const address = `${columnName(newColumn)}${newRow}`
        const cellTagEnd = cell.element.empty ? cell.element.end : cell.element.innerStart
        const cellTag = withAttribute(xml, cell.element.start, 'r', address)
        if (cellTag !== xml.slice(cell.element.start, cellTagEnd)) {
          splices.push({ start: cell.element.start, end: cellTagEnd, text: cellTag })
        }
        if (cell.element.empty) continue
        const f = children(xml, cell.element).find((c) => c.name === `${p}f`)
        if (!f) continue
        const attributes = attributesAt(xml, f.start)
        const type = attributes.get('t')
        const ref = attributes.get('ref')
        if (ref !== undefined) {
          const range = parseRef(ref)
          if (range && type === 'array' && cutsRange(shift, range)) {
            throw new Refused(
              'array-formula',
              `The array formula over ${ref} would be cut by the ${edit.axis === 'row' ? 'rows' : 'columns'} changed; change it in a spreadsheet app.`,
            )
          }
          if (range && type === 'shared' && cutsRange(shift, range)) {
            throw new Refused(
              'shared-formula',
              `The formula shared by ${ref} would be cut by the ${edit.axis === 'row' ? 'rows' : 'columns'} changed; insert or delete them in a spreadsheet app.`,
            )
          }
        }
        const text = f.empty ? '' : decodeEntities(xml.slice(f.innerStart, f.innerEnd))
        const si = attributes.get('si')
        if (type === 'shared' && si !== undefined) {
          if (text !== '') sharedMasters.set(si, { formula: text, row: cell.row, column: cell.column, moved: '' })
          else sharedDependents.push({ si, row: cell.row, column: cell.column, newRow, newColumn })
        }
        let fTag = xml.slice(f.start, f.empty ? f.end : f.innerStart)
        if (ref !== undefined) {
          const moved = moveRangeList(ref, shift)
          fTag = withAttribute(fTag, 0, 'ref', moved === '' ? address : moved)
        }
        const movedText = text === '' ? text : moveFormula(text)
        if (si !== undefined && text !== '') {
          const master = sharedMasters.get(si)
          if (master) master.moved = movedText
        }
        if (fTag !== xml.slice(f.start, f.empty ? f.end : f.innerStart)) {
          splices.push({ start: f.start, end: f.empty ? f.end : f.innerStart, text: fTag })
        }
        if (movedText !== text) {
          splices.push({ start: f.innerStart, end: f.innerEnd, text: escapeText(movedText) })
          // A deletion can change the result (a range lost cells); the stale value is dropped so
          // every app computes it again. An insertion changes no result.
          if (edit.count < 0) {
            const v = children(xml, cell.element).find((c) => c.name === `${p}v`)
            if (v) splices.push({ start: v.start, end: v.end, text: '' })
          }
        }
      }
    }
  }
  // A shared formula stays one formula only if every cell of it still means the master moved by
  // its offset; otherwise the sheet would silently compute something else.
  for (const dependent of sharedDependents) {
    const master = sharedMasters.get(dependent.si)
    if (!master) continue
    const before = moveFormula(
      shiftFormula(master.formula, dependent.row - master.row, dependent.column - master.column),
    )
    const newMasterRow = edit.axis === 'row' ? (shift.index(master.row) ?? master.row) : master.row
    const newMasterColumn = edit.axis === 'column' ? (shift.index(master.column) ?? master.column) : master.column
    const after = shiftFormula(master.moved, dependent.newRow - newMasterRow, dependent.newColumn - newMasterColumn)
    if (before !== after) {
      throw new Refused(
        'shared-formula',
        `The formula ${columnName(dependent.column)}${dependent.row} shares with ${columnName(master.column)}${master.row} would no longer be the same formula moved; insert or delete the ${edit.axis}s in a spreadsheet app.`,
      )
    }
  }

  const cellSplices = splices.splice(0, splices.length)
  const rangeAttribute = (name: string, attribute: string, removeWhenGone: boolean) => {
    for (const element of findAll(xml, `${p}${name}`)) {
      const value = attributesAt(xml, element.start).get(attribute)
      if (value === undefined) continue
      const moved = moveRangeList(value, shift)
      if (moved === value) continue
      if (moved === '' && removeWhenGone) {
        splices.push({ start: element.start, end: element.end, text: '' })
        continue
      }
      const end = element.empty ? element.end : element.innerStart
      splices.push({ start: element.start, end, text: withAttribute(xml, element.start, attribute, moved || 'A1') })
    }
  }
  rangeAttribute('dimension', 'ref', false)
  rangeAttribute('mergeCell', 'ref', true)
  rangeAttribute('hyperlink', 'ref', true)
  rangeAttribute('autoFilter', 'ref', true)
  rangeAttribute('conditionalFormatting', 'sqref', true)
  rangeAttribute('dataValidation', 'sqref', true)
  for (const name of ['formula', 'formula1', 'formula2']) {
    for (const element of findAll(xml, `${p}${name}`)) {
      if (element.empty) continue
      const text = decodeEntities(xml.slice(element.innerStart, element.innerEnd))
      const moved = moveFormula(text)
      if (moved !== text) splices.push({ start: element.innerStart, end: element.innerEnd, text: escapeText(moved) })
    }
  }
  if (edit.axis === 'column') splices.push(...moveColumnWidths(xml, p, shift))
  return applySplices(xml, [...cellSplices, ...dropNested(splices)])
}

/** Splices inside a removed element (a deleted row, a dropped merge) are dropped with it. */
function dropNested(splices: Splice[]): Splice[] {
  const removals = splices.filter((s) => s.text === '' && s.end > s.start)
  return splices.filter(
    (s) =>
      !removals.some((r) => r !== s && r.start <= s.start && s.end <= r.end && (r.start < s.start || s.end < r.end)),
  )
}

function moveColumnWidths(xml: string, p: string, shift: Shift): Splice[] {
  const cols = findFirst(xml, `${p}cols`)
  if (!cols) return []
  const splices: Splice[] = []
  for (const col of children(xml, cols)) {
    const attributes = attributesAt(xml, col.start)
    const min = Number(attributes.get('min'))
    const max = Number(attributes.get('max'))
    if (!Number.isInteger(min) || !Number.isInteger(max)) continue
    const span = shift.span(min, Math.min(max, MAX_COLUMN))
    if (span === null) {
      splices.push({ start: col.start, end: col.end, text: '' })
      continue
    }
    const [from, to] = [span[0], Math.min(span[1], MAX_COLUMN)]
    if (from === min && to === max) continue
    let tag = withAttribute(xml, col.start, 'min', String(from))
    tag = withAttribute(tag, 0, 'max', String(to))
    splices.push({ start: col.start, end: col.empty ? col.end : col.innerStart, text: tag })
  }
  return splices
}

/** Another sheet: only its formulas that name the target sheet change. */
function patchOtherSheet(xml: string, ownName: string, edit: StructureEdit, shift: Shift): string {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const splices: Splice[] = []
  for (const name of ['f', 'formula', 'formula1', 'formula2']) {
    for (const element of findAll(xml, `${p}${name}`)) {
      if (element.empty) continue
      const text = decodeEntities(xml.slice(element.innerStart, element.innerEnd))
      const moved = shiftReferences(text, ownName, edit, shift)
      if (moved === text) continue
      splices.push({ start: element.innerStart, end: element.innerEnd, text: escapeText(moved) })
      // As on the sheet itself: after a deletion the cached result may be stale, so it is dropped.
      const cached =
        name === 'f' && edit.count < 0
          ? new RegExp(`^<${p}v>[^<]*</${p}v>`).exec(xml.slice(element.end, element.end + 400))
          : null
      if (cached) splices.push({ start: element.end, end: element.end + cached[0].length, text: '' })
    }
  }
  return splices.length === 0 ? xml : applySplices(xml, splices)
}

function patchDefinedNames(xml: string, edit: StructureEdit, shift: Shift, book: Workbook): string {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const splices: Splice[] = []
  for (const element of findAll(xml, `${p}definedName`)) {
    if (element.empty) continue
    const local = attributesAt(xml, element.start).get('localSheetId')
    // An unqualified reference in a name local to a sheet means that sheet; in a global name, no sheet.
    const own = local === undefined ? '' : (book.sheets[Number(local)]?.name ?? '')
    const text = decodeEntities(xml.slice(element.innerStart, element.innerEnd))
    const moved = shiftReferences(text, own, edit, shift)
    if (moved !== text) splices.push({ start: element.innerStart, end: element.innerEnd, text: escapeText(moved) })
  }
  return splices.length === 0 ? xml : applySplices(xml, splices)
}

interface RefRange {
  readonly from: { column: number; row: number }
  readonly to: { column: number; row: number }
}

function parseRef(ref: string): RefRange | undefined {
  const [a, b] = ref.split(':')
  const from = cellOf(a ?? '')
  const to = b === undefined ? from : cellOf(b)
  return from && to ? { from, to } : undefined
}

function cellOf(text: string): { column: number; row: number } | undefined {
  const match = /^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$/.exec(text)
  if (!match) return undefined
  return { column: columnNumber(match[1] ?? ''), row: Number(match[2]) }
}

function cutsRange(shift: Shift, range: RefRange): boolean {
  return shift.axis === 'row'
    ? shift.cuts(range.from.row, range.to.row)
    : shift.cuts(range.from.column, range.to.column)
}

/** A space-separated list of ranges (`sqref`) moved; ranges wholly deleted are left out ('' when none remain). */
function moveRangeList(list: string, shift: Shift): string {
  return list
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((ref) => {
      const range = parseRef(ref)
      if (!range) return [ref]
      const span =
        shift.axis === 'row' ? shift.span(range.from.row, range.to.row) : shift.span(range.from.column, range.to.column)
      if (span === null) return []
      const [start, end] = [span[0], Math.min(span[1], shift.limit)]
      const from = shift.axis === 'row' ? { ...range.from, row: start } : { ...range.from, column: start }
      const to = shift.axis === 'row' ? { ...range.to, row: end } : { ...range.to, column: end }
      const a = `${columnName(from.column)}${from.row}`
      const b = `${columnName(to.column)}${to.row}`
      return [ref.includes(':') ? `${a}:${b}` : a]
    })
    .join(' ')
}
