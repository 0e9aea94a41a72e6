import { describe, expect, test } from 'vitest'
import { recalculate, type CalcCell, type CalcWorkbook } from '../src/shared/office/xlsx-calc'
import { shiftFormula } from '../src/shared/office/xlsx-formula-text'
import { parseAddress } from '../src/shared/office/xlsx'
import { cellKey, type DefinedName } from '../src/shared/office/xlsx-model'

/** A workbook from `{ Sheet: { A1: 1, B1: '=A1*2' } }`; "=…" is a formula (its cached value `cached`). */
function book(
  sheets: Record<string, Record<string, number | string | boolean | null>>,
  names: DefinedName[] = [],
  cached: Record<string, number> = {},
): CalcWorkbook {
  return {
    names,
    sheets: Object.entries(sheets).map(([name, cells]) => ({
      name,
      cells: new Map(
        Object.entries(cells).map(([address, value]): [number, CalcCell] => {
          const at = parseAddress(address)
          if (!at) throw new Error(address)
          const key = cellKey(at.row, at.column)
          if (typeof value === 'string' && value.startsWith('=')) {
            return [key, { value: cached[`${name}!${address}`] ?? 0, formula: value.slice(1), formulaType: 'normal' }]
          }
          return [key, { value }]
        }),
      ),
    })),
  }
}

const at = (address: string) => {
  const a = parseAddress(address)
  if (!a) throw new Error(address)
  return cellKey(a.row, a.column)
}

describe('recalculation of dependent formulas', () => {
  test('follows references across sheets and ranges, and leaves independent formulas alone', () => {
    const workbook = book(
      { Data: { A1: 5, A2: 7, A3: '=SUM(A1:A2)', B1: '=1+1' }, Summary: { A1: '=Data!A3*2', B1: "='Data'!B1" } },
      [],
      { 'Data!B1': 99 },
    )
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    expect(result.values.get(0)?.get(at('A3'))).toBe(12)
    expect(result.values.get(1)?.get(at('A1'))).toBe(24)
    // B1 reads nothing that changed: its cached value (even a "wrong" one) is Excel's, not ours to rewrite.
    expect(result.values.get(0)?.has(at('B1'))).toBe(false)
    expect(result.values.get(1)?.has(at('B1'))).toBe(false)
    expect(result.notEvaluated.size).toBe(0)
  })

  test('a cell of one sheet inside the rows and columns of a range of another sheet is still a dependency', () => {
    const workbook = book({ Data: { A1: 1, A2: 2, A3: 3 }, Summary: { A2: 10, B1: '=SUM(Data!A1:A3)+A2' } })
    const result = recalculate(workbook, [{ sheet: 1, key: at('A2') }])
    expect(result.values.get(1)?.get(at('B1'))).toBe(16)
  })

  test('a formula that does not parse has unknown references: any change leaves it to the app', () => {
    const workbook = book({ Data: { A1: 1, B1: '=SUM(Table1[Amount])', C1: '=A1+TaxRate', D1: '=5' } }, [
      { name: 'TaxRate', localSheet: undefined, text: '0.2' },
    ])
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    expect(result.notEvaluated.get(0)?.get(at('B1'))?.reason).toBe('unsupported')
    // A constant name reads no cell, but the engine cannot evaluate it: reported, not guessed.
    expect(result.notEvaluated.get(0)?.get(at('C1'))?.reason).toBe('unsupported')
    expect(result.notEvaluated.get(0)?.has(at('D1'))).toBe(false)
  })

  test('defined names that are references, and functions only formulajs has (MAX, SUMIFS, COUNTA)', () => {
    const workbook = book(
      {
        Data: {
          A1: 3,
          A2: 9,
          A3: 4,
          B1: '=MAX(Prices)',
          B2: '=SUMIFS(A1:A3,A1:A3,">3")',
          B3: '=COUNTA(A1:A3)',
          B4: '=Rate*10',
        },
      },
      [
        { name: 'Prices', localSheet: undefined, text: 'Data!$A$1:$A$3' },
        { name: 'Rate', localSheet: undefined, text: "'Data'!$A$1" },
      ],
    )
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    const values = result.values.get(0)
    expect(values?.get(at('B1'))).toBe(9)
    expect(values?.get(at('B2'))).toBe(13)
    expect(values?.get(at('B3'))).toBe(3)
    expect(values?.get(at('B4'))).toBe(30)
  })

  test('an unknown function, an unknown name and a cycle are reported, never guessed', () => {
    const workbook = book({
      Data: { A1: 1, B1: '=NOSUCHFUNCTION(A1)', C1: '=A1+UnknownName', D1: '=A1+E1', E1: '=D1', F1: '=B1+1' },
    })
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    const skipped = result.notEvaluated.get(0)
    expect(skipped?.get(at('B1'))?.reason).toBe('unsupported')
    expect(skipped?.get(at('C1'))?.reason).toBe('unsupported')
    expect(skipped?.get(at('D1'))?.reason).toMatch(/cycle|depends-on-unevaluated/)
    expect(skipped?.get(at('E1'))?.reason).toMatch(/cycle|depends-on-unevaluated/)
    expect(skipped?.get(at('F1'))?.reason).toBe('depends-on-unevaluated')
    expect(result.values.get(0)?.size ?? 0).toBe(0)
  })

  test('a 20 000-row running total is evaluated without exhausting the stack', () => {
    const cells: Record<string, number | string> = { A1: 1, B1: '=A1' }
    for (let row = 2; row <= 20_000; row++) {
      cells[`A${row}`] = 1
      cells[`B${row}`] = `=B${row - 1}+A${row}`
    }
    // Reverse order too: each cell reads the one below it.
    for (let row = 1; row < 3_000; row++) cells[`C${row}`] = `=C${row + 1}+1`
    cells.C3000 = '=A1'
    const result = recalculate(book({ Data: cells }), [{ sheet: 0, key: at('A1') }])
    expect(result.values.get(0)?.get(at('B20000'))).toBe(20_000)
    expect(result.values.get(0)?.get(at('C1'))).toBe(3_000)
    expect(result.notEvaluated.size).toBe(0)
  })

  test('past the formula budget nothing is guessed: every formula is reported', () => {
    const workbook = book({ Data: { A1: 1, B1: '=A1', B2: '=A1*2', B3: '=5' } })
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }], { maxFormulas: 2 })
    expect(result.values.size).toBe(0)
    expect([...(result.notEvaluated.get(0)?.values() ?? [])].map((n) => n.reason)).toEqual([
      'budget',
      'budget',
      'budget',
    ])
  })

  test('references built at run time (INDIRECT) count as dependent on any change, and are reported', () => {
    const workbook = book({ Data: { A1: 4, B1: '=INDIRECT("Z"&9)*2', C1: '=9' } })
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    // The engine has no INDIRECT: the formula may read A1, so its cached value is not trusted.
    expect(result.notEvaluated.get(0)?.get(at('B1'))?.reason).toBe('unsupported')
    expect(result.notEvaluated.get(0)?.has(at('C1'))).toBe(false)
  })

  test('functions whose cost a hostile argument controls answer Excel errors instead of running away', () => {
    const workbook = book({
      Data: {
        A1: 1,
        B1: '=LEN(REPT("ab",1E+8))+A1',
        B2: '=SUM(MUNIT(2000))+A1',
        B3: '=DEC2BIN(A1,20)',
        B4: '=WORKDAY(A1,1E+9)',
        B5: '=REPT("",1E+15)&A1',
        B6: '=REPT("ab",2)&A1',
      },
    })
    const values = recalculate(workbook, [{ sheet: 0, key: at('A1') }]).values.get(0)
    expect(values?.get(at('B1'))).toEqual({ error: '#VALUE!' })
    expect(values?.get(at('B2'))).toEqual({ error: '#VALUE!' })
    expect(values?.get(at('B3'))).toEqual({ error: '#NUM!' })
    expect(values?.get(at('B4'))).toEqual({ error: '#NUM!' })
    expect(values?.get(at('B5'))).toBe('1')
    expect(values?.get(at('B6'))).toBe('abab1')
  })

  test('date functions are not evaluated in a workbook that counts days from 1904', () => {
    const workbook = { ...book({ Data: { A1: 1, B1: '=DATE(2024,1,A1)', C1: '=A1+1' } }), date1904: true }
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    expect(result.notEvaluated.get(0)?.get(at('B1'))?.reason).toBe('unsupported')
    expect(result.values.get(0)?.get(at('C1'))).toBe(2)
  })

  test('errors and text results are values; a new formula is evaluated', () => {
    const workbook = book({ Data: { A1: 0, B1: '=1/A1', C1: '="n="&A1', D1: '=A1=0' } })
    const result = recalculate(workbook, [{ sheet: 0, key: at('A1') }])
    expect(result.values.get(0)?.get(at('B1'))).toEqual({ error: '#DIV/0!' })
    expect(result.values.get(0)?.get(at('C1'))).toBe('n=0')
    expect(result.values.get(0)?.get(at('D1'))).toBe(true)
  })
})

describe('shared formula text moved to a cell', () => {
  test('moves relative references, keeps absolute ones, strings and sheet names', () => {
    expect(shiftFormula('A1*$B$1+B$2+$C3', 2, 1)).toBe('B3*$B$1+C$2+$C5')
    expect(shiftFormula('SUM(Data!A1:A3)&"A1"', 1, 0)).toBe('SUM(Data!A2:A4)&"A1"')
    expect(shiftFormula("'Q1 A1'!B2+LOG10(A1)", 1, 0)).toBe("'Q1 A1'!B3+LOG10(A2)")
    expect(shiftFormula('SUM(A:A)+Rate2020', 0, 1)).toBe('SUM(B:B)+Rate2020')
    expect(shiftFormula('A1', -1, 0)).toBe('#REF!')
  })
})
