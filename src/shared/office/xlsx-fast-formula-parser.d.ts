// The parts of fast-formula-parser (MIT, no bundled types) that xlsx-calc.ts uses.
declare module 'fast-formula-parser' {
  export interface CellRef {
    sheet?: string
    row: number
    col: number
  }
  export interface RangeRef {
    sheet?: string
    from: { row: number; col: number }
    to: { row: number; col: number }
  }
  export interface Position {
    sheet: string
    row: number
    col: number
  }
  export interface FunctionArg {
    value: unknown
    isArray: boolean
    isRangeRef?: boolean
    isCellRef?: boolean
    omitted?: boolean
  }
  export interface ParserConfig {
    functions?: Record<string, (...args: FunctionArg[]) => unknown>
    onCell?: (ref: CellRef) => unknown
    onRange?: (ref: RangeRef) => unknown[][]
    onVariable?: (name: string, sheetName: string) => CellRef | RangeRef | null
  }
  export class FormulaError extends Error {
    constructor(error: string, message?: string, details?: unknown)
    readonly error: string
    readonly details: unknown
  }
  export class DepParser {
    constructor(config?: { onVariable?: ParserConfig['onVariable'] })
    parse(formula: string, position: Position, ignoreError?: boolean): Array<CellRef | RangeRef>
  }
  export default class FormulaParser {
    constructor(config?: ParserConfig)
    parse(formula: string, position: Position, allowReturnArray?: boolean): unknown
    supportedFunctions(): string[]
    /** Every implementation by upper-case name; each takes `FunctionArg`s. */
    readonly functions: Record<string, (...args: FunctionArg[]) => unknown>
    static readonly DepParser: typeof DepParser
    static readonly FormulaError: typeof FormulaError
    /** The bundled SheetJS SSF 0.10 (Apache-2.0): a value in a spreadsheet number format. */
    static readonly SSF: {
      format(format: string | number, value: number, options?: { date1904?: boolean }): string
    }
  }
}
