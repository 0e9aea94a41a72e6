import SSF from 'ssf'
import { formatAddress, type CellValue } from '../../../../../../../shared/office'

export interface Selection {
  readonly column: number
  readonly row: number
}

/** A rectangle of cells: a merge or a selected block. */
export interface Block {
  readonly from: Selection
  readonly to: Selection
}

export function blockOf(a: Selection, b: Selection | null): Block {
  const other = b ?? a
  return {
    from: { column: Math.min(a.column, other.column), row: Math.min(a.row, other.row) },
    to: { column: Math.max(a.column, other.column), row: Math.max(a.row, other.row) },
  }
}

/**
 * The built-in short date formats (14, 22) follow the reader's system settings in Excel, so a file
 * says nothing about day/month order; they are shown as ISO dates here, unambiguous in any locale.
 */
const ISO_BUILT_IN: Readonly<Record<number, string>> = { 14: 'yyyy-mm-dd', 22: 'yyyy-mm-dd h:mm' }

/**
 * What the grid shows: the value in its number format (dates, percentages, decimals, with
 * SheetJS's format engine). A formula whose value is unknown (the engine could not evaluate it
 * and the save left it for the spreadsheet app) shows nothing, with a mark saying so — never its
 * text, which a reader would take for the value.
 */
export function shownText(cell: CellValue, date1904: boolean): string {
  const value = Number(cell.text)
  if (cell.numberFormat === undefined || cell.text.trim() === '' || !Number.isFinite(value)) return cell.text
  const format =
    typeof cell.numberFormat === 'number' ? (ISO_BUILT_IN[cell.numberFormat] ?? cell.numberFormat) : cell.numberFormat
  try {
    return SSF.format(format, value, { date1904 })
  } catch {
    return cell.text
  }
}

/** What the cell editor shows: a formula as typed, else the value. */
export function inputText(cell: CellValue | undefined): string {
  if (!cell) return ''
  return cell.formula !== undefined ? `=${cell.formula}` : cell.text
}

/** The shown text of each cell of a block, row by row (what a copy puts on the clipboard). */
export function blockTexts(
  block: Block,
  cellAt: (address: string) => CellValue | undefined,
  date1904: boolean,
): string[][] {
  const lines: string[][] = []
  for (let row = block.from.row; row <= block.to.row; row++) {
    const line: string[] = []
    for (let column = block.from.column; column <= block.to.column; column++) {
      const cell = cellAt(formatAddress({ column, row }))
      line.push(cell ? shownText(cell, date1904) : '')
    }
    lines.push(line)
  }
  return lines
}
