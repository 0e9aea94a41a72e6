import Papa from 'papaparse'

/** Pasted text past this is not a range someone copied from a spreadsheet: it is refused, not parsed. */
export const MAX_PASTE_CHARS = 5_000_000

/**
 * A block of cells as other spreadsheet apps put it on the clipboard: tab between cells, a line
 * break between rows, fields holding a tab, a line break or a quote in double quotes.
 */
export function toTsv(rows: readonly (readonly string[])[]): string {
  return Papa.unparse(rows as string[][], { delimiter: '\t', newline: '\r\n', quotes: false })
}

/** Rows of cells from pasted text; a trailing line break (Excel ends every copy with one) adds no row. */
export function fromTsv(text: string): string[][] {
  const parsed = Papa.parse<string[]>(text.replace(/\r?\n$/, ''), { delimiter: '\t', header: false })
  const rows = parsed.data
  const width = Math.max(0, ...rows.map((row) => row.length))
  // A ragged block (one line shorter) still pastes as a rectangle: missing cells are empty.
  return rows.map((row) => [...row, ...Array<string>(width - row.length).fill('')])
}
