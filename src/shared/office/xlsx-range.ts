import { parseRange, type Range } from './xlsx'
import { sheetByName, type ModelSheet, type WorkbookModel } from './xlsx-model'

/**
 * What the agent writes to name cells: `Data!B2:D4`, `'Q1 figures'!A1`, `B2:D4` (with a separate
 * sheet, or the first sheet), or a bare sheet name (its used range) for `read`.
 */

export type RangeTarget =
  | { kind: 'ok'; sheet: ModelSheet; sheetIndex: number; range: Range | undefined }
  | { kind: 'refused'; reason: 'no-such-sheet' | 'missing-anchor'; message: string }

export function splitSheet(text: string): { sheet: string | undefined; ref: string } {
  const bang = text.lastIndexOf('!')
  if (bang === -1) return { sheet: undefined, ref: text }
  let sheet = text.slice(0, bang).trim()
  if (sheet.length >= 2 && sheet.startsWith("'") && sheet.endsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'")
  return { sheet, ref: text.slice(bang + 1).trim() }
}

/** A1 or A1:B2 with its corners in either order; undefined for anything else. */
export function parseCellRange(ref: string): Range | undefined {
  if (!/^\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(:\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?$/.test(ref)) return undefined
  const range = parseRange(ref.replace(/\$/g, ''))
  if (!range) return undefined
  return {
    from: { row: Math.min(range.from.row, range.to.row), column: Math.min(range.from.column, range.to.column) },
    to: { row: Math.max(range.from.row, range.to.row), column: Math.max(range.from.column, range.to.column) },
  }
}

/**
 * Resolves a range the agent named. `allowSheetOnly`: a bare sheet name means its used range
 * (`read`); `set_cells` always needs cells.
 */
export function resolveRange(
  model: WorkbookModel,
  text: string,
  explicitSheet: string | undefined,
  allowSheetOnly: boolean,
): RangeTarget {
  const trimmed = text.trim()
  const split = splitSheet(trimmed)
  if (
    split.sheet !== undefined &&
    explicitSheet !== undefined &&
    split.sheet.toLowerCase() !== explicitSheet.toLowerCase()
  ) {
    return {
      kind: 'refused',
      reason: 'missing-anchor',
      message: `The range "${text}" names the sheet "${split.sheet}" but the edit's sheet is "${explicitSheet}".`,
    }
  }
  const sheetName = split.sheet ?? explicitSheet
  const range = parseCellRange(split.ref)
  if (!range && allowSheetOnly && split.sheet === undefined) {
    // A bare sheet name, quoted or not.
    const unquoted =
      trimmed.length >= 2 && trimmed.startsWith("'") && trimmed.endsWith("'")
        ? trimmed.slice(1, -1).replace(/''/g, "'")
        : trimmed
    const sheet = sheetByName(model, unquoted)
    if (sheet) return { kind: 'ok', sheet, sheetIndex: model.sheets.indexOf(sheet), range: sheet.used }
  }
  const sheet = sheetName === undefined ? model.sheets[0] : sheetByName(model, sheetName)
  if (!sheet) {
    const names = model.sheets.map((s) => `"${s.name}"`).join(', ')
    return {
      kind: 'refused',
      reason: 'no-such-sheet',
      message:
        sheetName === undefined
          ? 'The workbook has no sheets.'
          : `There is no sheet "${sheetName}"; the workbook's sheets are ${names}.`,
    }
  }
  if (!range) {
    return {
      kind: 'refused',
      reason: 'missing-anchor',
      message: `"${split.ref}" is not a cell or a range of cells (write B2 or B2:D40${allowSheetOnly ? ', or a sheet name' : ''}).`,
    }
  }
  return { kind: 'ok', sheet, sheetIndex: model.sheets.indexOf(sheet), range }
}

export function mergeAt(sheet: ModelSheet, row: number, column: number): Range | undefined {
  return sheet.merges.find(
    (m) => row >= m.from.row && row <= m.to.row && column >= m.from.column && column <= m.to.column,
  )
}
