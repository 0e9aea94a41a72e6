import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { editXlsxStructure, type StructureEdit, type StructureOutcome } from '../src/shared/office/xlsx-structure'
import { changedParts, makeXlsx, unzipParts, zipParts } from './support/office-fixtures'
import { tempDir } from './support/temp'

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: the LibreOffice reopen check — ${detection.reason}`)

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'

/** A workbook with what a row or column change must move: formulas, a merge, names, rules, a link, widths. */
async function book(dataSheet?: string): Promise<Uint8Array> {
  const data =
    dataSheet ??
    `<dimension ref="A1:C5"/><cols><col min="1" max="1" width="20" customWidth="1"/><col min="3" max="3" width="5" customWidth="1"/></cols><sheetData><row r="1" spans="1:3"><c r="A1"><v>10</v></c><c r="B1" t="inlineStr"><is><t>Head</t></is></c></row><row r="2"><c r="A2"><v>20</v></c></row><row r="3"><c r="A3"><v>30</v></c></row><row r="4"><c r="A4"><f>SUM(A1:A3)</f><v>60</v></c><c r="C4"><f>$A$3+A2</f><v>50</v></c></row><row r="5"><c r="B5" t="inlineStr"><is><t>link</t></is></c></row></sheetData><mergeCells count="1"><mergeCell ref="B1:C2"/></mergeCells><conditionalFormatting sqref="A1:A4"><cfRule type="expression" dxfId="0" priority="1"><formula>A1&gt;15</formula></cfRule></conditionalFormatting><hyperlinks><hyperlink ref="B5" display="x" location="Summary!A1"/></hyperlinks>`
  return zipParts({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/worksheets/sheet3.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Summary" sheetId="2" r:id="rId2"/><sheet name="Other" sheetId="3" r:id="rId3"/></sheets><definedNames><definedName name="Total">Data!$A$4</definedName><definedName name="Elsewhere">Other!$A$4</definedName></definedNames><calcPr calcId="191029"/></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/worksheet" Target="worksheets/sheet2.xml"/><Relationship Id="rId3" Type="${REL}/worksheet" Target="worksheets/sheet3.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${data}</worksheet>`,
    'xl/worksheets/sheet2.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><f>Data!A4*2+'Data'!A2</f><v>140</v></c><c r="B1"><f>A4</f><v>0</v></c></row></sheetData></worksheet>`,
    'xl/worksheets/sheet3.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="4"><c r="A4"><v>1</v></c></row></sheetData></worksheet>`,
  })
}

function ok(outcome: StructureOutcome): Uint8Array {
  if (outcome.kind !== 'ok') throw new Error(`refused: ${outcome.reason} — ${outcome.message}`)
  return outcome.bytes
}

const part = async (bytes: Uint8Array, name: string) => (await unzipParts(bytes)).get(name)?.toString() ?? ''
const rows = (at: number, count: number): StructureEdit => ({ sheet: 'Data', axis: 'row', at, count })

describe('inserting and deleting rows and columns of a XLSX sheet', () => {
  test('inserting rows moves cells and every reference into the sheet; other sheets and parts stay as they were', async () => {
    const before = await book()
    const after = ok(await editXlsxStructure(before, rows(2, 2)))
    const data = await part(after, 'xl/worksheets/sheet1.xml')
    expect(data).toContain('<row r="4"><c r="A4"><v>20</v></c></row>')
    // A range the line crosses grows; absolute references move too; cached values stay (nothing changed them).
    expect(data).toContain('<c r="A6"><f>SUM(A1:A5)</f><v>60</v></c>')
    expect(data).toContain('<c r="C6"><f>$A$5+A4</f><v>50</v></c>')
    expect(data).toContain('<mergeCell ref="B1:C4"/>')
    expect(data).toContain('<dimension ref="A1:C7"/>')
    expect(data).toContain('<conditionalFormatting sqref="A1:A6">')
    expect(data).toContain('<formula>A1&gt;15</formula>')
    expect(data).toContain('<hyperlink ref="B7"')
    const summary = await part(after, 'xl/worksheets/sheet2.xml')
    // Qualified references into Data move; Summary's own A4 does not.
    expect(summary).toContain(`<f>Data!A6*2+'Data'!A4</f>`)
    expect(summary).toContain('<f>A4</f>')
    const workbook = await part(after, 'xl/workbook.xml')
    expect(workbook).toContain('<definedName name="Total">Data!$A$6</definedName>')
    expect(workbook).toContain('<definedName name="Elsewhere">Other!$A$4</definedName>')
    expect(workbook).toContain('fullCalcOnLoad="1"')
    expect((await changedParts(before, after)).sort()).toEqual([
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
    ])
  })

  test('deleting a row drops its cells, shrinks ranges, turns references to it into #REF! and drops stale results', async () => {
    const after = ok(await editXlsxStructure(await book(), rows(2, -1)))
    const data = await part(after, 'xl/worksheets/sheet1.xml')
    expect(data).not.toContain('<v>20</v>')
    expect(data).toContain('<c r="A3"><f>SUM(A1:A2)</f></c>')
    expect(data).toContain('<c r="C3"><f>$A$2+#REF!</f></c>')
    expect(data).toContain('<mergeCell ref="B1:C1"/>')
    expect(await part(after, 'xl/worksheets/sheet2.xml')).toContain('<c r="A1"><f>Data!A3*2+#REF!</f></c>')
  })

  test('inserting and deleting columns moves cells, widths and references', async () => {
    const inserted = ok(await editXlsxStructure(await book(), { sheet: 'Data', axis: 'column', at: 1, count: 1 }))
    const data = await part(inserted, 'xl/worksheets/sheet1.xml')
    expect(data).toContain('<col min="2" max="2" width="20" customWidth="1"/>')
    expect(data).toContain('<col min="4" max="4" width="5" customWidth="1"/>')
    expect(data).toContain('<row r="1"><c r="B1"><v>10</v></c><c r="C1" t="inlineStr">')
    expect(data).toContain('<c r="B4"><f>SUM(B1:B3)</f><v>60</v></c>')
    expect(data).toContain('<mergeCell ref="C1:D2"/>')
    const deleted = ok(await editXlsxStructure(await book(), { sheet: 'Data', axis: 'column', at: 2, count: -1 }))
    const shrunk = await part(deleted, 'xl/worksheets/sheet1.xml')
    expect(shrunk).not.toContain('Head')
    expect(shrunk).toContain('<mergeCell ref="B1:B2"/>')
    expect(shrunk).toContain('<c r="B4"><f>$A$3+A2</f>')
    expect(shrunk).not.toContain('<hyperlink ')
  })

  test('refuses what it cannot move safely, writing nothing: anchored objects, array and shared formulas it would cut', async () => {
    const withDrawing = await editXlsxStructure(await makeXlsx(), rows(2, 1))
    expect(withDrawing).toMatchObject({ kind: 'refused', reason: 'anchored-objects' })
    const array = await editXlsxStructure(
      await book('<sheetData><row r="1"><c r="A1"><f t="array" ref="A1:A3">B1:B3*2</f><v>0</v></c></row></sheetData>'),
      rows(2, 1),
    )
    expect(array).toMatchObject({ kind: 'refused', reason: 'array-formula' })
    expect(array.kind === 'refused' && array.message).toContain('A1:A3')
    // B1:B3 share =A1*2; B5 = A2 shifted would point across the inserted row differently.
    const shared = await editXlsxStructure(
      await book(
        '<sheetData><row r="1"><c r="B1"><f t="shared" ref="B1:B3" si="0">A5*2</f><v>0</v></c></row><row r="2"><c r="B2"><f t="shared" si="0"/><v>0</v></c></row><row r="3"><c r="B3"><f t="shared" si="0"/><v>0</v></c></row></sheetData>',
      ),
      rows(7, 1),
    )
    expect(shared).toMatchObject({ kind: 'refused', reason: 'shared-formula' })
    const cut = await editXlsxStructure(
      await book(
        '<sheetData><row r="1"><c r="B1"><f t="shared" ref="B1:B3" si="0">A1*2</f><v>0</v></c></row><row r="2"><c r="B2"><f t="shared" si="0"/><v>0</v></c></row><row r="3"><c r="B3"><f t="shared" si="0"/><v>0</v></c></row></sheetData>',
      ),
      rows(2, 1),
    )
    expect(cut).toMatchObject({ kind: 'refused', reason: 'shared-formula' })
    // A shared formula wholly below the line moves as one.
    const below = ok(
      await editXlsxStructure(
        await book(
          '<sheetData><row r="3"><c r="B3"><f t="shared" ref="B3:B4" si="0">A3*2</f><v>0</v></c></row><row r="4"><c r="B4"><f t="shared" si="0"/><v>0</v></c></row></sheetData>',
        ),
        rows(1, 1),
      ),
    )
    expect(await part(below, 'xl/worksheets/sheet1.xml')).toContain(
      '<c r="B4"><f t="shared" ref="B4:B5" si="0">A4*2</f>',
    )
    const extension = await editXlsxStructure(
      await book(
        '<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData><extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:conditionalFormattings><x14:conditionalFormatting xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><xm:sqref>A1:A5</xm:sqref></x14:conditionalFormatting></x14:conditionalFormattings></ext></extLst>',
      ),
      rows(1, 1),
    )
    expect(extension).toMatchObject({ kind: 'refused', reason: 'extension-ranges' })
    expect(await editXlsxStructure(await book(), rows(0, 1))).toMatchObject({ kind: 'refused', reason: 'bad-position' })
    expect(await editXlsxStructure(await book(), rows(1, 20_000))).toMatchObject({
      kind: 'refused',
      reason: 'bad-position',
    })
    expect(await editXlsxStructure(await book(), { ...rows(1, 1), sheet: 'Nope' })).toMatchObject({
      kind: 'refused',
      reason: 'no-such-sheet',
    })
  })

  test('LibreOffice reopens the shifted workbook and computes the moved formula from its moved inputs', async () => {
    if (detection.kind === 'missing') return
    const dir = tempDir('xlsx-structure-')
    writeFileSync(join(dir, 'shifted.xlsx'), ok(await editXlsxStructure(await book(), rows(2, 2))))
    execFileSync(
      detection.install.soffice,
      [
        `-env:UserInstallation=file://${join(dir, 'profile')}`,
        '--headless',
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1',
        '--outdir',
        dir,
        join(dir, 'shifted.xlsx'),
      ],
      { stdio: 'ignore', timeout: 120_000 },
    )
    const csv = (name: string) =>
      readFileSync(join(dir, name), 'utf8')
        .split(/\r?\n/)
        .map((line) => line.split(','))
    // Data!A6 = SUM(A1:A5) = 60; Summary!A1 = Data!A6*2 + Data!A4 = 140.
    expect(csv('shifted-Data.csv')[5]?.[0]).toBe('60')
    expect(csv('shifted-Summary.csv')[0]?.[0]).toBe('140')
  }, 150_000)
})
