import { DOCUMENT_READ_MAX_CHARS, type DocumentReadOutcome, type DocumentReadRequest } from './document-edits'
import { formatAddress, type Range } from './xlsx'
import {
  cellKey,
  displayText,
  keyColumn,
  keyRow,
  loadWorkbookModel,
  quoteSheetName,
  rangeText,
  type ModelCell,
  type ModelSheet,
} from './xlsx-model'
import { resolveRange } from './xlsx-range'

/**
 * The text view `read` gives the model for a XLSX (issue 26): the sheets first (name, used range,
 * hidden), then one line per non-empty cell of the asked range — `B4 = 1250`,
 * `C4 = 1562.5  (=B4*1.25)`, text quoted — with the merged ranges it touches. The addresses are
 * the anchors `set_cells` takes. Bounded like every read; the header names the range to read next.
 */

/** Non-empty cells one read shows. */
export const XLSX_VIEW_MAX_CELLS = 2_000
/** Sheets listed in the header. */
const XLSX_VIEW_MAX_SHEETS = 200
/** Merged ranges listed for one read. */
const XLSX_VIEW_MAX_MERGES = 200
/** Characters of one cell's value shown; a longer text is cut with its length named. */
const CELL_TEXT_MAX = 1_000

export async function readXlsxView(bytes: Uint8Array, request: DocumentReadRequest): Promise<DocumentReadOutcome> {
  const loaded = await loadWorkbookModel(bytes)
  if (loaded.kind === 'refused')
    return { kind: 'refused', reason: loaded.reason, message: loaded.message, edit_index: null }
  const model = loaded.model
  const sheetLines = model.sheets.map((sheet) => {
    const state = sheet.state === 'visible' ? '' : sheet.state === 'hidden' ? ' (hidden)' : ' (very hidden)'
    const count = sheet.cells.size
    const used = sheet.used
      ? `used range ${rangeText(sheet.used)}, ${count} non-empty cell${count === 1 ? '' : 's'}`
      : 'empty'
    return `- ${quoteSheetName(sheet.name)}: ${used}${state}`
  })
  // A hostile workbook may hold thousands of sheets: the list is bounded like the cells.
  const header = [
    `Workbook with ${model.sheets.length} sheet${model.sheets.length === 1 ? '' : 's'}:`,
    ...sheetLines.slice(0, XLSX_VIEW_MAX_SHEETS),
    ...(sheetLines.length > XLSX_VIEW_MAX_SHEETS
      ? [`- … and ${sheetLines.length - XLSX_VIEW_MAX_SHEETS} more sheets`]
      : []),
  ]
  if (model.sheets.length === 0) return { kind: 'ok', text: header.join('\n') }

  const target = resolveRange(model, request.range ?? quoteSheetName(model.sheets[0]?.name ?? ''), undefined, true)
  if (target.kind === 'refused')
    return { kind: 'refused', reason: target.reason, message: target.message, edit_index: null }
  const { sheet } = target
  if (!target.range)
    return { kind: 'ok', text: [...header, '', `Sheet ${quoteSheetName(sheet.name)} is empty.`].join('\n') }

  // offset/limit page by rows inside the range (1 = its first row).
  const range = target.range
  const totalRows = range.to.row - range.from.row + 1
  const offset = Math.max(1, Math.floor(request.offset ?? 1))
  if (offset > totalRows) {
    return {
      kind: 'refused',
      reason: 'missing-anchor',
      message: `offset ${offset} is past the ${totalRows} row${totalRows === 1 ? '' : 's'} of ${quoteSheetName(sheet.name)}!${rangeText(range)}.`,
      edit_index: null,
    }
  }
  const limit = request.limit === undefined ? totalRows : Math.max(1, Math.floor(request.limit))
  const firstRow = range.from.row + offset - 1
  const lastRow = Math.min(range.to.row, firstRow + limit - 1)
  const page: Range = {
    from: { row: firstRow, column: range.from.column },
    to: { row: lastRow, column: range.to.column },
  }

  const cells = cellsIn(sheet, page)
  const budget = DOCUMENT_READ_MAX_CHARS - header.join('\n').length - 600
  const lines: string[] = []
  const merges = sheet.merges.filter((m) => intersects(m, page))
  for (const merge of merges.slice(0, XLSX_VIEW_MAX_MERGES)) lines.push(`merged ${rangeText(merge)}`)
  if (merges.length > XLSX_VIEW_MAX_MERGES)
    lines.push(`(${merges.length - XLSX_VIEW_MAX_MERGES} more merged ranges in this range)`)
  let used = lines.reduce((n, line) => n + line.length + 1, 0)
  let shown = 0
  let stoppedAt: ModelCell | undefined
  for (const cell of cells) {
    const line = cellLine(cell)
    if (shown >= XLSX_VIEW_MAX_CELLS || used + line.length + 1 > budget) {
      stoppedAt = cell
      break
    }
    lines.push(line)
    used += line.length + 1
    shown++
  }

  const name = quoteSheetName(sheet.name)
  const shownLast = stoppedAt ? stoppedAt.row - (stoppedAt.column === page.from.column ? 1 : 0) : lastRow
  const summary = [
    '',
    `${name}!${rangeText(page)}: ${cells.length} non-empty cell${cells.length === 1 ? '' : 's'}${stoppedAt ? `, ${shown} shown (rows ${firstRow}–${Math.max(firstRow, shownLast)})` : ''}.`,
  ]
  const next = nextRange(stoppedAt, page, range, lastRow)
  if (next) summary.push(`More: read with range "${name}!${next}".`)
  if (model.sheets.length > 1) summary.push('Another sheet: read with range "<sheet name>" or "<sheet name>!A1:F200".')
  summary.push(
    'Each line: address = value (text in quotes; "shown as" when the number format displays it differently), then (=formula) for a formula cell. Set cells with office_edit set_cells.',
  )
  if (cells.length === 0) lines.push('(no non-empty cells in this range)')
  return { kind: 'ok', text: [...header, ...summary, '', ...lines].join('\n') }
}

function nextRange(stoppedAt: ModelCell | undefined, page: Range, range: Range, lastRow: number): string | undefined {
  if (stoppedAt) {
    if (stoppedAt.column !== page.from.column) {
      // Cut inside a row: the rest of that row first.
      return `${formatAddress(stoppedAt)}:${formatAddress({ row: stoppedAt.row, column: page.to.column })}`
    }
    return rangeText({ from: { row: stoppedAt.row, column: page.from.column }, to: range.to })
  }
  if (lastRow < range.to.row) return rangeText({ from: { row: lastRow + 1, column: range.from.column }, to: range.to })
  return undefined
}

function cellsIn(sheet: ModelSheet, range: Range): ModelCell[] {
  const width = range.to.column - range.from.column + 1
  const height = range.to.row - range.from.row + 1
  const found: Array<[number, ModelCell]> = []
  if (width * height < sheet.cells.size) {
    for (let row = range.from.row; row <= range.to.row; row++) {
      for (let column = range.from.column; column <= range.to.column; column++) {
        const key = cellKey(row, column)
        const cell = sheet.cells.get(key)
        if (cell) found.push([key, cell])
      }
    }
    return found.map(([, cell]) => cell)
  }
  for (const [key, cell] of sheet.cells) {
    const row = keyRow(key)
    const column = keyColumn(key)
    if (row >= range.from.row && row <= range.to.row && column >= range.from.column && column <= range.to.column) {
      found.push([key, cell])
    }
  }
  return found.sort((a, b) => a[0] - b[0]).map(([, cell]) => cell)
}

function intersects(a: Range, b: Range): boolean {
  return (
    a.from.row <= b.to.row && a.to.row >= b.from.row && a.from.column <= b.to.column && a.to.column >= b.from.column
  )
}

function cellLine(cell: ModelCell): string {
  const address = formatAddress(cell)
  let value: string
  if (cell.value === null) value = cell.formula !== undefined ? '(not calculated yet)' : '""'
  else if (typeof cell.value === 'string') value = JSON.stringify(cut(cell.value))
  else value = displayText(cell.value)
  // "33.00" for 33 tells the model nothing; a date, a percentage or a currency does.
  const plain = cell.shown !== undefined && Number(cell.shown.replace(/,/g, '')) === cell.value
  const shown = cell.shown !== undefined && !plain ? ` (shown as ${JSON.stringify(cut(cell.shown))})` : ''
  const formula = cell.formula !== undefined ? `  (=${cut(cell.formula)})` : ''
  return `${address} = ${value}${shown}${formula}`
}

function cut(text: string): string {
  return text.length <= CELL_TEXT_MAX ? text : `${text.slice(0, CELL_TEXT_MAX)}… (${text.length} characters in all)`
}
