import * as formulajs from '@formulajs/formulajs'
import FormulaParser, { type CellRef, type FunctionArg, type Position, type RangeRef } from 'fast-formula-parser'
import { columnName, parseAddress } from './xlsx'
import { cellKey, type DefinedName, type XlsxScalar } from './xlsx-model'

/**
 * Recalculation of a workbook's formulas after some cells changed (issue 26; reusable by the grid,
 * issue 27). Formulas are parsed and evaluated by fast-formula-parser (MIT); the functions it lacks
 * (MAX, MIN, SUMIFS, COUNTA, …) come from @formulajs/formulajs (MIT). HyperFormula is GPL: not used.
 *
 * Only formulas that depend on a changed cell, directly or through other formulas, are evaluated;
 * every other formula keeps the value the spreadsheet app cached, which is authoritative (our
 * engine can differ from Excel in corner cases and must never rewrite a value nothing changed).
 * A dependent formula that cannot be evaluated (a cycle, a function or name the engine does not
 * know, an array formula, the budget) is reported in `notEvaluated`, never guessed.
 */

export interface CalcCell {
  readonly value: XlsxScalar
  readonly formula?: string
  readonly formulaType?: 'normal' | 'shared' | 'array'
}

export interface CalcSheet {
  readonly name: string
  readonly cells: ReadonlyMap<number, CalcCell>
}

export interface CalcWorkbook {
  readonly sheets: readonly CalcSheet[]
  readonly names: readonly DefinedName[]
  /** Serial day numbers count from 1904; the engine's date functions count from 1900. */
  readonly date1904?: boolean
}

/** A cell of the workbook: the sheet's index and `cellKey(row, column)`. */
export interface CalcCellRef {
  readonly sheet: number
  readonly key: number
}

export type NotEvaluatedReason = 'cycle' | 'unsupported' | 'array-formula' | 'budget' | 'depends-on-unevaluated'

export interface NotEvaluated {
  readonly reason: NotEvaluatedReason
  readonly detail: string
}

export interface RecalcOptions {
  /** Formulas in the workbook past which no dependency analysis is tried (fail closed). */
  readonly maxFormulas?: number
  /** Wall-clock budget of the whole recalculation. */
  readonly maxMillis?: number
  /** Cells one range argument may read (after clipping to the sheet's used rows and columns). */
  readonly maxRangeCells?: number
}

export const RECALC_LIMITS = { maxFormulas: 200_000, maxMillis: 10_000, maxRangeCells: 2_000_000 } as const

export interface RecalcResult {
  /** New values of the dependent formulas that were evaluated (sheet index → cell key → value). */
  readonly values: Map<number, Map<number, XlsxScalar>>
  /** Dependent formulas whose new value is unknown: their cached value is stale or may be. */
  readonly notEvaluated: Map<number, Map<number, NotEvaluated>>
}

const { DepParser, FormulaError } = FormulaParser
const MAX_COLUMN = 16_384
const SHEET_SPAN = 2 ** 35
/** Inline recursion depth before a precedent is evaluated first from the work stack instead. */
const INLINE_DEPTH = 24
/** Functions that make or read serial dates, which the engine counts from 1900. */
const DATE_FUNCTION =
  /\b(DATE|DATEVALUE|DATEDIF|DAY|DAYS|DAYS360|EDATE|EOMONTH|ISOWEEKNUM|MONTH|NETWORKDAYS|NETWORKDAYS\.INTL|NOW|TEXT|TODAY|WEEKDAY|WEEKNUM|WORKDAY|WORKDAY\.INTL|YEAR|YEARFRAC)\s*\(/i
/** Functions whose references only exist at evaluation time: their static dependencies are unknown. */
const DYNAMIC_REFERENCE = /\b(INDIRECT|OFFSET)\s*\(/i

class Unevaluated extends Error {
  constructor(
    readonly reason: NotEvaluatedReason,
    readonly detail: string,
  ) {
    super(detail)
  }
}

class NeedFirst extends Error {
  constructor(readonly id: number) {
    super('evaluate a precedent first')
  }
}

type Memo = { kind: 'ok'; value: XlsxScalar } | { kind: 'failed'; why: NotEvaluated }

export function recalculate(
  book: CalcWorkbook,
  changed: readonly CalcCellRef[],
  options: RecalcOptions = {},
): RecalcResult {
  const limits = { ...RECALC_LIMITS, ...options }
  const deadline = Date.now() + limits.maxMillis
  const values = new Map<number, Map<number, XlsxScalar>>()
  const notEvaluated = new Map<number, Map<number, NotEvaluated>>()
  const record = <T>(target: Map<number, Map<number, T>>, id: number, value: T) => {
    const sheet = Math.floor(id / SHEET_SPAN)
    const inner = target.get(sheet) ?? new Map<number, T>()
    inner.set(id % SHEET_SPAN, value)
    target.set(sheet, inner)
  }
  if (changed.length === 0) return { values, notEvaluated }

  const sheetIndex = new Map<string, number>()
  book.sheets.forEach((sheet, index) => {
    if (!sheetIndex.has(sheet.name.toLowerCase())) sheetIndex.set(sheet.name.toLowerCase(), index)
  })
  const formulas: number[] = []
  const extents = book.sheets.map(() => ({ rows: 0, columns: 0 }))
  book.sheets.forEach((sheet, index) => {
    const extent = extents[index] ?? { rows: 0, columns: 0 }
    for (const [key, cell] of sheet.cells) {
      extent.rows = Math.max(extent.rows, Math.floor(key / MAX_COLUMN) + 1)
      extent.columns = Math.max(extent.columns, (key % MAX_COLUMN) + 1)
      if (cell.formula !== undefined) formulas.push(index * SHEET_SPAN + key)
    }
  })
  const cellOf = (id: number): CalcCell | undefined =>
    book.sheets[Math.floor(id / SHEET_SPAN)]?.cells.get(id % SHEET_SPAN)
  const failAll = (why: NotEvaluated, ids: Iterable<number>) => {
    for (const id of ids) record(notEvaluated, id, why)
    return { values, notEvaluated }
  }
  if (formulas.length > limits.maxFormulas) {
    const why: NotEvaluated = {
      reason: 'budget',
      detail: `the workbook has more than ${limits.maxFormulas} formulas`,
    }
    return failAll(why, formulas)
  }

  const resolveName = nameResolver(book, sheetIndex)
  const sheetNameOf = (index: number) => book.sheets[index]?.name ?? ''

  // Static dependencies: which cells and ranges each formula reads.
  const byCell = new Map<number, number[]>()
  const rangesBySheet = new Map<number, Array<{ range: RangeRef; id: number }>>()
  const unknownReferences: number[] = []
  const references = referenceCollector(book, resolveName)
  for (const [n, id] of formulas.entries()) {
    if (n % 256 === 0 && Date.now() > deadline) {
      return failAll({ reason: 'budget', detail: 'the time budget ran out reading dependencies' }, formulas)
    }
    const formula = cellOf(id)?.formula ?? ''
    const sheet = Math.floor(id / SHEET_SPAN)
    const found = DYNAMIC_REFERENCE.test(formula)
      ? undefined
      : references(formula, positionOf(sheetNameOf(sheet), id % SHEET_SPAN))
    if (!found) {
      unknownReferences.push(id)
      continue
    }
    for (const reference of found) {
      const target = sheetIndex.get((reference.sheet ?? sheetNameOf(sheet)).toLowerCase())
      if (target === undefined) continue
      if ('from' in reference) {
        const list = rangesBySheet.get(target) ?? []
        list.push({ range: reference, id })
        rangesBySheet.set(target, list)
      } else {
        const at = target * SHEET_SPAN + cellKey(reference.row, reference.col)
        const list = byCell.get(at) ?? []
        list.push(id)
        byCell.set(at, list)
      }
    }
  }

  // Every formula reached from a changed cell is dirty; a formula whose references are unknown
  // (it does not parse, or it builds references at run time) is dirty whenever anything changed.
  const dirty = new Set<number>(unknownReferences)
  const queue: number[] = []
  for (const ref of changed) {
    const id = ref.sheet * SHEET_SPAN + ref.key
    queue.push(id)
    if (cellOf(id)?.formula !== undefined) dirty.add(id)
  }
  for (const id of unknownReferences) queue.push(id)
  let steps = 0
  while (queue.length > 0) {
    const id = queue.pop() ?? 0
    if (++steps % 1024 === 0 && Date.now() > deadline) {
      return failAll({ reason: 'budget', detail: 'the time budget ran out finding dependent formulas' }, formulas)
    }
    const sheet = Math.floor(id / SHEET_SPAN)
    const key = id % SHEET_SPAN
    const row = Math.floor(key / MAX_COLUMN) + 1
    const column = (key % MAX_COLUMN) + 1
    const reached = [...(byCell.get(id) ?? [])]
    for (const { range, id: dependent } of rangesBySheet.get(sheet) ?? []) {
      if (row >= range.from.row && row <= range.to.row && column >= range.from.col && column <= range.to.col) {
        reached.push(dependent)
      }
    }
    for (const dependent of reached) {
      if (dirty.has(dependent)) continue
      dirty.add(dependent)
      queue.push(dependent)
    }
  }

  // Evaluation of the dirty formulas; clean formulas read as their cached values.
  const memo = new Map<number, Memo>()
  const onStack = new Set<number>()
  const inProgress = new Set<number>()
  let current: { sheet: number; depth: number; unknownName: string | undefined } = {
    sheet: 0,
    depth: 0,
    unknownName: undefined,
  }

  const readCell = (sheet: number, key: number): unknown => {
    const id = sheet * SHEET_SPAN + key
    const cell = book.sheets[sheet]?.cells.get(key)
    if (!cell) return null
    if (cell.formula === undefined || !dirty.has(id)) return toParserValue(cell.value)
    const known = memo.get(id)
    if (known?.kind === 'ok') return toParserValue(known.value)
    if (known?.kind === 'failed') {
      throw new Unevaluated(
        'depends-on-unevaluated',
        `it reads ${cellLabel(sheetNameOf(sheet), key)}, which was not evaluated`,
      )
    }
    if (inProgress.has(id))
      throw new Unevaluated('cycle', `a circular reference through ${cellLabel(sheetNameOf(sheet), key)}`)
    if (current.depth >= INLINE_DEPTH) throw new NeedFirst(id)
    const outcome = evaluate(id, current.depth + 1)
    if (outcome.kind === 'failed') {
      throw new Unevaluated(
        'depends-on-unevaluated',
        `it reads ${cellLabel(sheetNameOf(sheet), key)}, which was not evaluated`,
      )
    }
    return toParserValue(outcome.value)
  }

  const sheetOfRef = (name: string | undefined): number => {
    if (name === undefined) return current.sheet
    const index = sheetIndex.get(name.toLowerCase())
    if (index === undefined)
      throw new Unevaluated('unsupported', `it refers to a sheet "${name}" the workbook does not have`)
    return index
  }

  const parser = new FormulaParser({
    functions: { ...fallbackFunctions(), ...boundedFunctions() },
    onCell: (ref) => readCell(sheetOfRef(ref.sheet), cellKey(ref.row, ref.col)),
    onRange: (ref) => {
      const sheet = sheetOfRef(ref.sheet)
      const extent = extents[sheet] ?? { rows: 0, columns: 0 }
      const lastRow = Math.min(ref.to.row, Math.max(extent.rows, ref.from.row))
      const lastColumn = Math.min(ref.to.col, Math.max(extent.columns, ref.from.col))
      const size = (lastRow - ref.from.row + 1) * (lastColumn - ref.from.col + 1)
      if (size > limits.maxRangeCells) {
        throw new Unevaluated('budget', `a range of more than ${limits.maxRangeCells} cells`)
      }
      const rows: unknown[][] = []
      for (let row = ref.from.row; row <= lastRow; row++) {
        const values: unknown[] = []
        for (let column = ref.from.col; column <= lastColumn; column++)
          values.push(readCell(sheet, cellKey(row, column)))
        rows.push(values)
      }
      return rows
    },
    onVariable: (name, sheetName) => {
      const resolved = resolveName(name, sheetName)
      if (resolved === null) current.unknownName = name
      return resolved
    },
  })

  function evaluate(id: number, depth: number): Memo {
    const cell = cellOf(id)
    const sheet = Math.floor(id / SHEET_SPAN)
    const key = id % SHEET_SPAN
    if (cell?.formula === undefined) return { kind: 'ok', value: cell?.value ?? null }
    if (book.date1904 === true && DATE_FUNCTION.test(cell.formula)) {
      return settle(id, {
        kind: 'failed',
        why: {
          reason: 'unsupported',
          detail: 'date functions in a workbook that counts days from 1904 are not evaluated',
        },
      })
    }
    if (cell.formulaType === 'array') {
      return settle(id, {
        kind: 'failed',
        why: { reason: 'array-formula', detail: 'array formulas are not evaluated' },
      })
    }
    if (Date.now() > deadline) {
      return settle(id, { kind: 'failed', why: { reason: 'budget', detail: 'the time budget ran out' } })
    }
    const saved = current
    current = { sheet, depth, unknownName: undefined }
    inProgress.add(id)
    try {
      const result = parser.parse(cell.formula, positionOf(sheetNameOf(sheet), key))
      const value = fromParserValue(result)
      const unknownName = current.unknownName
      if (unknownName !== undefined && typeof value === 'object' && value?.error === '#NAME?') {
        return settle(id, {
          kind: 'failed',
          why: { reason: 'unsupported', detail: `the name "${unknownName}" is not a plain cell or range reference` },
        })
      }
      return settle(id, { kind: 'ok', value })
    } catch (error) {
      const cause = unwrap(error)
      if (cause instanceof NeedFirst) throw cause
      if (cause instanceof Unevaluated)
        return settle(id, { kind: 'failed', why: { reason: cause.reason, detail: cause.detail } })
      const message = cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause)
      return settle(id, {
        kind: 'failed',
        why: { reason: 'unsupported', detail: message || 'the formula cannot be evaluated' },
      })
    } finally {
      inProgress.delete(id)
      current = saved
    }
  }

  function settle(id: number, outcome: Memo): Memo {
    memo.set(id, outcome)
    return outcome
  }

  // A work stack instead of unbounded recursion: a long chain (a running total down 10 000 rows)
  // is evaluated precedent first without growing the call stack.
  const ordered = [...dirty].sort((a, b) => a - b)
  for (const start of ordered) {
    const stack = [start]
    onStack.clear()
    onStack.add(start)
    while (stack.length > 0) {
      const id = stack[stack.length - 1] ?? start
      if (memo.has(id)) {
        stack.pop()
        onStack.delete(id)
        continue
      }
      try {
        evaluate(id, 0)
      } catch (error) {
        const signal = unwrap(error)
        if (!(signal instanceof NeedFirst)) throw error
        if (onStack.has(signal.id) || memo.has(signal.id)) {
          settle(signal.id, {
            kind: 'failed',
            why: {
              reason: 'cycle',
              detail: `a circular reference through ${cellLabel(sheetNameOf(Math.floor(signal.id / SHEET_SPAN)), signal.id % SHEET_SPAN)}`,
            },
          })
        } else {
          stack.push(signal.id)
          onStack.add(signal.id)
        }
      }
    }
  }
  for (const id of ordered) {
    const outcome = memo.get(id)
    if (outcome?.kind === 'ok') record(values, id, outcome.value)
    else if (outcome?.kind === 'failed') record(notEvaluated, id, outcome.why)
  }
  return { values, notEvaluated }
}

function positionOf(sheet: string, key: number): Position {
  return { sheet, row: Math.floor(key / MAX_COLUMN) + 1, col: (key % MAX_COLUMN) + 1 }
}

function cellLabel(sheet: string, key: number): string {
  return `${sheet}!${columnName((key % MAX_COLUMN) + 1)}${Math.floor(key / MAX_COLUMN) + 1}`
}

function unwrap(error: unknown): unknown {
  // The parser wraps what a callback throws in a FormulaError, the original in `details`.
  if (error instanceof FormulaError && error.details instanceof Error) return error.details
  return error
}

function toParserValue(value: XlsxScalar): unknown {
  if (value !== null && typeof value === 'object') return new FormulaError(value.error)
  return value
}

function fromParserValue(result: unknown): XlsxScalar {
  let value = result
  // A formula that yields a range or an array shows its first value, as a non-array cell does.
  while (Array.isArray(value)) value = value[0]
  if (value instanceof FormulaError) return { error: value.error }
  if (value instanceof Date) return dateSerial(value)
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return { error: '#VALUE!' }
    if (!Number.isFinite(value)) return { error: '#NUM!' }
    return value === 0 ? 0 : value
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value
  // An empty cell read by a formula shows 0.
  return 0
}

function dateSerial(date: Date): number {
  return date.getTime() / 86_400_000 + 25_569
}

interface DependencyHooks {
  position: Position
  getCell(ref: Partial<CellRef>): number
  getRange(ref: RangeRef): number[][]
}

/**
 * The cells and ranges a formula reads, found by parsing it (nothing is evaluated). The library's
 * own collector drops a cell that falls inside an already-seen range of another sheet, so its
 * hooks are replaced by ones that keep every reference. Undefined: the references are unknown
 * (the formula does not parse, or uses a name that is not a plain reference).
 */
function referenceCollector(
  book: CalcWorkbook,
  resolveName: (name: string, sheetName: string) => CellRef | RangeRef | null,
): (formula: string, position: Position) => Array<CellRef | RangeRef> | undefined {
  let found: Array<CellRef | RangeRef> = []
  let unknown = false
  const parser = new DepParser({
    onVariable: (name, sheetName) => {
      const resolved = resolveName(name, sheetName)
      // A name holding a constant (`0.2`, `"EUR"`) reads no cell; any other unresolved name might.
      if (resolved === null && !isConstantName(book, name)) unknown = true
      return resolved
    },
  })
  const hooks = parser as unknown as DependencyHooks
  hooks.getCell = (ref) => {
    if (ref.row !== undefined && ref.col !== undefined) {
      found.push({ sheet: ref.sheet ?? hooks.position.sheet, row: ref.row, col: ref.col })
    }
    return 0
  }
  hooks.getRange = (ref) => {
    found.push({ sheet: ref.sheet ?? hooks.position.sheet, from: ref.from, to: ref.to })
    return [[0]]
  }
  return (formula, position) => {
    found = []
    unknown = false
    try {
      parser.parse(formula, position, false)
    } catch {
      return undefined
    }
    return unknown ? undefined : found
  }
}

function isConstantName(book: CalcWorkbook, name: string): boolean {
  const lower = name.toLowerCase()
  const entry = book.names.find((n) => n.name.toLowerCase() === lower)
  if (!entry) return false
  return /^\s*(-?[0-9.]+([eE][-+]?[0-9]+)?|"[^"]*"|TRUE|FALSE)\s*$/i.test(entry.text)
}

/** Defined names that are plain references (`Data!$B$2:$B$9`); others are unknown to the engine. */
function nameResolver(
  book: CalcWorkbook,
  sheetIndex: ReadonlyMap<string, number>,
): (name: string, sheetName: string) => CellRef | RangeRef | null {
  return (name, sheetName) => {
    const local = sheetIndex.get(sheetName.toLowerCase())
    const lower = name.toLowerCase()
    const entry =
      book.names.find((n) => n.name.toLowerCase() === lower && n.localSheet === local) ??
      book.names.find((n) => n.name.toLowerCase() === lower && n.localSheet === undefined)
    if (!entry) return null
    const match = /^(?:'((?:[^']|'')+)'|([^'!:]+))!(\$?[A-Za-z]{1,3}\$?\d+)(?::(\$?[A-Za-z]{1,3}\$?\d+))?$/.exec(
      entry.text.trim(),
    )
    if (!match) return null
    const sheet = match[1] !== undefined ? match[1].replace(/''/g, "'") : (match[2] ?? '')
    const from = parseAddress(match[3] ?? '')
    const to = match[4] === undefined ? from : parseAddress(match[4])
    if (!from || !to) return null
    if (from.row === to.row && from.column === to.column) return { sheet, row: from.row, col: from.column }
    return { sheet, from: { row: from.row, col: from.column }, to: { row: to.row, col: to.column } }
  }
}

type Implementation = (...args: FunctionArg[]) => unknown

/**
 * Functions whose cost grows with an argument a hostile workbook controls (`REPT("",1E15)` loops
 * forever in the library): refused past the limits Excel itself applies, before they run.
 */
const ARGUMENT_BOUNDS: ReadonlyArray<{
  names: readonly string[]
  check: (args: FunctionArg[]) => string | undefined
}> = [
  {
    names: ['REPT'],
    check: ([text, times]) => {
      const length = String(text?.value ?? '').length
      const count = numberArg(times)
      return count !== undefined && (count < 0 || length * Math.trunc(count) > 32_767) ? '#VALUE!' : undefined
    },
  },
  { names: ['MUNIT'], check: ([n]) => ((numberArg(n) ?? 0) > 1_000 ? '#VALUE!' : undefined) },
  // Past 3 million days a workday lies beyond 31 December 9999, where Excel answers #NUM!.
  {
    names: ['WORKDAY', 'WORKDAY.INTL'],
    check: ([, days]) => (Math.abs(numberArg(days) ?? 0) > 3_000_000 ? '#NUM!' : undefined),
  },
  { names: ['FIXED'], check: ([, decimals]) => (Math.abs(numberArg(decimals) ?? 0) > 127 ? '#VALUE!' : undefined) },
  {
    names: ['DEC2BIN', 'DEC2HEX', 'DEC2OCT', 'HEX2BIN', 'HEX2OCT', 'OCT2BIN', 'OCT2HEX', 'BIN2HEX', 'BIN2OCT'],
    check: ([, places]) => ((numberArg(places) ?? 0) > 10 ? '#NUM!' : undefined),
  },
  { names: ['BASE'], check: ([, , length]) => ((numberArg(length) ?? 0) > 255 ? '#NUM!' : undefined) },
]

function numberArg(arg: FunctionArg | undefined): number | undefined {
  const value = arg?.value
  if (typeof value === 'number') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return undefined
}

let bounded: Record<string, Implementation> | undefined

function boundedFunctions(): Record<string, Implementation> {
  if (bounded) return bounded
  const library = new FormulaParser().functions
  const found: Record<string, Implementation> = {}
  for (const { names, check } of ARGUMENT_BOUNDS) {
    for (const name of names) {
      const implementation = library[name]
      if (!implementation) continue
      found[name] = (...args) => {
        const error = check(args)
        if (error) throw new FormulaError(error)
        // An empty text repeated any number of times is empty; the library would still loop.
        if (name === 'REPT' && String(args[0]?.value ?? '') === '') return ''
        return implementation(...args)
      }
    }
  }
  bounded = found
  return found
}

let fallbacks: Record<string, (...args: FunctionArg[]) => unknown> | undefined

/** formulajs's implementations of the functions fast-formula-parser does not implement. */
function fallbackFunctions(): Record<string, (...args: FunctionArg[]) => unknown> {
  if (fallbacks) return fallbacks
  const implemented = new Set(new FormulaParser().supportedFunctions())
  const found: Record<string, (...args: FunctionArg[]) => unknown> = {}
  const visit = (prefix: string, namespace: object, depth: number) => {
    for (const [name, entry] of Object.entries(namespace)) {
      const full = prefix === '' ? name : `${prefix}.${name}`
      if (typeof entry === 'function') {
        if (!implemented.has(full) && /^[A-Z][A-Z0-9.]*$/.test(full))
          found[full] = adapt(entry as (...args: unknown[]) => unknown)
        if (depth < 2) visit(full, entry as object, depth + 1)
      } else if (entry !== null && typeof entry === 'object' && name !== 'utils' && depth < 2) {
        visit(full, entry as object, depth + 1)
      }
    }
  }
  visit('', formulajs, 0)
  fallbacks = found
  return found
}

function adapt(implementation: (...args: unknown[]) => unknown): (...args: FunctionArg[]) => unknown {
  return (...args) => {
    const result = implementation(...args.map((arg) => (arg.omitted ? undefined : arg.value)))
    if (result instanceof FormulaError) throw result
    // formulajs answers an error as an Error whose message is the code (`#VALUE!`).
    if (result instanceof Error) throw new FormulaError(/^#/.test(result.message) ? result.message : '#VALUE!')
    if (result === undefined || result === null) return 0
    return result
  }
}
