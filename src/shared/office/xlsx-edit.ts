import type { DocumentEdit, DocumentEditOutcome, DocumentEditRefusalReason } from './document-edits'
import {
  MAIN_NS,
  TagEdits,
  cellXml,
  cellsOf,
  dropCalcChain,
  formatAddress,
  formatRange,
  inRange,
  parseCellInput,
  parseRange,
  rowsOf,
  tableHeaderRows,
  withFullCalcOnLoad,
  type CellInput,
  type PlacedCell,
  type Range,
} from './xlsx'
import { formulaSyntaxProblem, withFutureFunctionPrefixes } from './xlsx-formula-text'
import { recalculate, type CalcCell, type CalcCellRef, type NotEvaluated } from './xlsx-calc'
import {
  cellKey,
  displayText,
  keyColumn,
  keyRow,
  loadWorkbookModel,
  quoteSheetName,
  rangeText,
  refusalOf,
  type ModelSheet,
  type WorkbookModel,
  type XlsxScalar,
} from './xlsx-model'
import { mergeAt, resolveRange } from './xlsx-range'
import { PackageError } from './zip'
import { applySplices, attributesAt, escapeText, findFirst, prefixFor, withAttribute, type Splice } from './xml'

/**
 * `office_edit` on a XLSX: `set_cells` only. Every edit of a call is checked before anything is
 * written (all or nothing); then the dependent formulas are recalculated and their cached `<v>`
 * rewritten, so every app — LibreOffice included, which does not honour `fullCalcOnLoad` — shows
 * correct totals at once. Changed parts: the sheets whose cells or cached results changed, the
 * workbook part (`fullCalcOnLoad="1"`, so Excel recomputes with its own engine anyway), and the
 * calculation chain only when a formula is added or removed (it is dropped: a cache Excel
 * rebuilds, and a chain naming a cell that lost its formula makes Excel repair the file).
 * Strings are written inline, as the grid's `editCell` does: the shared-string table and every
 * other cell's index into it stay untouched.
 */

/** Cells one call may set: a model's arguments are hostile, a 10 000 × 1 000 array is not an edit. */
export const XLSX_EDIT_MAX_CELLS = 100_000

interface PlannedSheet {
  readonly index: number
  readonly inputs: Map<number, CellInput>
}

export async function editXlsx(bytes: Uint8Array, edits: readonly DocumentEdit[]): Promise<DocumentEditOutcome> {
  const loaded = await loadWorkbookModel(bytes)
  if (loaded.kind === 'refused') return refused(loaded.reason, loaded.message, null)
  const model = loaded.model
  try {
    return await applyEdits(model, edits)
  } catch (error) {
    const refusal = refusalOf(error)
    return refused(refusal.reason, refusal.message, null)
  }
}

async function applyEdits(model: WorkbookModel, edits: readonly DocumentEdit[]): Promise<DocumentEditOutcome> {
  const planned = new Map<number, PlannedSheet>()
  const ownersBySheet = new Map<number, FormulaOwners>()
  const tablesBySheet = new Map<number, Awaited<ReturnType<typeof tableHeaderRows>>>()
  const summary: string[] = []
  let total = 0
  for (const [index, edit] of edits.entries()) {
    if (edit.op !== 'set_cells') {
      return refused(
        'wrong-format',
        `Edit ${index + 1} is "${edit.op}", which applies to Word or PowerPoint files; a workbook takes only "set_cells".`,
        index,
      )
    }
    const target = resolveRange(model, edit.range, edit.sheet, false)
    if (target.kind === 'refused') return refused(target.reason, target.message, index)
    const { sheet, sheetIndex } = target
    const range = target.range
    if (!range) return refused('missing-anchor', `"${edit.range}" is not a range of cells.`, index)
    const label = `${quoteSheetName(sheet.name)}!${rangeText(range)}`
    const rows = range.to.row - range.from.row + 1
    const columns = range.to.column - range.from.column + 1
    total += rows * columns
    if (total > XLSX_EDIT_MAX_CELLS) {
      return refused('too-large', `One call may set at most ${XLSX_EDIT_MAX_CELLS} cells; split the edits.`, index)
    }
    const badRow = edit.values.findIndex((row) => row.length !== columns)
    if (edit.values.length !== rows || badRow !== -1) {
      const got =
        edit.values.length !== rows
          ? `values has ${edit.values.length} row${edit.values.length === 1 ? '' : 's'}`
          : `row ${badRow + 1} of values has ${edit.values[badRow]?.length ?? 0} value${edit.values[badRow]?.length === 1 ? '' : 's'}`
      return refused(
        'shape-mismatch',
        `${label} is ${rows} row${rows === 1 ? '' : 's'} × ${columns} column${columns === 1 ? '' : 's'}, but ${got}.`,
        index,
      )
    }
    const tables = tablesBySheet.get(sheetIndex) ?? (await tableHeaderRows(model.book.pkg, sheet.part))
    tablesBySheet.set(sheetIndex, tables)
    const formulaOwners = ownersBySheet.get(sheetIndex) ?? formulaOwnersOf(sheet)
    ownersBySheet.set(sheetIndex, formulaOwners)
    const plan = planned.get(sheetIndex) ?? { index: sheetIndex, inputs: new Map<number, CellInput>() }
    let cleared = 0
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const row = range.from.row + r
        const column = range.from.column + c
        const input = inputOf(edit.values[r]?.[c] ?? null)
        const address = formatAddress({ row, column })
        const merge = mergeAt(sheet, row, column)
        // A cell a merge covers shows nothing; clearing it (null) is harmless and lets a model set
        // a merged title with the merge's whole row of values.
        if (merge && (merge.from.row !== row || merge.from.column !== column) && input.kind !== 'empty') {
          return refused(
            'merged-cell',
            `${quoteSheetName(sheet.name)}!${address} is inside the merged cells ${formatRange(merge)}; only ${formatAddress(merge.from)} can hold a value.`,
            index,
          )
        }
        const blocked = formulaBlock(formulaOwners, row, column, range)
        if (blocked)
          return refused('unsupported-content', `${quoteSheetName(sheet.name)}!${address} ${blocked}.`, index)
        const header = tables.find((t) => row === t.range.from.row && inRange(t.range, { row, column }))
        if (header) {
          return refused(
            'unsupported-content',
            `${quoteSheetName(sheet.name)}!${address} is a column name of the table "${header.name}"; rename the column in a spreadsheet app.`,
            index,
          )
        }
        if (input.kind === 'number' && !Number.isFinite(input.value)) {
          return refused(
            'unsupported-content',
            `${quoteSheetName(sheet.name)}!${address}: a cell holds only finite numbers.`,
            index,
          )
        }
        if (input.kind === 'formula') {
          const problem = formulaSyntaxProblem(input.formula)
          if (problem) {
            return refused(
              'unsupported-content',
              `${quoteSheetName(sheet.name)}!${address}: "=${input.formula}" is not a formula a spreadsheet app can read (${problem}).`,
              index,
            )
          }
        }
        if (input.kind === 'empty') cleared++
        plan.inputs.set(cellKey(row, column), input)
      }
    }
    planned.set(sheetIndex, plan)
    const count = rows * columns
    summary.push(`${label}: ${count} cell${count === 1 ? '' : 's'} set${cleared > 0 ? ` (${cleared} cleared)` : ''}`)
  }

  // The workbook as it will be, for the formula engine.
  const calcSheets = model.sheets.map((sheet, index) => {
    const plan = planned.get(index)
    if (!plan) return { name: sheet.name, cells: sheet.cells as ReadonlyMap<number, CalcCell> }
    const cells = new Map<number, CalcCell>(sheet.cells)
    for (const [key, input] of plan.inputs) {
      const cell = calcCellOf(input)
      if (cell) cells.set(key, cell)
      else cells.delete(key)
    }
    return { name: sheet.name, cells }
  })
  const changed: CalcCellRef[] = [...planned.values()].flatMap((plan) =>
    [...plan.inputs.keys()].map((key) => ({ sheet: plan.index, key })),
  )
  const recalc = recalculate({ sheets: calcSheets, names: model.names, date1904: model.date1904 }, changed)

  const changes = new Map<string, string | null>()
  const recalculated: string[] = []
  const newFormulas: string[] = []
  const leftForApp: string[] = []
  let formulaAddedOrRemoved = false
  for (const [index, sheet] of model.sheets.entries()) {
    const inputs = planned.get(index)?.inputs ?? new Map<number, CellInput>()
    const computed = recalc.values.get(index) ?? new Map<number, XlsxScalar>()
    const unknown = recalc.notEvaluated.get(index) ?? new Map<number, NotEvaluated>()
    // Cached results to rewrite in cells this call does not set: only where the value changed.
    const updates = new Map<number, XlsxScalar | undefined>()
    for (const [key, value] of computed) {
      if (inputs.has(key)) continue
      const before = sheet.cells.get(key)?.value ?? null
      if (!sameValue(before, value)) {
        updates.set(key, value)
        recalculated.push(
          `${quoteSheetName(sheet.name)}!${formatAddress({ row: keyRow(key), column: keyColumn(key) })} = ${displayText(value)}`,
        )
      }
    }
    for (const [key, why] of unknown) {
      if (inputs.has(key)) continue
      // A stale total is worse than none: without a cached value every app computes the cell itself.
      updates.set(key, undefined)
      leftForApp.push(
        `${quoteSheetName(sheet.name)}!${formatAddress({ row: keyRow(key), column: keyColumn(key) })} (${why.detail})`,
      )
    }
    for (const [key, input] of inputs) {
      const hadFormula = sheet.cells.get(key)?.formula !== undefined
      if (hadFormula !== (input.kind === 'formula')) formulaAddedOrRemoved = true
      if (input.kind !== 'formula') continue
      const value = computed.get(key)
      const address = `${quoteSheetName(sheet.name)}!${formatAddress({ row: keyRow(key), column: keyColumn(key) })}`
      if (value !== undefined) newFormulas.push(`${address} = ${displayText(value)}`)
      const why = unknown.get(key)
      if (why)
        leftForApp.push(
          `${quoteSheetName(sheet.name)}!${formatAddress({ row: keyRow(key), column: keyColumn(key) })} (${why.detail})`,
        )
    }
    if (inputs.size === 0 && updates.size === 0) continue
    const xml = await model.book.pkg.text(sheet.part)
    const patched = patchSheet(xml, sheet, inputs, computed, updates)
    if (patched !== xml) changes.set(sheet.part, patched)
  }
  changes.set(model.book.part, await withFullCalcOnLoad(model.book))
  if (formulaAddedOrRemoved) await dropCalcChain(model.book, changes)

  const tail: string[] = []
  if (newFormulas.length > 0) {
    tail.push(
      `formula result${newFormulas.length === 1 ? '' : 's'}: ${newFormulas.slice(0, 10).join(', ')}${newFormulas.length > 10 ? ', …' : ''}`,
    )
  }
  if (recalculated.length > 0) {
    const shown = recalculated.slice(0, 10).join(', ')
    tail.push(
      `${recalculated.length} dependent formula${recalculated.length === 1 ? '' : 's'} recalculated (${shown}${recalculated.length > 10 ? ', …' : ''})`,
    )
  }
  if (leftForApp.length > 0) {
    const shown = leftForApp.slice(0, 5).join('; ')
    tail.push(
      `${leftForApp.length} formula${leftForApp.length === 1 ? '' : 's'} left for the spreadsheet app to recalculate: ${shown}${leftForApp.length > 5 ? '; …' : ''}`,
    )
  }
  if (tail.length > 0 && summary.length > 0) summary[summary.length - 1] += `; ${tail.join('; ')}`
  return { kind: 'ok', bytes: await model.book.pkg.rewrite(changes), summary }
}

/**
 * What the model's JSON value means in a cell. Numbers and booleans are typed as given; a string
 * reads as a person's typing does in a spreadsheet (`=…` a formula, "1250" a number, "TRUE" a
 * boolean), except that a leading apostrophe keeps it text ("'00123"), as in Excel.
 */
export function inputOf(value: string | number | boolean | null): CellInput {
  if (value === null) return { kind: 'empty' }
  if (typeof value === 'number') return { kind: 'number', value }
  if (typeof value === 'boolean') return { kind: 'boolean', value }
  if (value.startsWith("'")) return { kind: 'string', value: value.slice(1) }
  const input = parseCellInput(value)
  return input.kind === 'formula' ? { kind: 'formula', formula: withFutureFunctionPrefixes(input.formula) } : input
}

function calcCellOf(input: CellInput): CalcCell | undefined {
  switch (input.kind) {
    case 'empty':
      return undefined
    case 'formula':
      return { value: null, formula: input.formula, formulaType: 'normal' }
    case 'number':
    case 'boolean':
    case 'string':
      return { value: input.value }
  }
}

interface FormulaOwners {
  readonly arrays: ReadonlyArray<{ ref: string; range: Range }>
  /** Shared formulas' first cells, by cell key. */
  readonly sharedMasters: ReadonlyMap<number, { ref: string; range: Range }>
}

function formulaOwnersOf(sheet: ModelSheet): FormulaOwners {
  const arrays: Array<{ ref: string; range: Range }> = []
  const sharedMasters = new Map<number, { ref: string; range: Range }>()
  for (const cell of sheet.cells.values()) {
    const range = cell.formulaRef === undefined ? undefined : parseRange(cell.formulaRef)
    if (!range || cell.formulaRef === undefined) continue
    if (cell.formulaType === 'array') arrays.push({ ref: cell.formulaRef, range })
    else if (cell.formulaType === 'shared')
      sharedMasters.set(cellKey(cell.row, cell.column), { ref: cell.formulaRef, range })
  }
  return { arrays, sharedMasters }
}

/** Why a cell cannot be set on its own: it belongs to an array formula or heads a shared one. */
function formulaBlock(owners: FormulaOwners, row: number, column: number, editRange: Range): string | undefined {
  const array = owners.arrays.find(({ range }) => inRange(range, { row, column }))
  if (array) return `is part of the array formula over ${array.ref}; change it in a spreadsheet app`
  const shared = owners.sharedMasters.get(cellKey(row, column))
  if (shared && !(inRange(editRange, shared.range.from) && inRange(editRange, shared.range.to))) {
    return `holds the formula the cells ${shared.ref} share; set all of ${shared.ref} in one edit`
  }
  return undefined
}

export function sameValue(a: XlsxScalar, b: XlsxScalar): boolean {
  if (a === null || b === null) return a === b
  if (typeof a === 'object' || typeof b === 'object') {
    return typeof a === 'object' && typeof b === 'object' && a.error === b.error
  }
  if (typeof a === 'number' && typeof b === 'number') return displayText(a) === displayText(b)
  return a === b
}

/** A cached value as `<v>` holds it and the cell's `t` for it (null: no `t`, a number). */
function storedValue(value: XlsxScalar): { text: string; type: string | null } | undefined {
  if (value === null) return undefined
  if (typeof value === 'number') return { text: String(value), type: null }
  if (typeof value === 'boolean') return { text: value ? '1' : '0', type: 'b' }
  if (typeof value === 'string') return { text: value, type: 'str' }
  return { text: value.error, type: 'e' }
}

function newCellXml(
  p: string,
  row: number,
  column: number,
  style: string | undefined,
  input: CellInput,
  value: XlsxScalar | undefined,
): string {
  const address = formatAddress({ row, column })
  if (input.kind !== 'formula') return cellXml(p, address, style, input)
  const stored = value === undefined ? undefined : storedValue(value)
  const s = style === undefined ? '' : ` s="${style}"`
  const t = stored?.type ? ` t="${stored.type}"` : ''
  const v = stored ? `<${p}v>${escapeText(stored.text)}</${p}v>` : ''
  return `<${p}c r="${address}"${s}${t}><${p}f>${escapeText(input.formula)}</${p}f>${v}</${p}c>`
}

function patchSheet(
  xml: string,
  sheet: ModelSheet,
  inputs: ReadonlyMap<number, CellInput>,
  computed: ReadonlyMap<number, XlsxScalar>,
  updates: ReadonlyMap<number, XlsxScalar | undefined>,
): string {
  const p = prefixFor(xml, MAIN_NS) ?? ''
  const data = findFirst(xml, `${p}sheetData`)
  if (!data) throw new PackageError('corrupt', `The sheet "${sheet.name}" has no cell data.`)
  const splices: Splice[] = []
  const tags = new TagEdits(xml)
  const rows = rowsOf(xml, data, p)
  const rowByNumber = new Map(rows.map((r) => [r.row, r]))
  const byRow = new Map<number, Array<[number, CellInput]>>()
  for (const [key, input] of inputs) {
    const list = byRow.get(keyRow(key)) ?? []
    list.push([keyColumn(key), input])
    byRow.set(keyRow(key), list)
  }
  const cellsByRow = new Map<number, PlacedCell[]>()
  const cellsIn = (row: (typeof rows)[number]) => {
    const known = cellsByRow.get(row.row)
    if (known) return known
    const cells = cellsOf(xml, row, p)
    cellsByRow.set(row.row, cells)
    return cells
  }
  const valueFor = (row: number, column: number) => computed.get(cellKey(row, column))
  const newRows: Array<{ at: number; row: number; text: string }> = []
  let rowsMadeExplicit = false
  for (const [rowNumber, list] of [...byRow].sort((a, b) => a[0] - b[0])) {
    list.sort((a, b) => a[0] - b[0])
    const row = rowByNumber.get(rowNumber)
    if (row) {
      const cells = cellsIn(row)
      const edited = new Set(list.map(([column]) => column))
      // Cells after an inserted one would shift if they relied on implicit positions.
      for (const c of cells) if (!c.explicit && !edited.has(c.column)) tags.set(c.element, 'r', formatAddress(c))
      const inserts = new Map<number, string>()
      for (const [column, input] of list) {
        const existing = cells.find((c) => c.column === column)
        if (existing) {
          const style = attributesAt(xml, existing.element.start).get('s')
          splices.push({
            start: existing.element.start,
            end: existing.element.end,
            text: newCellXml(p, rowNumber, column, style, input, valueFor(rowNumber, column)),
          })
        } else if (input.kind !== 'empty') {
          const after = cells.find((c) => c.column > column)
          const at = after ? after.element.start : row.element.innerEnd
          inserts.set(
            at,
            (inserts.get(at) ?? '') + newCellXml(p, rowNumber, column, undefined, input, valueFor(rowNumber, column)),
          )
        }
      }
      if (row.element.empty) {
        const text = [...inserts.values()].join('')
        if (text !== '') {
          const open = withAttribute(xml, row.element.start, 'r', String(row.row)).replace(/\s*\/>$/, '>')
          splices.push({ start: row.element.start, end: row.element.end, text: `${open}${text}</${p}row>` })
        }
      } else {
        for (const [at, text] of inserts) splices.push({ start: at, end: at, text })
        if (!row.explicit) tags.set(row.element, 'r', String(row.row))
      }
    } else {
      const text = list
        .filter(([, input]) => input.kind !== 'empty')
        .map(([column, input]) => newCellXml(p, rowNumber, column, undefined, input, valueFor(rowNumber, column)))
        .join('')
      if (text === '') continue
      const after = rows.find((r) => r.row > rowNumber)
      newRows.push({
        at: after ? after.element.start : data.innerEnd,
        row: rowNumber,
        text: `<${p}row r="${rowNumber}">${text}</${p}row>`,
      })
      rowsMadeExplicit = true
    }
  }
  if (newRows.length > 0) {
    if (data.empty) {
      const text = newRows.map((r) => r.text).join('')
      splices.push({ start: data.start, end: data.end, text: `<${p}sheetData>${text}</${p}sheetData>` })
    } else {
      const grouped = new Map<number, string>()
      for (const r of newRows) grouped.set(r.at, (grouped.get(r.at) ?? '') + r.text)
      for (const [at, text] of grouped) splices.push({ start: at, end: at, text })
    }
  }
  if (rowsMadeExplicit)
    for (const r of rows) if (!r.explicit && !byRow.has(r.row)) tags.set(r.element, 'r', String(r.row))

  if (updates.size > 0) {
    for (const row of rows) {
      for (const cell of cellsIn(row)) {
        const key = cellKey(cell.row, cell.column)
        if (!updates.has(key) || cell.element.empty) continue
        const value = updates.get(key)
        const stored = value === undefined ? undefined : storedValue(value)
        const v = findFirst(xml, `${p}v`, cell.element.innerStart, cell.element.innerEnd)
        const text = stored ? `<${p}v>${escapeText(stored.text)}</${p}v>` : ''
        if (v) splices.push({ start: v.start, end: v.end, text })
        else if (text !== '') {
          const f = findFirst(xml, `${p}f`, cell.element.innerStart, cell.element.innerEnd)
          const at = f ? f.end : cell.element.innerEnd
          splices.push({ start: at, end: at, text })
        }
        const currentType = attributesAt(xml, cell.element.start).get('t') ?? null
        const nextType = stored?.type ?? null
        if (currentType !== nextType) tags.set(cell.element, 't', nextType)
      }
    }
  }

  const dimension = findFirst(xml, `${p}dimension`)
  if (dimension) {
    const current = parseRange(attributesAt(xml, dimension.start).get('ref') ?? '')
    let grown = current
    for (const [key, input] of inputs) {
      if (input.kind === 'empty') continue
      const at = { row: keyRow(key), column: keyColumn(key) }
      if (!grown) grown = { from: at, to: at }
      else if (!inRange(grown, at)) {
        grown = {
          from: { row: Math.min(grown.from.row, at.row), column: Math.min(grown.from.column, at.column) },
          to: { row: Math.max(grown.to.row, at.row), column: Math.max(grown.to.column, at.column) },
        }
      }
    }
    if (grown && (!current || formatRange(grown) !== formatRange(current)))
      tags.set(dimension, 'ref', formatRange(grown))
  }
  // Rows' `spans` are optimisation hints Excel recomputes; a cell outside them is still read.
  return applySplices(xml, [...splices, ...tags.splices()])
}

function refused(reason: DocumentEditRefusalReason, message: string, edit_index: number | null): DocumentEditOutcome {
  return { kind: 'refused', reason, message, edit_index }
}
