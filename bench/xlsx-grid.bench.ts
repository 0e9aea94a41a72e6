import { openWorkbook, readSheet } from '../src/shared/office/xlsx'
import { readSheetLook } from '../src/shared/office/xlsx-styles'
import { scanTags } from '../src/shared/office/xml'
import { zipParts } from '../test/support/office-fixtures'
import { medianPairMs, report } from './measure'

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships'
const ROWS = 5_000
const COLUMNS = 10

/** 50 000 cells: styled numbers, one SUM per row, widths, a merge per 100 rows and a frozen header. */
async function bigSheet(): Promise<Uint8Array> {
  const rows: string[] = []
  for (let row = 1; row <= ROWS; row++) {
    const cells: string[] = []
    for (let column = 1; column < COLUMNS; column++) {
      cells.push(`<c r="${String.fromCharCode(64 + column)}${row}" s="${row % 3}"><v>${row * column}</v></c>`)
    }
    cells.push(`<c r="J${row}" s="1"><f>SUM(A${row}:I${row})</f><v>${row * 45}</v></c>`)
    rows.push(`<row r="${row}"${row % 50 === 0 ? ' ht="30" customHeight="1"' : ''}>${cells.join('')}</row>`)
  }
  const merges = Array.from({ length: ROWS / 100 }, (_, i) => `<mergeCell ref="K${i * 100 + 1}:L${i * 100 + 2}"/>`)
  return zipParts({
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    'xl/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.00"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><color rgb="FFC00000"/><name val="Calibri"/></font></fonts><fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill><fill><patternFill patternType="solid"><fgColor rgb="FFFFFF00"/></patternFill></fill></fills><borders count="2"><border/><border><bottom style="thin"><color rgb="FF000000"/></bottom></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="1" fillId="2" borderId="1" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"><alignment horizontal="center"/></xf></cellXfs></styleSheet>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:J${ROWS}"/><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><cols><col min="1" max="1" width="20" customWidth="1"/></cols><sheetData>${rows.join('')}</sheetData><mergeCells count="${merges.length}">${merges.join('')}</mergeCells></worksheet>`,
  })
}

/**
 * The grid's model of a 50 000-cell sheet — its cells with values and formats (`readSheet`) and
 * its look (`readSheetLook`: styles, widths, heights, merges, frozen pane) — against the floor any
 * reader on the same package and XML scanner pays: opening the package and visiting every tag of
 * the sheet part once. The first screen of the grid waits for exactly this model.
 */
export async function benchXlsxGrid(): Promise<void> {
  const bytes = await bigSheet()
  const model = async () => {
    const [sheet] = await Promise.all([readSheet(bytes, 'Big'), readSheetLook(bytes, 'Big')])
    if (sheet.cells.length !== ROWS * COLUMNS) throw new Error(`read ${sheet.cells.length} cells`)
  }
  const plainParse = async () => {
    const book = await openWorkbook(bytes)
    const xml = await book.pkg.text(book.sheets[0]?.part ?? '')
    let tags = 0
    for (const tag of scanTags(xml)) if (tag.kind !== 'close') tags++
    if (tags < ROWS * COLUMNS) throw new Error(`scanned ${tags} tags`)
  }
  const [subject, baseline] = await medianPairMs(model, plainParse, 7, 1)
  report('xlsx grid model of 50 000 cells vs a plain tag scan', subject, baseline)
}
