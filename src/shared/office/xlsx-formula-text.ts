import { columnName } from './xlsx'

/**
 * Formula text as a spreadsheet file stores it (no leading "="). A shared formula is written once
 * on its first cell; every other cell of it means the same text with its relative references moved
 * by the cell's offset, which is what `shiftFormula` computes.
 */

const MAX_ROW = 1_048_576
const MAX_COLUMN = 16_384

function columnNumber(letters: string): number {
  let column = 0
  for (const letter of letters.toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64)
  return column
}

const NAME_CHAR = /[A-Za-z0-9_.\\]/

// At a token start: `$A$1`, `A1`, `A:C`, `$3:$5`. Sheet prefixes (`Data!`, `'Q 1'!`) stay as they are.
const CELL = /^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})/
const COLUMNS = /^(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})/
const ROWS = /^(\$?)([0-9]{1,7}):(\$?)([0-9]{1,7})/

export function shiftFormula(formula: string, rows: number, columns: number): string {
  if (rows === 0 && columns === 0) return formula
  let out = ''
  let i = 0
  while (i < formula.length) {
    const c = formula[i] ?? ''
    if (c === '"' || c === "'") {
      // A string literal or a quoted sheet name: copied whole (a doubled quote escapes one).
      let j = i + 1
      for (; j < formula.length; j++) {
        if (formula[j] === c) {
          if (formula[j + 1] === c) j++
          else break
        }
      }
      out += formula.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (c === '[') {
      // Structured references and external-book indexes hold no A1 references.
      const j = formula.indexOf(']', i)
      const end = j === -1 ? formula.length : j + 1
      out += formula.slice(i, end)
      i = end
      continue
    }
    const previous = i === 0 ? '' : (formula[i - 1] ?? '')
    if (previous !== '' && NAME_CHAR.test(previous)) {
      out += c
      i++
      continue
    }
    const rest = formula.slice(i, i + 40)
    const columnsMatch = COLUMNS.exec(rest)
    if (columnsMatch && !followedByName(formula, i + columnsMatch[0].length)) {
      const [, a, from = '', b, to = ''] = columnsMatch
      out += `${moveColumn(a === '$', from, columns)}:${moveColumn(b === '$', to, columns)}`
      i += columnsMatch[0].length
      continue
    }
    const cell = CELL.exec(rest)
    if (cell && !followedByName(formula, i + cell[0].length) && formula[i + cell[0].length] !== '(') {
      const [, a, letters = '', b, digits = ''] = cell
      const column = a === '$' ? columnNumber(letters) : columnNumber(letters) + columns
      const row = b === '$' ? Number(digits) : Number(digits) + rows
      out +=
        column < 1 || column > MAX_COLUMN || row < 1 || row > MAX_ROW
          ? '#REF!'
          : `${a}${columnName(column)}${b}${row}`
      i += cell[0].length
      continue
    }
    const rowsMatch = ROWS.exec(rest)
    if (rowsMatch && !followedByName(formula, i + rowsMatch[0].length)) {
      const [, a, from = '', b, to = ''] = rowsMatch
      out += `${a}${a === '$' ? from : Number(from) + rows}:${b}${b === '$' ? to : Number(to) + rows}`
      i += rowsMatch[0].length
      continue
    }
    // A name or a number: copied up to its end so its tail is never read as a reference.
    let j = i + 1
    if (NAME_CHAR.test(c)) while (j < formula.length && NAME_CHAR.test(formula[j] ?? '')) j++
    out += formula.slice(i, j)
    i = j
  }
  return out
}

function followedByName(formula: string, at: number): boolean {
  const next = formula[at]
  return next !== undefined && NAME_CHAR.test(next)
}

function moveColumn(absolute: boolean, letters: string, by: number): string {
  if (absolute) return `$${letters}`
  const column = columnNumber(letters) + by
  return column < 1 || column > MAX_COLUMN ? '#REF!' : columnName(column)
}
