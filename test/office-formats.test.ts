import { describe, expect, test } from 'vitest'
import { changedParts, corpusFile, makeDocx, makePptx, makeXlsx, unzipParts, zipParts } from './support/office-fixtures'
import { scanDocx } from '../src/shared/office/docx'
import { editSlideText, LINE_BREAK, readSlideTexts } from '../src/shared/office/pptx'
import { editCell, listSheets, parseAddress, parseCellInput, readSheet } from '../src/shared/office/xlsx'
import { applySplices, attributesAt, findFirst, scanTags, withAttribute } from '../src/shared/office/xml'
import { openPackage, PackageError } from '../src/shared/office/zip'

const text = (parts: Map<string, Buffer>, name: string) => parts.get(name)?.toString('utf8') ?? ''

describe('xml scanner', () => {
  test('skips comments, CDATA and processing instructions, honours quoted >', () => {
    const xml = `<?xml version="1.0"?><!-- <c r="X"/> --><root a="x>y"><![CDATA[<c/>]]><c r='A1'/></root>`
    const names = [...scanTags(xml)].map((t) => `${t.kind}:${t.name}`)
    expect(names).toEqual(['open:root', 'empty:c', 'close:root'])
    const c = findFirst(xml, 'c')
    expect(c && attributesAt(xml, c.start).get('r')).toBe('A1')
    expect(attributesAt(xml, xml.indexOf('<root')).get('a')).toBe('x>y')
  })

  test('attribute edits change only that attribute; splices keep every other byte', () => {
    const xml = `<a  x='1'   y="2"/>`
    expect(withAttribute(xml, 0, 'y', '3')).toBe(`<a  x='1'   y="3"/>`)
    expect(withAttribute(xml, 0, 'z', 'a&b')).toBe(`<a  x='1'   y="2" z="a&amp;b"/>`)
    expect(withAttribute(xml, 0, 'x', null)).toBe(`<a   y="2"/>`)
    expect(
      applySplices('abcdef', [
        { start: 4, end: 5, text: 'E' },
        { start: 1, end: 1, text: '+' },
      ]),
    ).toBe('a+bcdEf')
  })
})

describe('XLSX cell edit', () => {
  test('changes only the sheet and workbook parts; chart, image, comment and styles are byte-identical', async () => {
    const original = await makeXlsx()
    const edited = await editCell(original, { sheet: 'Data', address: 'A2', input: { kind: 'number', value: 25 } })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    // sheet2 holds a formula over Data!A4: its cached result goes too, or LibreOffice would show it stale.
    expect((await changedParts(original, edited.bytes)).sort()).toEqual([
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
    ])
    expect(text(await unzipParts(edited.bytes), 'xl/worksheets/sheet2.xml')).toContain('<c r="A1"><f>Data!A4*2</f></c>')
    const after = await unzipParts(edited.bytes)
    const before = await unzipParts(original)
    for (const part of [
      'xl/charts/chart1.xml',
      'xl/media/image1.png',
      'xl/comments1.xml',
      'xl/styles.xml',
      'xl/calcChain.xml',
    ]) {
      expect(after.get(part)?.equals(before.get(part) ?? Buffer.alloc(0)), part).toBe(true)
    }
    const sheet = text(after, 'xl/worksheets/sheet1.xml')
    // The style of the cell stays; the cached total of the formula cell is gone so it is recomputed.
    expect(sheet).toContain('<c r="A2" s="2"><v>25</v></c>')
    expect(sheet).toContain('<c r="A4" s="2"><f>SUM(A1:A3)</f></c>')
    expect(sheet).toContain('<c r="B4" s="1" t="s"><v>1</v></c>')
    expect(text(after, 'xl/workbook.xml')).toContain('<calcPr calcId="191029" fullCalcOnLoad="1"/>')
    // Everything else in the sheet part is as it was.
    expect(sheet.replace('<v>25</v>', '<v>20</v>').replace('</f></c>', '</f><v>60</v></c>')).toBe(
      text(before, 'xl/worksheets/sheet1.xml'),
    )
  })

  test('untouched entries keep their compressed bytes (copied, not recompressed)', async () => {
    const original = await makeXlsx()
    const edited = await editCell(original, { sheet: 'Data', address: 'B2', input: { kind: 'string', value: 'x' } })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    expect((await (await openPackage(edited.bytes)).text('xl/charts/chart1.xml')).length).toBeGreaterThan(0)
    // The chart's compressed stream appears verbatim in the new file.
    const compressedChart = await rawEntry(original, 'xl/charts/chart1.xml')
    expect(Buffer.from(edited.bytes).indexOf(compressedChart)).toBeGreaterThan(0)
  })

  test('inserts new cells and rows in order, as inline strings, growing the dimension', async () => {
    const original = await makeXlsx()
    const edited = await editCell(original, {
      sheet: 'Data',
      address: 'C2',
      input: { kind: 'string', value: ' a < b ' },
    })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    const sheet = text(await unzipParts(edited.bytes), 'xl/worksheets/sheet1.xml')
    expect(sheet).toContain(
      '<row r="2"><c r="A2" s="2"><v>20</v></c><c r="C2" t="inlineStr"><is><t xml:space="preserve"> a &lt; b </t></is></c></row>',
    )
    expect(sheet).toContain('<dimension ref="A1:C4"/>')
    const newRow = await editCell(edited.bytes, {
      sheet: 'Data',
      address: 'B10',
      input: { kind: 'boolean', value: true },
    })
    if (newRow.kind !== 'ok') throw new Error(newRow.message)
    const rows = await readSheet(newRow.bytes, 'Data')
    expect(rows.cells.map((c) => `${c.address}=${c.text}`)).toEqual([
      'A1=10',
      'B1=Label',
      'A2=20',
      'C2= a < b ',
      'A3=30',
      'A4=',
      'B4=Total',
      'B10=TRUE',
    ])
    const between = await editCell(newRow.bytes, { sheet: 'Data', address: 'A6', input: { kind: 'number', value: 1 } })
    if (between.kind !== 'ok') throw new Error(between.message)
    const order = [
      ...text(await unzipParts(between.bytes), 'xl/worksheets/sheet1.xml').matchAll(/<row r="(\d+)"/g),
    ].map((m) => m[1])
    expect(order).toEqual(['1', '2', '3', '4', '6', '10'])
  })

  test('a formula replaced by a value drops the calculation chain with its relationship and override', async () => {
    const original = await makeXlsx()
    const edited = await editCell(original, { sheet: 'Data', address: 'A4', input: parseCellInput('7') })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    const parts = await unzipParts(edited.bytes)
    expect(parts.has('xl/calcChain.xml')).toBe(false)
    expect(text(parts, 'xl/_rels/workbook.xml.rels')).not.toContain('calcChain')
    expect(text(parts, '[Content_Types].xml')).not.toContain('calcChain')
    expect((await changedParts(original, edited.bytes)).sort()).toEqual([
      '[Content_Types].xml',
      'xl/_rels/workbook.xml.rels',
      'xl/calcChain.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
    ])
  })

  test('formulas are written without a cached value; clearing a styled cell keeps its style', async () => {
    const original = await makeXlsx()
    const formula = await editCell(original, { sheet: 'Summary', address: 'B1', input: parseCellInput('=A1+1') })
    if (formula.kind !== 'ok') throw new Error(formula.message)
    const summary = text(await unzipParts(formula.bytes), 'xl/worksheets/sheet2.xml')
    expect(summary).toContain('<c r="B1"><f>A1+1</f></c>')
    expect(summary).toContain('<c r="A1"><f>Data!A4*2</f></c>')
    const cleared = await editCell(original, { sheet: 'Data', address: 'A1', input: { kind: 'empty' } })
    if (cleared.kind !== 'ok') throw new Error(cleared.message)
    expect(text(await unzipParts(cleared.bytes), 'xl/worksheets/sheet1.xml')).toContain('<c r="A1" s="2"/>')
  })

  test('refuses cells it cannot change safely, writing nothing', async () => {
    const original = await makeXlsx()
    expect(await editCell(original, { sheet: 'Nope', address: 'A1', input: { kind: 'empty' } })).toMatchObject({
      kind: 'refused',
      reason: 'no-such-sheet',
    })
    expect(await editCell(original, { sheet: 'Data', address: 'ZZZZ1', input: { kind: 'empty' } })).toMatchObject({
      kind: 'refused',
      reason: 'bad-address',
    })
    const merged = await editCell(await withMerge(original), {
      sheet: 'Data',
      address: 'B2',
      input: parseCellInput('1'),
    })
    expect(merged).toMatchObject({ kind: 'refused', reason: 'inside-merged-range' })
  })

  test('cells without r attributes are placed by position and made explicit when a cell is inserted', async () => {
    const original = await makeXlsx()
    const implicit = await replacePart(
      original,
      'xl/worksheets/sheet2.xml',
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row><c><v>1</v></c><c><v>3</v></c></row></sheetData></worksheet>`,
    )
    const edited = await editCell(implicit, { sheet: 'Summary', address: 'B1', input: parseCellInput('2') })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    expect((await readSheet(edited.bytes, 'Summary')).cells.map((c) => `${c.address}=${c.text}`)).toEqual([
      'A1=1',
      'B1=2',
    ])
    const inserted = await editCell(implicit, { sheet: 'Summary', address: 'A2', input: parseCellInput('9') })
    if (inserted.kind !== 'ok') throw new Error(inserted.message)
    expect(text(await unzipParts(inserted.bytes), 'xl/worksheets/sheet2.xml')).toContain(
      '<row r="1"><c><v>1</v></c><c><v>3</v></c></row><row r="2"><c r="A2"><v>9</v></c></row>',
    )
  })

  test('parses addresses and cell input like a spreadsheet', () => {
    expect(parseAddress('B2')).toEqual({ column: 2, row: 2 })
    expect(parseAddress('$AA$10')).toEqual({ column: 27, row: 10 })
    expect(parseAddress('XFE1')).toBeUndefined()
    expect(parseCellInput('1e3')).toEqual({ kind: 'number', value: 1000 })
    expect(parseCellInput('TRUE')).toEqual({ kind: 'boolean', value: true })
    expect(parseCellInput('=')).toEqual({ kind: 'string', value: '=' })
    expect(parseCellInput('12 apples')).toEqual({ kind: 'string', value: '12 apples' })
  })

  test('a real workbook (117 merged ranges, 3 sheets) keeps every other part byte-identical', async () => {
    const original = corpusFile('poi-54288-merged-styles.xlsx')
    if (!original) return
    const sheets = await listSheets(original)
    expect(sheets.map((s) => s.name)).toEqual(['MIDCON-PJM', 'SOCO-ENT', 'Midmarks'])
    const before = await readSheet(original, 'SOCO-ENT')
    const free = firstFreeAddress(
      before.cells.map((c) => c.address),
      before.merges,
    )
    const edited = await editCell(original, { sheet: 'SOCO-ENT', address: free, input: parseCellInput('42') })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    const changed = await changedParts(original, edited.bytes)
    expect(changed.sort()).toEqual(['xl/workbook.xml', sheets[1]?.part].sort())
    const after = await readSheet(edited.bytes, 'SOCO-ENT')
    expect(after.cells.find((c) => c.address === free)?.text).toBe('42')
    expect(after.cells.length).toBe(before.cells.length + 1)
    expect(after.merges).toEqual(before.merges)
  })
})

describe('PPTX slide text edit', () => {
  test('reads every text box of every slide in presentation order', async () => {
    const slides = await readSlideTexts(await makePptx())
    expect(slides.map((s) => s.shapes.map((shape) => [shape.id, shape.paragraphs]))).toEqual([
      [
        ['2', ['Quarterly review']],
        ['3', ['Revenue grew 12% this year', `Costs${LINE_BREAK}stayed flat`]],
      ],
      [['2', ['Second slide']]],
    ])
  })

  test('changes only the runs that changed, in that slide part only', async () => {
    const original = await makePptx()
    const edited = await editSlideText(original, {
      slide: 1,
      shapeId: '3',
      paragraphs: ['Revenue grew 15% this year', `Costs${LINE_BREAK}stayed flat`],
    })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    expect(await changedParts(original, edited.bytes)).toEqual(['ppt/slides/slide1.xml'])
    const before = text(await unzipParts(original), 'ppt/slides/slide1.xml')
    const after = text(await unzipParts(edited.bytes), 'ppt/slides/slide1.xml')
    // The bold run keeps its formatting; nothing else in the part moved.
    expect(after).toBe(before.replace('<a:t>12%</a:t>', '<a:t>15%</a:t>'))
  })

  test('edits across runs, adds and removes paragraphs, and keeps line breaks', async () => {
    const original = await makePptx()
    const edited = await editSlideText(original, {
      slide: 1,
      shapeId: '3',
      paragraphs: ['Revenue fell this year', `Costs${LINE_BREAK}rose`, 'New point'],
    })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    const slides = await readSlideTexts(edited.bytes)
    expect(slides[0]?.shapes[1]?.paragraphs).toEqual(['Revenue fell this year', `Costs${LINE_BREAK}rose`, 'New point'])
    const xml = text(await unzipParts(edited.bytes), 'ppt/slides/slide1.xml')
    expect(xml).toContain(
      '<a:pPr marL="0"/><a:r><a:rPr lang="en-US"/><a:t>Revenue fell</a:t></a:r><a:r><a:rPr lang="en-US"/><a:t> this year</a:t></a:r>',
    )
    expect(xml).toContain(
      '<a:endParaRPr lang="en-US"/></a:p><a:p><a:r><a:rPr lang="en-US"/><a:t>New point</a:t></a:r></a:p>',
    )
    const fewer = await editSlideText(original, { slide: 1, shapeId: '3', paragraphs: ['Only one'] })
    if (fewer.kind !== 'ok') throw new Error(fewer.message)
    expect((await readSlideTexts(fewer.bytes))[0]?.shapes[1]?.paragraphs).toEqual(['Only one'])
  })

  test('a new line break inside the text becomes <a:br> with the run properties', async () => {
    const original = await makePptx()
    const edited = await editSlideText(original, { slide: 2, shapeId: '2', paragraphs: [`Second${LINE_BREAK}slide`] })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    expect((await readSlideTexts(edited.bytes))[1]?.shapes[0]?.paragraphs).toEqual([`Second${LINE_BREAK}slide`])
    expect(text(await unzipParts(edited.bytes), 'ppt/slides/slide2.xml')).toContain(
      '<a:r><a:rPr lang="en-US"/><a:t>Second</a:t></a:r><a:br><a:rPr lang="en-US"/></a:br><a:r><a:rPr lang="en-US"/><a:t>slide</a:t></a:r>',
    )
  })

  test('unknown slides and shapes are refused; an unchanged edit returns the same bytes', async () => {
    const original = await makePptx()
    expect(await editSlideText(original, { slide: 3, shapeId: '2', paragraphs: ['x'] })).toMatchObject({
      reason: 'no-such-slide',
    })
    expect(await editSlideText(original, { slide: 1, shapeId: '99', paragraphs: ['x'] })).toMatchObject({
      reason: 'no-such-shape',
    })
    const same = await editSlideText(original, { slide: 2, shapeId: '2', paragraphs: ['Second slide'] })
    expect(same).toMatchObject({ kind: 'ok', changedParts: [] })
  })

  test('a real deck: one text run edited, every other part (pictures, notes, other slides) identical', async () => {
    const original = corpusFile('poi-aptia-slides-images.pptx')
    if (!original) return
    const slides = await readSlideTexts(original)
    expect(slides).toHaveLength(9)
    const slide = slides.find((s) => s.shapes.some((shape) => shape.paragraphs.some((p) => p.trim().length > 3)))
    const shape = slide?.shapes.find((s) => s.paragraphs.some((p) => p.trim().length > 3))
    if (!slide || !shape) throw new Error('no text in the deck')
    const paragraphs = shape.paragraphs.map((p, i) =>
      i === shape.paragraphs.findIndex((q) => q.trim().length > 3) ? `${p} (edited)` : p,
    )
    const edited = await editSlideText(original, { slide: slide.index, shapeId: shape.id, paragraphs })
    if (edited.kind !== 'ok') throw new Error(edited.message)
    expect(await changedParts(original, edited.bytes)).toEqual([slide.part])
    const reread = await readSlideTexts(edited.bytes)
    expect(reread[slide.index - 1]?.shapes.find((s) => s.id === shape.id)?.paragraphs).toEqual(paragraphs)
  })
})

describe('DOCX scan', () => {
  test('an ordinary document has nothing the editor would lose', async () => {
    const scan = await scanDocx(await makeDocx('<w:p><w:r><w:t>Hello</w:t></w:r></w:p>'))
    expect(scan.losses).toEqual([])
    const real = corpusFile('poi-60329-tables-hdrftr.docx')
    if (!real) return
    const realScan = await scanDocx(real)
    expect(realScan.losses).toEqual([])
    expect(realScan.storyParts).toContain('word/document.xml')
    expect(realScan.storyParts.some((p) => p.includes('footer'))).toBe(true)
  })

  test('reports charts, SmartArt, text boxes, content controls, tracked changes and comments', async () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
    const docx = await makeDocx(
      `<w:p><w:r><w:drawing><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rId1"/></a:graphicData></a:graphic></w:drawing></w:r></w:p>
       <w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent><w:p><w:r><w:t>box</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r></w:p>
       <w:sdt><w:sdtContent><w:p/></w:sdtContent></w:sdt>
       <w:p><w:ins w:id="1" w:author="A"><w:r><w:t>new</w:t></w:r></w:ins><w:del w:id="2" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del></w:p>
       <w:p><w:r><w:commentReference w:id="0"/></w:r></w:p>
       <w:p><w:r><w:drawing><dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rId2"/></w:drawing></w:r></w:p>`,
      {
        rels: `<Relationship Id="rId1" Type="${REL}/chart" Target="charts/chart1.xml"/><Relationship Id="rId2" Type="${REL}/diagramData" Target="diagrams/data1.xml"/>`,
        parts: { 'word/charts/chart1.xml': '<c:chartSpace/>', 'word/diagrams/data1.xml': '<dgm:dataModel/>' },
      },
    )
    const scan = await scanDocx(docx)
    expect(scan.losses.map((l) => [l.feature, l.count])).toEqual([
      ['chart', 1],
      ['smartart', 1],
      ['text-box', 1],
      ['content-control', 1],
      ['tracked-change', 2],
      ['comment', 1],
    ])
  })

  test('a truncated package is reported as corrupt', async () => {
    const truncated = corpusFile('poi-truncated62886.docx')
    const bytes = truncated ?? (await makeDocx('<w:p/>')).subarray(0, 200)
    await expect(scanDocx(bytes)).rejects.toBeInstanceOf(PackageError)
    await expect(scanDocx(bytes)).rejects.toMatchObject({ reason: 'corrupt' })
  })
})

async function rawEntry(bytes: Uint8Array, name: string): Promise<Buffer> {
  const { ZipReader, Uint8ArrayReader, Uint8ArrayWriter } = await import('@zip.js/zip.js')
  const entries = await new ZipReader(new Uint8ArrayReader(bytes)).getEntries()
  const entry = entries.find((e) => e.filename === name)
  if (!entry || entry.directory) throw new Error(`no ${name}`)
  return Buffer.from(await entry.getData(new Uint8ArrayWriter(), { passThrough: true }))
}

async function replacePart(bytes: Uint8Array, name: string, content: string): Promise<Uint8Array> {
  const parts = await unzipParts(bytes)
  parts.set(name, Buffer.from(content))
  return zipParts(Object.fromEntries(parts))
}

async function withMerge(bytes: Uint8Array): Promise<Uint8Array> {
  const parts = await unzipParts(bytes)
  const sheet = text(parts, 'xl/worksheets/sheet1.xml').replace(
    '<pageMargins',
    '<mergeCells count="1"><mergeCell ref="A2:B3"/></mergeCells><pageMargins',
  )
  parts.set('xl/worksheets/sheet1.xml', Buffer.from(sheet))
  return zipParts(Object.fromEntries(parts))
}

function firstFreeAddress(used: string[], merges: string[]): string {
  const taken = new Set(used)
  for (let row = 1; row < 500; row++) {
    const address = `Z${row}`
    const inMerge = merges.some((m) => m.includes('Z'))
    if (!taken.has(address) && !inMerge) return address
  }
  throw new Error('no free cell')
}
