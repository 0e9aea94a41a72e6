import Papa from 'papaparse'

export interface Table {
  readonly rows: string[][]
  readonly columns: number
  readonly delimiter: string
  readonly errors: number
}

/**
 * CSV/TSV through papaparse: delimiter from the extension (`.tsv`/`.tab` → tab) or detected,
 * quotes and escaped quotes honoured, embedded newlines kept inside their cell.
 */
export function parseTable(text: string, path: string): Table {
  const tab = /\.(tsv|tab)$/i.test(path)
  const parsed = Papa.parse<string[]>(text, {
    delimiter: tab ? '\t' : '',
    skipEmptyLines: 'greedy',
  })
  let columns = 0
  for (const row of parsed.data) if (row.length > columns) columns = row.length
  return { rows: parsed.data, columns, delimiter: parsed.meta.delimiter, errors: parsed.errors.length }
}
