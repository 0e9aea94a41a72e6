import type { CellState, XlsxCellChange, XlsxDiff, XlsxSheetDiff } from '../protocol/documents'
import { formatAddress } from './xlsx'
import { keyColumn, keyRow, parseWorkbookModel, type ModelCell, type ModelSheet } from './xlsx-model'

/**
 * What changed inside a XLSX between two versions (issue 26), for Review: per sheet, the cells
 * whose displayed value (in the cell's number format) or formula differ, in row-major order. Sheets are matched by their
 * `sheetId` (stable across a rename), then by name; a sheet present on one side only lists its
 * cells as added or removed. Lists are cut at `XLSX_DIFF_MAX_CELLS` per sheet; counts stay exact.
 * An unreadable side throws the package's error (the engine answers `unreadable`).
 */

export const XLSX_DIFF_MAX_CELLS = 1_000

export async function diffXlsx(before: Uint8Array | null, after: Uint8Array | null): Promise<XlsxDiff> {
  const old = before === null ? [] : (await parseWorkbookModel(before)).sheets
  const now = after === null ? [] : (await parseWorkbookModel(after)).sheets
  const matched = new Map<ModelSheet, ModelSheet>()
  const unmatchedOld = new Set(old)
  for (const sheet of now) {
    const byId = [...unmatchedOld].find((o) => o.sheetId === sheet.sheetId)
    const byName = [...unmatchedOld].find((o) => o.name === sheet.name)
    const partner = byId ?? byName
    if (partner) {
      matched.set(sheet, partner)
      unmatchedOld.delete(partner)
    }
  }
  const sheets: XlsxSheetDiff[] = []
  let cells = 0
  let added = 0
  let removed = 0
  for (const sheet of now) {
    const partner = matched.get(sheet)
    const diff = diffCells(partner?.cells, sheet.cells)
    cells += diff.count
    if (!partner) {
      added++
      sheets.push({ name: sheet.name, change: 'added', old_name: null, ...diff.entry })
    } else if (partner.name !== sheet.name) {
      sheets.push({ name: sheet.name, change: 'renamed', old_name: partner.name, ...diff.entry })
    } else if (diff.count > 0) {
      sheets.push({ name: sheet.name, change: 'changed', old_name: null, ...diff.entry })
    }
  }
  for (const sheet of old) {
    if (!unmatchedOld.has(sheet)) continue
    const diff = diffCells(sheet.cells, undefined)
    cells += diff.count
    removed++
    sheets.push({ name: sheet.name, change: 'removed', old_name: null, ...diff.entry })
  }
  return { kind: 'xlsx', counts: { cells, sheets_added: added, sheets_removed: removed }, sheets }
}

function diffCells(
  before: ReadonlyMap<number, ModelCell> | undefined,
  after: ReadonlyMap<number, ModelCell> | undefined,
): { count: number; entry: Pick<XlsxSheetDiff, 'cells' | 'cell_count' | 'truncated'> } {
  const changedKeys: number[] = []
  for (const [key, cell] of after ?? []) {
    if (!sameCell(before?.get(key), cell)) changedKeys.push(key)
  }
  for (const [key, cell] of before ?? []) {
    if (!after?.has(key) && !sameCell(cell, undefined)) changedKeys.push(key)
  }
  changedKeys.sort((a, b) => a - b)
  const shown = changedKeys.slice(0, XLSX_DIFF_MAX_CELLS)
  const list: XlsxCellChange[] = shown.map((key) => ({
    address: formatAddress({ row: keyRow(key), column: keyColumn(key) }),
    before: stateOf(before?.get(key)),
    after: stateOf(after?.get(key)),
  }))
  return {
    count: changedKeys.length,
    entry: { cells: list, cell_count: changedKeys.length, truncated: changedKeys.length > shown.length },
  }
}

function stateOf(cell: ModelCell | undefined): CellState | null {
  if (!cell) return null
  return { value: cell.value === null ? null : (cell.shown ?? cell.text), formula: cell.formula ?? null }
}

function sameCell(a: ModelCell | undefined, b: ModelCell | undefined): boolean {
  const x = stateOf(a)
  const y = stateOf(b)
  if (x === null || y === null) return x === y
  return x.value === y.value && x.formula === y.formula
}
