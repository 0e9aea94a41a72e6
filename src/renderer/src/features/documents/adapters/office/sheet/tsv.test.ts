import { describe, expect, test } from 'vitest'
import { fromTsv, toTsv } from './tsv'

describe('cells as TSV, as spreadsheet apps put them on the clipboard', () => {
  test('a block copied from Excel (CRLF, a trailing line break) pastes as its rows, ragged rows padded', () => {
    expect(fromTsv('1\t2\r\n3\t=A1+B1\r\n')).toEqual([
      ['1', '2'],
      ['3', '=A1+B1'],
    ])
    expect(fromTsv('a\tb\nc\n')).toEqual([
      ['a', 'b'],
      ['c', ''],
    ])
  })

  test('a cell holding a tab, a line break or a quote survives a round trip', () => {
    const rows = [
      ['two\nlines', 'tab\there', 'say "hi"'],
      ['', 'plain', ''],
    ]
    expect(fromTsv(toTsv(rows))).toEqual(rows)
  })
})
