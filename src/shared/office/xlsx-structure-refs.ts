import { columnName } from './xlsx'
import { closingQuote } from './xlsx-formula-text'

/**
 * References in formula text moved by a row or column change of one sheet (for xlsx-structure):
 * the tokenizer keeps string literals, quoted sheet names and structured references whole, and
 * knows which sheet each reference means. (`shiftFormula` moves a shared formula's references
 * whatever their sheet; this one needs each reference's sheet, hence its own walk.)
 */

/** Where an index goes: its new index, or null when it was deleted. */
export interface Shift {
  readonly axis: 'row' | 'column'
  readonly limit: number
  index(at: number): number | null
  /** A span `from..to` after the change, or null when all of it was deleted. */
  span(from: number, to: number): [number, number] | null
  /** True when the line cuts the span strictly inside (an insertion between its ends, a deletion of part of it). */
  cuts(from: number, to: number): boolean
}

export function columnNumber(letters: string): number {
  let column = 0
  for (const letter of letters.toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64)
  return column
}

const NAME_CHAR = /[A-Za-z0-9_.\\]/
const AREA =
  /^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})(?::(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7}))?|^(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})|^(\$?)([0-9]{1,7}):(\$?)([0-9]{1,7})/

/**
 * A formula with the references into `edit.sheet` moved (absolute ones too: inserting a row moves
 * `$A$5` as it moves the cell). `ownSheet` is the sheet an unqualified reference means.
 */
export function shiftReferences(
  formula: string,
  ownSheet: string,
  edit: { readonly sheet: string },
  shift: Shift,
): string {
  let out = ''
  let i = 0
  let qualifier: string | undefined
  /** Where the qualifier starts in `out`: a reference to a deleted cell is `#REF!` without its sheet, as Excel writes it. */
  let qualifierAt = 0
  while (i < formula.length) {
    const c = formula[i] ?? ''
    if (c === '"') {
      const j = closingQuote(formula, i)
      out += formula.slice(i, j + 1)
      i = j + 1
      qualifier = undefined
      continue
    }
    if (c === "'") {
      const j = closingQuote(formula, i)
      const name = formula.slice(i + 1, j).replace(/''/g, "'")
      qualifierAt = out.length
      out += formula.slice(i, j + 1)
      i = j + 1
      if (formula[i] === '!') {
        qualifier = name
        out += '!'
        i++
      }
      continue
    }
    if (c === '[') {
      const j = formula.indexOf(']', i)
      const end = j === -1 ? formula.length : j + 1
      out += formula.slice(i, end)
      i = end
      continue
    }
    const previous = i === 0 ? '' : (formula[i - 1] ?? '')
    const rest = formula.slice(i, i + 40)
    const area = previous !== '' && NAME_CHAR.test(previous) ? null : AREA.exec(rest)
    const after = area ? formula[i + area[0].length] : undefined
    if (area && !(after !== undefined && (NAME_CHAR.test(after) || after === '(' || after === '!'))) {
      const sheet = qualifier ?? ownSheet
      const moved = sheet === edit.sheet ? moveArea(area, shift) : area[0]
      if (moved === '#REF!' && qualifier !== undefined) out = out.slice(0, qualifierAt)
      qualifier = undefined
      out += moved
      i += area[0].length
      continue
    }
    // A sheet name (`Data!`), a function or a defined name: copied whole.
    let j = i + 1
    if (NAME_CHAR.test(c)) while (j < formula.length && NAME_CHAR.test(formula[j] ?? '')) j++
    const word = formula.slice(i, j)
    const wordAt = out.length
    out += word
    i = j
    if (formula[i] === '!' && NAME_CHAR.test(c)) {
      qualifier = word
      qualifierAt = wordAt
      out += '!'
      i++
    } else qualifier = undefined
  }
  return out
}

function moveArea(match: RegExpExecArray, shift: Shift): string {
  if (match[2] !== undefined) {
    const [, a = '', col1 = '', b = '', row1 = '', c, col2, d, row2] = match
    const from = { column: columnNumber(col1), row: Number(row1) }
    const to = col2 === undefined ? from : { column: columnNumber(col2), row: Number(row2) }
    const index = shift.axis === 'row' ? [from.row, to.row] : [from.column, to.column]
    const span = col2 === undefined ? single(shift, index[0] ?? 0) : shift.span(index[0] ?? 0, index[1] ?? 0)
    if (span === null || span[1] > shift.limit) return '#REF!'
    const write = (abs1: string, column: number, abs2: string, row: number) =>
      `${abs1}${columnName(column)}${abs2}${row}`
    const first = shift.axis === 'row' ? write(a, from.column, b, span[0]) : write(a, span[0], b, from.row)
    if (col2 === undefined) return first
    const second =
      shift.axis === 'row' ? write(c ?? '', to.column, d ?? '', span[1]) : write(c ?? '', span[1], d ?? '', to.row)
    return `${first}:${second}`
  }
  if (match[10] !== undefined) {
    // Whole columns (`A:C`): moved by a column change only.
    const [, , , , , , , , , a = '', from = '', b = '', to = ''] = match
    if (shift.axis === 'row') return match[0]
    const span = shift.span(columnNumber(from), columnNumber(to))
    if (span === null) return '#REF!'
    return `${a}${columnName(span[0])}:${b}${columnName(span[1])}`
  }
  const a = match[13] ?? ''
  const from = match[14] ?? ''
  const b = match[15] ?? ''
  const to = match[16] ?? ''
  if (shift.axis === 'column') return match[0]
  const span = shift.span(Number(from), Number(to))
  if (span === null) return '#REF!'
  return `${a}${span[0]}:${b}${span[1]}`
}

function single(shift: Shift, index: number): [number, number] | null {
  const moved = shift.index(index)
  return moved === null ? null : [moved, moved]
}
