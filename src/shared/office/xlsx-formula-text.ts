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
      const j = closingQuote(formula, i)
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
        column < 1 || column > MAX_COLUMN || row < 1 || row > MAX_ROW ? '#REF!' : `${a}${columnName(column)}${b}${row}`
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

/** Why a typed formula cannot be stored: a spreadsheet app would call the file damaged. */
export function formulaSyntaxProblem(formula: string): string | undefined {
  let parentheses = 0
  let braces = 0
  for (let i = 0; i < formula.length; i++) {
    const c = formula[i]
    if (c === '"' || c === "'") {
      const j = closingQuote(formula, i)
      if (j >= formula.length)
        return c === '"' ? 'a text in double quotes is not closed' : 'a quoted sheet name is not closed'
      i = j
    } else if (c === '(') parentheses++
    else if (c === ')') {
      if (--parentheses < 0) return 'a ")" closes nothing'
    } else if (c === '{') braces++
    else if (c === '}') {
      if (--braces < 0) return 'a "}" closes nothing'
    }
  }
  if (parentheses > 0) return `${parentheses} "(" ${parentheses === 1 ? 'is' : 'are'} not closed`
  if (braces > 0) return 'a "{" is not closed'
  return undefined
}

/**
 * Functions added to Excel after 2007 are stored with the `_xlfn.` prefix; written bare, Excel
 * shows #NAME? until the cell is retyped. Dynamic-array functions (FILTER, SORT, UNIQUE, …) also
 * need spill metadata this patcher does not write, so they are left as typed.
 */
const FUTURE_FUNCTIONS = new Set(
  `AGGREGATE ACOT ACOTH ARABIC BASE BETA.DIST BETA.INV BINOM.DIST BINOM.DIST.RANGE BINOM.INV BITAND BITLSHIFT BITOR
  BITRSHIFT BITXOR CEILING.MATH CEILING.PRECISE CHISQ.DIST CHISQ.DIST.RT CHISQ.INV CHISQ.INV.RT CHISQ.TEST COMBINA
  CONCAT CONFIDENCE.NORM CONFIDENCE.T COT COTH COVARIANCE.P COVARIANCE.S CSC CSCH DAYS DECIMAL ERF.PRECISE
  ERFC.PRECISE EXPON.DIST F.DIST F.DIST.RT F.INV F.INV.RT F.TEST FLOOR.MATH FLOOR.PRECISE FORECAST.LINEAR FORMULATEXT
  GAMMA GAMMA.DIST GAMMA.INV GAMMALN.PRECISE GAUSS HYPGEOM.DIST IFNA IFS IMCOSH IMCOT IMCSC IMCSCH IMSEC IMSECH
  IMSINH IMTAN ISFORMULA ISOWEEKNUM LET LOGNORM.DIST LOGNORM.INV MAXIFS MINIFS MODE.MULT MODE.SNGL MUNIT
  NEGBINOM.DIST NETWORKDAYS.INTL NORM.DIST NORM.INV NORM.S.DIST NORM.S.INV NUMBERVALUE PDURATION PERCENTILE.EXC
  PERCENTILE.INC PERCENTRANK.EXC PERCENTRANK.INC PHI POISSON.DIST QUARTILE.EXC QUARTILE.INC RANK.AVG RANK.EQ RRI SEC
  SECH SHEET SHEETS STDEV.P STDEV.S SWITCH T.DIST T.DIST.2T T.DIST.RT T.INV T.INV.2T T.TEST TEXTJOIN UNICHAR UNICODE
  VAR.P VAR.S WEIBULL.DIST WORKDAY.INTL XLOOKUP XMATCH XOR Z.TEST`.split(/\s+/),
)

export function withFutureFunctionPrefixes(formula: string): string {
  let out = ''
  let i = 0
  while (i < formula.length) {
    const c = formula[i] ?? ''
    if (c === '"' || c === "'") {
      const j = closingQuote(formula, i)
      out += formula.slice(i, j + 1)
      i = j + 1
      continue
    }
    if (NAME_CHAR.test(c)) {
      let j = i + 1
      while (j < formula.length && NAME_CHAR.test(formula[j] ?? '')) j++
      const name = formula.slice(i, j)
      out += formula[j] === '(' && FUTURE_FUNCTIONS.has(name.toUpperCase()) ? `_xlfn.${name}` : name
      i = j
      continue
    }
    out += c
    i++
  }
  return out
}

/** Index of the quote closing the literal that opens at `start` (a doubled quote escapes one); the formula's length when none does. */
export function closingQuote(formula: string, start: number): number {
  const quote = formula[start]
  for (let j = start + 1; j < formula.length; j++) {
    if (formula[j] === quote) {
      if (formula[j + 1] === quote) j++
      else return j
    }
  }
  return formula.length
}
