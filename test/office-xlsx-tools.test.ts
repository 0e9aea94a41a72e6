import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { XlsxDiffSchema } from '../src/shared/protocol/documents'
import { diffXlsx } from '../src/shared/office/xlsx-diff'
import { editXlsx } from '../src/shared/office/xlsx-edit'
import { readXlsxView } from '../src/shared/office/xlsx-view'
import {
  DOCUMENT_READ_MAX_CHARS,
  type DocumentEdit,
  type DocumentEditOutcome,
} from '../src/shared/office/document-edits'
import { changedParts, corpusFile, makeFormatsXlsx, makeXlsx, unzipParts, zipParts } from './support/office-fixtures'
import { deflatedRepeat, MiB, zip } from './support/office-bombs'
import { tempDir } from './support/temp'

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: the LibreOffice recalculation check — ${detection.reason}`)

const MERGED = 'poi-54288-merged-styles.xlsx'

function okBytes(outcome: DocumentEditOutcome): Uint8Array {
  if (outcome.kind !== 'ok') throw new Error(`refused: ${outcome.reason} — ${outcome.message}`)
  return outcome.bytes
}

async function viewText(bytes: Uint8Array, request: { range?: string; offset?: number; limit?: number } = {}) {
  const outcome = await readXlsxView(bytes, request)
  if (outcome.kind !== 'ok') throw new Error(`refused: ${outcome.reason} — ${outcome.message}`)
  return outcome.text
}

const setCells = (
  range: string,
  values: Array<Array<string | number | boolean | null>>,
  sheet?: string,
): DocumentEdit => ({
  op: 'set_cells',
  range,
  values,
  ...(sheet !== undefined ? { sheet } : {}),
})

describe('read view of a XLSX', () => {
  test('lists the sheets, then each non-empty cell with its value and formula', async () => {
    const text = await viewText(await makeXlsx())
    expect(text).toContain('- Data: used range A1:B4')
    expect(text).toContain('- Summary: used range A1')
    expect(text).toContain('A1 = 10')
    expect(text).toContain('B1 = "Label"')
    expect(text).toContain('A4 = 60  (=SUM(A1:A3))')
    expect(text).toContain('B4 = "Total"')
    expect(text).not.toContain('Summary!A1')
  })

  test('a sheet-qualified range reads that sheet, and a bare sheet name its used range', async () => {
    const bytes = await makeXlsx()
    expect(await viewText(bytes, { range: 'Summary!A1:C3' })).toContain('A1 = 120  (=Data!A4*2)')
    expect(await viewText(bytes, { range: 'Summary' })).toContain('A1 = 120  (=Data!A4*2)')
  })

  test('pages by rows inside the range and names the next range to read', async () => {
    const text = await viewText(await makeXlsx(), { range: 'Data!A1:B4', offset: 1, limit: 2 })
    expect(text).toContain('A1 = 10')
    expect(text).toContain('A2 = 20')
    expect(text).not.toContain('A3 = 30')
    expect(text).toContain('More: read with range "Data!A3:B4"')
  })

  test('a large sheet is cut at the cell bound and the header names where to go on', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c></row>`,
    ).join('')
    const bytes = await workbookWith(rows)
    const text = await viewText(bytes)
    expect(text).toContain('2000 shown')
    expect(text).toContain('More: read with range "Data!A2001:A3000"')
    expect(text).not.toContain('A2001 =')
  })

  test('long texts are cut per cell and the whole view stays within the read bound', async () => {
    const long = 'x'.repeat(5000)
    const rows = Array.from(
      { length: 100 },
      (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>${long}</t></is></c></row>`,
    ).join('')
    const text = await viewText(await workbookWith(rows))
    expect(text.length).toBeLessThanOrEqual(DOCUMENT_READ_MAX_CHARS)
    expect(text).toContain('… (5000 characters in all)')
    expect(text).toMatch(/More: read with range "Data!A\d+:A100"/)
  })

  test('a sheet part that inflates past the bounds is refused as too large, before it is inflated', async () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
    const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships'
    const rows = Buffer.from('<row><c><v>1</v></c></row>'.repeat(1024))
    const bomb = zip([
      {
        name: '_rels/.rels',
        stored: `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      },
      {
        name: 'xl/workbook.xml',
        stored: `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        stored: `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      },
      { name: 'xl/worksheets/sheet1.xml', deflated: await deflatedRepeat(rows, 4 * MiB), declaredSize: 300 * MiB },
    ])
    expect(await readXlsxView(bomb, {})).toMatchObject({ kind: 'refused', reason: 'too-large' })
    expect(await editXlsx(bomb, [setCells('A1', [[1]])])).toMatchObject({ kind: 'refused', reason: 'too-large' })
  })

  test('lists merged ranges of the real POI workbook', async () => {
    const bytes = corpusFile(MERGED)
    if (!bytes) return
    const text = await viewText(bytes)
    expect(text).toMatch(/^merged [A-Z]+\d+:[A-Z]+\d+$/m)
    expect(text).toMatch(/^- .+: used range [A-Z]+\d+:[A-Z]+\d+/m)
  })

  test('refuses a missing sheet, a bad range, an encrypted and a damaged file precisely', async () => {
    const bytes = await makeXlsx()
    expect(await readXlsxView(bytes, { range: 'Nope!A1' })).toMatchObject({ kind: 'refused', reason: 'no-such-sheet' })
    expect(await readXlsxView(bytes, { range: 'A1:ZZZZ9' })).toMatchObject({
      kind: 'refused',
      reason: 'missing-anchor',
    })
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0])
    expect(await readXlsxView(ole, {})).toMatchObject({ kind: 'refused', reason: 'encrypted' })
    expect(await readXlsxView(new TextEncoder().encode('not a zip at all'), {})).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
    })
  })
})

describe('set_cells on a XLSX', () => {
  test('setting a cell a formula depends on rewrites the formula cached value, also across sheets', async () => {
    const before = await makeXlsx()
    const outcome = await editXlsx(before, [setCells('A1', [[15]], 'Data')])
    const after = okBytes(outcome)
    const parts = await unzipParts(after)
    const sheet1 = parts.get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    const sheet2 = parts.get('xl/worksheets/sheet2.xml')?.toString() ?? ''
    expect(sheet1).toContain('<c r="A1" s="2"><v>15</v></c>')
    expect(sheet1).toContain('<c r="A4" s="2"><f>SUM(A1:A3)</f><v>65</v></c>')
    expect(sheet2).toContain('<c r="A1"><f>Data!A4*2</f><v>130</v></c>')
    expect(parts.get('xl/workbook.xml')?.toString()).toContain('fullCalcOnLoad="1"')
    if (outcome.kind === 'ok') {
      expect(outcome.summary).toEqual([
        'Data!A1: 1 cell set; 2 dependent formulas recalculated (Data!A4 = 65, Summary!A1 = 130)',
      ])
    }
  })

  test('untouched parts stay byte-identical; the calculation chain stays when no formula comes or goes', async () => {
    const before = await makeXlsx()
    const after = okBytes(await editXlsx(before, [setCells('Data!A2', [[25]])]))
    expect((await changedParts(before, after)).sort()).toEqual(
      ['xl/workbook.xml', 'xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml'].sort(),
    )
  })

  test('a new formula gets its computed value; text, booleans and clears are typed', async () => {
    const before = await makeXlsx()
    const outcome = await editXlsx(before, [
      setCells('C1:C4', [['=A1*1.25'], ['hello'], [true], ['=A4/0']], 'Data'),
      setCells('B1', [[null]], 'Data'),
    ])
    const after = okBytes(outcome)
    if (outcome.kind === 'ok') {
      expect(outcome.summary).toEqual([
        'Data!C1:C4: 4 cells set',
        'Data!B1: 1 cell set (1 cleared); formula results: Data!C1 = 12.5, Data!C4 = #DIV/0!',
      ])
    }
    const sheet1 = (await unzipParts(after)).get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    expect(sheet1).toContain('<c r="C1"><f>A1*1.25</f><v>12.5</v></c>')
    expect(sheet1).toContain('<c r="C2" t="inlineStr"><is><t>hello</t></is></c>')
    expect(sheet1).toContain('<c r="C3" t="b"><v>1</v></c>')
    expect(sheet1).toContain('<c r="C4" t="e"><f>A4/0</f><v>#DIV/0!</v></c>')
    expect(sheet1).not.toContain('r="B1"')
    expect(sheet1).toContain('<dimension ref="A1:C4"/>')
    // A formula was added: the calculation chain (a cache) goes with its relationship and override.
    const parts = await unzipParts(after)
    expect(parts.has('xl/calcChain.xml')).toBe(false)
    expect(parts.get('[Content_Types].xml')?.toString()).not.toContain('calcChain')
    const text = await viewText(after)
    expect(text).toContain('C1 = 12.5  (=A1*1.25)')
    expect(text).toContain('C2 = "hello"')
  })

  test('a range touching a merged area other than its first cell is refused with zero change', async () => {
    const bytes = await workbookWith(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Title</t></is></c></row>',
      '<mergeCells count="1"><mergeCell ref="A1:D1"/></mergeCells>',
    )
    const refused = await editXlsx(bytes, [setCells('A2', [[1]]), setCells('A1:B1', [['New', 'x']])])
    expect(refused).toMatchObject({ kind: 'refused', reason: 'merged-cell', edit_index: 1 })
    if (refused.kind === 'refused') expect(refused.message).toContain('A1:D1')
    // The merge's whole row with nulls for the covered cells is allowed.
    const after = okBytes(await editXlsx(bytes, [setCells('A1:D1', [['New', null, null, null]])]))
    expect(await viewText(after)).toContain('A1 = "New"')
  })

  test('the real POI workbook: a merged cell is refused, a plain cell is set, every other part kept', async () => {
    const bytes = corpusFile(MERGED)
    if (!bytes) return
    const view = await viewText(bytes)
    const merge = /^merged ([A-Z]+)(\d+):([A-Z]+)(\d+)$/m.exec(view)
    if (!merge) throw new Error('the corpus workbook lists no merged range')
    const covered =
      merge[1] === merge[3]
        ? `${merge[1]}${Number(merge[2]) + 1}`
        : `${String.fromCharCode((merge[1] ?? 'A').charCodeAt(0) + 1)}${merge[2]}`
    const refused = await editXlsx(bytes, [setCells(covered, [['x']])])
    expect(refused).toMatchObject({ kind: 'refused', reason: 'merged-cell' })
    const after = okBytes(await editXlsx(bytes, [setCells('Z200', [[42]])]))
    const changed = await changedParts(bytes, after)
    expect(changed.every((name) => name === 'xl/workbook.xml' || name.startsWith('xl/worksheets/'))).toBe(true)
    expect(await viewText(after, { range: 'Z200' })).toContain('Z200 = 42')
  })

  test('refuses shape mismatches, unknown sheets, bad ranges and other formats with their edit index', async () => {
    const bytes = await makeXlsx()
    expect(await editXlsx(bytes, [setCells('A1:B2', [[1, 2]])])).toMatchObject({
      reason: 'shape-mismatch',
      edit_index: 0,
    })
    expect(await editXlsx(bytes, [setCells('A1', [[1]]), setCells('A1', [[1]], 'Nope')])).toMatchObject({
      reason: 'no-such-sheet',
      edit_index: 1,
    })
    expect(await editXlsx(bytes, [setCells('1A', [[1]])])).toMatchObject({ reason: 'missing-anchor', edit_index: 0 })
    expect(await editXlsx(bytes, [{ op: 'replace_text', anchor: 'p1', text: 'x' }])).toMatchObject({
      reason: 'wrong-format',
      edit_index: 0,
    })
  })

  test('an unbalanced formula is refused; a post-2007 function is stored as Excel stores it and evaluated', async () => {
    const bytes = await makeXlsx()
    const refused = await editXlsx(bytes, [setCells('C1', [['=SUM(A1:A3']])])
    expect(refused).toMatchObject({ kind: 'refused', reason: 'unsupported-content', edit_index: 0 })
    if (refused.kind === 'refused') expect(refused.message).toContain('"(" is not closed')
    const after = okBytes(await editXlsx(bytes, [setCells('C1', [['=IFS(A1>5,"big",TRUE,"small")&" ifs("']])]))
    const sheet = (await unzipParts(after)).get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    expect(sheet).toContain(
      '<c r="C1" t="str"><f>_xlfn.IFS(A1&gt;5,"big",TRUE,"small")&amp;" ifs("</f><v>big ifs(</v></c>',
    )
  })

  test('the head of a shared formula and any cell of an array formula are refused alone', async () => {
    const bytes = await workbookWith(
      '<row r="1"><c r="A1"><v>1</v></c><c r="B1"><f t="shared" ref="B1:B2" si="0">A1*10</f><v>10</v></c><c r="C1"><f t="array" ref="C1:C2">A1:A2*2</f><v>2</v></c></row>' +
        '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><f t="shared" si="0"/><v>20</v></c><c r="C2"><v>4</v></c></row>',
    )
    const shared = await editXlsx(bytes, [setCells('B1', [[5]])])
    expect(shared).toMatchObject({ kind: 'refused', reason: 'unsupported-content', edit_index: 0 })
    if (shared.kind === 'refused') expect(shared.message).toContain('B1:B2')
    expect(await editXlsx(bytes, [setCells('C2', [[5]])])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
    })
    const whole = okBytes(await editXlsx(bytes, [setCells('B1:B2', [['=A1*100'], ['=A2*100']])]))
    expect(await viewText(whole)).toContain('B2 = 200  (=A2*100)')
  })

  test('a column name of a table is refused; the cells under it are set', async () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
    const bytes = await workbookWith(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Amount</t></is></c></row><row r="2"><c r="A2"><v>5</v></c></row>',
      '<tableParts count="1"><tablePart r:id="rId1"/></tableParts>',
      {
        'xl/worksheets/_rels/sheet1.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/table" Target="../tables/table1.xml"/></Relationships>`,
        'xl/tables/table1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Sales" displayName="Sales" ref="A1:A2"><tableColumns count="1"><tableColumn id="1" name="Amount"/></tableColumns></table>`,
      },
    )
    const refused = await editXlsx(bytes, [setCells('A1:A2', [['Total'], [6]])])
    expect(refused).toMatchObject({ kind: 'refused', reason: 'unsupported-content', edit_index: 0 })
    if (refused.kind === 'refused') expect(refused.message).toContain('"Sales"')
    expect(await viewText(okBytes(await editXlsx(bytes, [setCells('A2', [[6]])])))).toContain('A2 = 6')
  })

  test('a formula cycle keeps no stale value and is named in the summary', async () => {
    const bytes = await workbookWith(
      '<row r="1"><c r="A1"><v>1</v></c><c r="B1"><f>A1+C1</f><v>3</v></c><c r="C1"><f>B1</f><v>2</v></c></row>',
    )
    const outcome = await editXlsx(bytes, [setCells('A1', [[5]])])
    const sheet = (await unzipParts(okBytes(outcome))).get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    expect(sheet).toContain('<c r="B1"><f>A1+C1</f></c>')
    if (outcome.kind === 'ok') expect(outcome.summary.join('\n')).toContain('circular reference')
  })

  test('a shared formula dependent is recalculated at its own position', async () => {
    const bytes = await workbookWith(
      '<row r="1"><c r="A1"><v>1</v></c><c r="B1"><f t="shared" ref="B1:B2" si="0">A1*10</f><v>10</v></c></row>' +
        '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><f t="shared" si="0"/><v>20</v></c></row>',
    )
    const after = okBytes(await editXlsx(bytes, [setCells('A2', [[7]])]))
    const sheet = (await unzipParts(after)).get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    expect(sheet).toContain('<c r="B2"><f t="shared" si="0"/><v>70</v></c>')
    expect(sheet).toContain('<c r="B1"><f t="shared" ref="B1:B2" si="0">A1*10</f><v>10</v></c>')
  })

  test('LibreOffice reopens the edited files and its recalculation agrees with the cached values', async () => {
    if (detection.kind !== 'found') return
    const dir = tempDir('retrace-xlsx-lo-')
    const book = okBytes(await editXlsx(await makeXlsx(), [setCells('Data!A1:A3', [[1.5], [2], ['=A1*4']])]))
    const parts = await unzipParts(book)
    expect(parts.get('xl/worksheets/sheet1.xml')?.toString()).toContain('<f>SUM(A1:A3)</f><v>9.5</v>')
    expect(parts.get('xl/worksheets/sheet2.xml')?.toString()).toContain('<f>Data!A4*2</f><v>19</v>')
    writeFileSync(join(dir, 'book.xlsx'), book)
    // The same workbook without any cached formula result: LibreOffice has to compute them itself.
    const uncached = Object.fromEntries(
      [...parts].map(([name, bytes]) => [
        name,
        name.startsWith('xl/worksheets/')
          ? bytes.toString().replace(/(<\/f>)<v>[^<]*<\/v>/g, '$1')
          : new Uint8Array(bytes),
      ]),
    )
    writeFileSync(join(dir, 'uncached.xlsx'), await zipParts(uncached))
    const poi = corpusFile(MERGED)
    if (poi) writeFileSync(join(dir, 'poi.xlsx'), okBytes(await editXlsx(poi, [setCells('C5', [['=2*21']])])))
    // Every sheet to its own CSV (the 12th filter token, -1), with LibreOffice's own recalculation.
    execFileSync(
      detection.install.soffice,
      [
        `-env:UserInstallation=file://${join(dir, 'profile')}`,
        '--headless',
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1',
        '--outdir',
        dir,
        join(dir, 'book.xlsx'),
        join(dir, 'uncached.xlsx'),
        ...(poi ? [join(dir, 'poi.xlsx')] : []),
      ],
      { stdio: 'ignore', timeout: 120_000 },
    )
    const csv = (name: string) => {
      const file = readdirSync(dir).find((n) => n === name)
      if (!file) throw new Error(`LibreOffice wrote no ${name} (${readdirSync(dir).join(', ')})`)
      return readFileSync(join(dir, file), 'utf8')
        .split(/\r?\n/)
        .map((line) => line.split(','))
    }
    expect(csv('book-Data.csv')[3]?.[0]).toBe('9.5')
    expect(csv('book-Summary.csv')[0]?.[0]).toBe('19')
    expect(csv('uncached-Data.csv')[3]?.[0]).toBe('9.5')
    expect(csv('uncached-Data.csv')[2]?.[0]).toBe('6')
    expect(csv('uncached-Summary.csv')[0]?.[0]).toBe('19')
    if (poi) expect(csv('poi-MIDCON-PJM.csv')[4]?.[2]).toBe('42')
  }, 150_000)
})

describe('cell diff of a XLSX', () => {
  test('lists the set cell and the recalculated dependents, per sheet, with exact counts', async () => {
    const before = await makeXlsx()
    const after = okBytes(await editXlsx(before, [setCells('A1', [[15]], 'Data')]))
    const diff = XlsxDiffSchema.parse(await diffXlsx(before, after))
    expect(diff.counts).toEqual({ cells: 3, sheets_added: 0, sheets_removed: 0 })
    expect(diff.sheets).toEqual([
      {
        name: 'Data',
        change: 'changed',
        old_name: null,
        cells: [
          // Values as the cells' number format (0.00) shows them.
          { address: 'A1', before: { value: '10.00', formula: null }, after: { value: '15.00', formula: null } },
          {
            address: 'A4',
            before: { value: '60.00', formula: 'SUM(A1:A3)' },
            after: { value: '65.00', formula: 'SUM(A1:A3)' },
          },
        ],
        cell_count: 2,
        truncated: false,
      },
      {
        name: 'Summary',
        change: 'changed',
        old_name: null,
        cells: [
          {
            address: 'A1',
            before: { value: '120', formula: 'Data!A4*2' },
            after: { value: '130', formula: 'Data!A4*2' },
          },
        ],
        cell_count: 1,
        truncated: false,
      },
    ])
  })

  test('added, removed and renamed sheets; an absent side', async () => {
    const before = await makeXlsx()
    const none = await diffXlsx(null, before)
    expect(none.counts).toEqual({ cells: 7, sheets_added: 2, sheets_removed: 0 })
    const renamed = await zipParts(
      Object.fromEntries(
        [...(await unzipParts(before))].map(([name, bytes]) => [
          name,
          name === 'xl/workbook.xml'
            ? bytes.toString().replace('name="Summary"', 'name="Totals"')
            : new Uint8Array(bytes),
        ]),
      ),
    )
    const diff = await diffXlsx(before, renamed)
    expect(diff.sheets).toEqual([
      { name: 'Totals', change: 'renamed', old_name: 'Summary', cells: [], cell_count: 0, truncated: false },
    ])
  })

  test('an unreadable side throws the package error the engine reports', async () => {
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
    await expect(diffXlsx(await makeXlsx(), ole)).rejects.toMatchObject({ reason: 'encrypted' })
    await expect(diffXlsx(new Uint8Array([1, 2, 3]), null)).rejects.toMatchObject({ reason: 'corrupt' })
  })

  test('a 50 000-cell sheet diff is cut at the list bound with exact counts', async () => {
    const rows = (shift: number) =>
      Array.from(
        { length: 5000 },
        (_, r) =>
          `<row r="${r + 1}">${Array.from({ length: 10 }, (_, c) => `<c r="${String.fromCharCode(65 + c)}${r + 1}"><v>${r * 10 + c + (c === 0 ? shift : 0)}</v></c>`).join('')}</row>`,
      ).join('')
    const diff = await diffXlsx(await workbookWith(rows(0)), await workbookWith(rows(1)))
    expect(diff.counts.cells).toBe(5000)
    expect(diff.sheets[0]?.cells).toHaveLength(1000)
    expect(diff.sheets[0]?.truncated).toBe(true)
    expect(diff.sheets[0]?.cells[0]?.address).toBe('A1')
  })

  test('dates and percentages read and diff as their number format shows them', async () => {
    const bytes = await makeFormatsXlsx()
    expect(await diffXlsx(bytes, bytes)).toEqual({
      kind: 'xlsx',
      counts: { cells: 0, sheets_added: 0, sheets_removed: 0 },
      sheets: [],
    })
    const text = await viewText(bytes)
    expect(text).toContain('A1 = 45354 (shown as "2024-03-03")')
    expect(text).toContain('B1 = 0.0234 (shown as "2.34%")')
    const after = okBytes(await editXlsx(bytes, [setCells('A1', [[45355]])]))
    const diff = await diffXlsx(bytes, after)
    expect(diff.sheets[0]?.cells).toEqual([
      { address: 'A1', before: { value: '2024-03-03', formula: null }, after: { value: '2024-03-04', formula: null } },
    ])
  })
})

/** A one-sheet workbook ("Data") with the given rows and trailing sheet XML. */
async function workbookWith(rows: string, tail = '', extraParts: Record<string, string> = {}): Promise<Uint8Array> {
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
  const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships'
  return zipParts({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheetData>${rows}</sheetData>${tail}</worksheet>`,
    ...extraParts,
  })
}
