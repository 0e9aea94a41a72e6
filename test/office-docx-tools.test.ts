import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import CFB from 'cfb'
import { describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import {
  DOCUMENT_READ_MAX_CHARS,
  type DocumentEdit,
  type DocumentEditOutcome,
} from '../src/shared/office/document-edits'
import { diffDocx } from '../src/shared/office/docx-diff'
import { editDocx } from '../src/shared/office/docx-edit'
import { readDocxView } from '../src/shared/office/docx-view'
import { DocxDiffSchema } from '../src/shared/protocol/documents'
import { changedParts, corpusFile, makeDocx, makeLongDocx, unzipParts, zipParts } from './support/office-fixtures'
import { tempDir } from './support/temp'

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`

const REPORT_BODY =
  `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Results</w:t></w:r></w:p>` +
  `<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>quarterly</w:t></w:r><w:r><w:t xml:space="preserve"> revenue grew by 5 percent.</w:t></w:r></w:p>` +
  `<w:p/>` +
  `<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>` +
  `<w:tr><w:tc><w:p><w:r><w:t>Region</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Growth</w:t></w:r></w:p></w:tc></w:tr>` +
  `<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>All regions grew.</w:t></w:r></w:p></w:tc></w:tr></w:tbl>` +
  `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t xml:space="preserve">Net </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:r><w:t xml:space="preserve"> margin held.</w:t></w:r></w:p>` +
  `<w:p><w:ins w:id="1" w:author="A"><w:r><w:t>Tracked words.</w:t></w:r></w:ins></w:p>` +
  `<w:p><w:r><w:t>Closing words.</w:t></w:r></w:p>`

const makeReport = (body = REPORT_BODY) =>
  makeDocx(body, {
    parts: { 'word/styles.xml': STYLES },
    rels: `<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>`,
    types: `<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>`,
  })

async function viewOf(bytes: Uint8Array, request = {}): Promise<string> {
  const view = await readDocxView(bytes, request)
  if (view.kind !== 'ok') throw new Error(`${view.reason}: ${view.message}`)
  return view.text
}

function edited(outcome: DocumentEditOutcome): Uint8Array {
  if (outcome.kind !== 'ok') throw new Error(`${outcome.reason}: ${outcome.message}`)
  return outcome.bytes
}

const documentXml = async (bytes: Uint8Array) =>
  (await unzipParts(bytes)).get('word/document.xml')?.toString('utf8') ?? ''

describe('DOCX read view', () => {
  test('shows paragraphs, headings, lists, empty paragraphs, table cells and merged cells with their anchors', async () => {
    const text = await viewOf(await makeReport())
    expect(text).toMatch(/^DOCX document: 6 paragraphs, 1 tables \(7 body blocks/)
    expect(text).toContain('[p1] (Heading 1) Results')
    expect(text).toContain('[p2] The quarterly revenue grew by 5 percent.')
    expect(text).toContain('[p3] (empty)')
    expect(text).toContain('[t1] table, 2 rows × 2 columns')
    expect(text).toContain('[t1.r1.c2] Growth')
    expect(text).toContain('[t1.r2.c1] All regions grew.')
    expect(text).toContain('[t1.r2.c2] merged into t1.r2.c1')
    expect(text).toContain('[p4] (list item) (holds field) Net 7 margin held.')
    expect(text).toContain('[p5] (has tracked changes) Tracked words.')
    expect(text).toContain('[p6] Closing words.')
  })

  test('a real file: nested tables, a horizontally merged cell, the header and the footer', async () => {
    const file = corpusFile('poi-60329-tables-hdrftr.docx')
    if (!file) return
    const text = await viewOf(file)
    expect(text).toContain('[t2.r1.c2] A5346 (12028)')
    expect(text).toContain('[t2.r2.c3] merged into t2.r2.c2')
    expect(text).toContain('--- header 1 (word/header1.xml)')
    expect(text).toContain('[hdr1.t2.r1.c1] Study Design, Objectives and Endpoints')
    expect(text).toContain('[ftr1.t2.r1.c1] Report Date: 5/2/2016 3:06:17 PM')
  })

  test('footnotes are shown read-only with their ids; the separators Word adds are not', async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    const noted = await makeDocx(
      `<w:p><w:r><w:t>Claim.</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p><w:p><w:r><w:t>End.</w:t></w:r></w:p>`,
      {
        parts: {
          'word/footnotes.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes ${W}><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>Source: the annual report.</w:t></w:r></w:p></w:footnote></w:footnotes>`,
        },
        rels: `<Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>`,
      },
    )
    const text = await viewOf(noted)
    expect(text).toContain('[p1] (holds footnote reference) Claim.')
    expect(text).toContain('--- footnotes (read-only) (word/footnotes.xml)\n[fn1] Source: the annual report.')
    expect(text).not.toContain('fn-1')
    expect(await editDocx(noted, [{ op: 'replace_text', anchor: 'fn1', text: 'x' }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
    })
    // New words keep the reference where it stands; deleting the paragraph would lose it.
    const reworded = edited(await editDocx(noted, [{ op: 'replace_text', anchor: 'p1', text: 'Other claim.' }]))
    expect(await documentXml(reworded)).toContain('<w:t>Other claim.</w:t></w:r><w:r><w:footnoteReference w:id="1"/>')
    expect(await editDocx(noted, [{ op: 'delete_paragraph', anchor: 'p1' }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
      message: 'p1 holds a footnote reference; deleting it would remove that too.',
    })
  })

  test('pages by body blocks and says how to read on; the view never passes the character bound', async () => {
    const long = await makeLongDocx(40)
    const first = await viewOf(long, { limit: 10 })
    expect(first).toContain('Showing blocks 1–10 of 159.')
    expect(first).toContain('More: read again with offset=11.')
    expect(first).toContain('[p4] (holds page break) (empty)')
    expect(first).toContain('[p10] ')
    expect(first).not.toContain('[p11]')
    const second = await viewOf(long, { offset: 11, limit: 5 })
    expect(second).toContain('[p11] ')
    expect(second).not.toContain('[p10] ')
    const all = await viewOf(await makeLongDocx(400))
    expect(all.length).toBeLessThanOrEqual(DOCUMENT_READ_MAX_CHARS)
    expect(all).toMatch(/More: read again with offset=\d+\./)
  })

  test('refuses a damaged file, a non-package, an encrypted document and a compression bomb precisely', async () => {
    const truncated = corpusFile('poi-truncated62886.docx')
    if (truncated) expect(await readDocxView(truncated, {})).toMatchObject({ kind: 'refused', reason: 'damaged' })
    expect(await readDocxView(new TextEncoder().encode('just text'), {})).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
    })
    const noDocument = await zipParts({ '[Content_Types].xml': '<Types/>' })
    expect(await readDocxView(noDocument, {})).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
      message: expect.stringContaining('no document part'),
    })
    const container = CFB.utils.cfb_new()
    CFB.utils.cfb_add(container, 'EncryptionInfo', Buffer.alloc(64, 1))
    CFB.utils.cfb_add(container, 'EncryptedPackage', Buffer.alloc(4096, 7))
    const encrypted = new Uint8Array(CFB.write(container, { type: 'buffer' }) as Buffer)
    expect(await readDocxView(encrypted, {})).toMatchObject({ kind: 'refused', reason: 'encrypted' })
    expect(await editDocx(encrypted, [{ op: 'delete_paragraph', anchor: 'p1' }])).toMatchObject({
      kind: 'refused',
      reason: 'encrypted',
      edit_index: null,
    })
    const nested = (depth: number): string =>
      depth === 0 ? '<w:p/>' : `<w:tbl><w:tr><w:tc>${nested(depth - 1)}<w:p/></w:tc></w:tr></w:tbl>`
    expect(await readDocxView(await makeDocx(nested(40)), {})).toMatchObject({
      kind: 'refused',
      reason: 'too-large',
      message: expect.stringContaining('levels deep'),
    })
    const bomb = await makeDocx(`<w:p><w:r><w:t>${' '.repeat(3 * 1024 * 1024)}</w:t></w:r></w:p>`)
    expect(await readDocxView(bomb, {})).toMatchObject({ kind: 'refused', reason: 'too-large' })
  })
})

describe('DOCX edits', () => {
  test('replace_text keeps the bold run where its text is unchanged, and only word/document.xml changes', async () => {
    const original = await makeReport()
    const bytes = edited(
      await editDocx(original, [
        { op: 'replace_text', anchor: 'p2', text: 'The quarterly revenue grew by 7 percent.' },
      ]),
    )
    expect(await changedParts(original, bytes)).toEqual(['word/document.xml'])
    const xml = await documentXml(bytes)
    expect(xml).toContain('<w:r><w:rPr><w:b/></w:rPr><w:t>quarterly</w:t></w:r>')
    expect(xml).toContain('grew by 7 percent.')
    expect(await viewOf(bytes)).toContain('[p2] The quarterly revenue grew by 7 percent.')
    // Everything outside the one changed w:t is byte for byte what it was.
    const before = await documentXml(original)
    expect(xml.replace(' revenue grew by 7 percent.', ' revenue grew by 5 percent.')).toBe(before)
  })

  test('new words typed into the bold word take its formatting; tabs and line breaks map to w:tab and w:br', async () => {
    const original = await makeReport()
    const bytes = edited(
      await editDocx(original, [
        {
          op: 'replace_text',
          anchor: 'p2',
          text: 'The quarterly-and-annual revenue\tgrew by 5 percent.↵Source: audit.',
        },
      ]),
    )
    const xml = await documentXml(bytes)
    expect(xml).toContain('<w:rPr><w:b/></w:rPr><w:t>quarterly-and-annual</w:t>')
    expect(xml).toContain('<w:tab/>')
    expect(xml).toContain('<w:br/>')
    expect(await viewOf(bytes)).toContain('[p2] The quarterly-and-annual revenue\tgrew by 5 percent.↵Source: audit.')
    // The same text is no change at all: the very same bytes come back.
    const same = await editDocx(original, [{ op: 'replace_text', anchor: 'p1', text: 'Results' }])
    expect(same).toMatchObject({ kind: 'ok', summary: ['p1: text unchanged'] })
    expect(same.kind === 'ok' && same.bytes === original).toBe(true)
    // An empty paragraph gets a run of its own.
    const filled = edited(await editDocx(original, [{ op: 'replace_text', anchor: 'p3', text: ' Now filled.' }]))
    expect(await documentXml(filled)).toContain('<w:p><w:r><w:t xml:space="preserve"> Now filled.</w:t></w:r></w:p>')
  })

  test('"\\n" splits a paragraph, makes several paragraphs in a cell; a header cell edits its own part only', async () => {
    const original = await makeReport()
    const bytes = edited(
      await editDocx(original, [
        { op: 'replace_text', anchor: 'p6', text: 'Closing words.\nA second closing line.' },
        { op: 'replace_text', anchor: 't1.r1.c2', text: 'Growth\n(year on year)' },
      ]),
    )
    const view = await viewOf(bytes)
    expect(view).toContain('[p6] Closing words.')
    expect(view).toContain('[p7] A second closing line.')
    expect(view).toContain('[t1.r1.c2] Growth\n(year on year)')

    const file = corpusFile('poi-60329-tables-hdrftr.docx')
    if (!file) return
    const header = edited(
      await editDocx(file, [{ op: 'replace_text', anchor: 'hdr1.t2.r1.c1', text: 'Study Design and Endpoints' }]),
    )
    expect(await changedParts(file, header)).toEqual(['word/header1.xml'])
    expect(await viewOf(header)).toContain('[hdr1.t2.r1.c1] Study Design and Endpoints')
  })

  test('insert_paragraph after a paragraph (in a named style) and after a cell; delete_paragraph', async () => {
    const original = await makeReport()
    const bytes = edited(
      await editDocx(original, [
        { op: 'insert_paragraph', after: 'p1', text: 'Revenue', style: 'Heading 2' },
        { op: 'insert_paragraph', after: 'p2', text: 'Costs fell by 2 percent.' },
        { op: 'insert_paragraph', after: 't1.r1.c1', text: 'EMEA' },
        { op: 'delete_paragraph', anchor: 'p3' },
      ]),
    )
    // A paragraph with tracked changes cannot be changed, but it can get a new neighbour.
    expect(
      await editDocx(original, [{ op: 'insert_paragraph', after: 'p5', text: 'After the tracked one.' }]),
    ).toMatchObject({
      kind: 'ok',
    })
    const edit = await editDocx(original, [{ op: 'insert_paragraph', after: 'p1', text: 'x', style: 'Heading 2' }])
    expect(edit).toMatchObject({ kind: 'ok', summary: ['inserted a paragraph (Heading 2) after p1'] })
    const view = await viewOf(bytes)
    expect(view).toContain('[p1] (Heading 1) Results\n[p2] (Heading 2) Revenue\n[p3] The quarterly')
    expect(view).toContain('[p4] Costs fell by 2 percent.\n[t1]')
    expect(view).toContain('[t1.r1.c1] Region\nEMEA')
    // The copied paragraph keeps the first run's properties of its anchor (none here: plain text).
    expect(await documentXml(bytes)).toContain('<w:p><w:r><w:t>Costs fell by 2 percent.</w:t></w:r></w:p>')
    expect(await changedParts(original, bytes)).toEqual(['word/document.xml'])
  })

  test('refusals name the problem, carry the edit index and change nothing', async () => {
    const original = await makeReport()
    const cases: Array<[DocumentEdit[], string, RegExp, number | null]> = [
      [
        [{ op: 'replace_text', anchor: 'p99', text: 'x' }],
        'missing-anchor',
        /no p99: the body has paragraphs p1–p6 and tables t1–t1/,
        0,
      ],
      [[{ op: 'replace_text', anchor: 't1.r2.c2', text: 'x' }], 'merged-cell', /merged cell t1\.r2\.c1/, 0],
      [[{ op: 'set_cells', range: 'A1', values: [[1]] }], 'wrong-format', /set_cells does not apply/, 0],
      [[{ op: 'replace_text', anchor: 'p5', text: 'x' }], 'unsupported-content', /p5 has tracked changes/, 0],
      [
        [{ op: 'replace_text', anchor: 'p4', text: 'Net 8 margin held.' }],
        'unsupported-content',
        /reaches into a field/,
        0,
      ],
      [[{ op: 'delete_paragraph', anchor: 'p6' }], 'unsupported-content', /last paragraph of the document/, 0],
      [[{ op: 'delete_paragraph', anchor: 'p4' }], 'unsupported-content', /holds a field/, 0],
      [[{ op: 'delete_paragraph', anchor: 't1.r1.c1' }], 'shape-mismatch', /is a table cell/, 0],
      [
        [{ op: 'insert_paragraph', after: 'p1', text: 'x', style: 'Heading 9' }],
        'missing-anchor',
        /no style "Heading 9"/,
        0,
      ],
      [[{ op: 'replace_text', anchor: 'hdr1.p1', text: 'x' }], 'missing-anchor', /no hdr1\.p1/, 0],
      [
        [
          { op: 'replace_text', anchor: 'p2', text: 'Fine.' },
          { op: 'delete_paragraph', anchor: 'p2' },
        ],
        'shape-mismatch',
        /edit 1 of this call already changes/,
        1,
      ],
    ]
    for (const [edits, reason, message, index] of cases) {
      const outcome = await editDocx(original, edits)
      expect(outcome, JSON.stringify(edits)).toMatchObject({ kind: 'refused', reason, edit_index: index })
      if (outcome.kind === 'refused') expect(outcome.message).toMatch(message)
    }
    // A block content control is read but not edited; text inside a hyperlink is edited in place.
    const controlled = await makeDocx(
      `<w:sdt><w:sdtContent><w:p><w:r><w:t>In a control</w:t></w:r></w:p></w:sdtContent></w:sdt>` +
        `<w:p><w:hyperlink r:id="rId1"><w:r><w:t>link text</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> after</w:t></w:r></w:p>`,
    )
    expect(await viewOf(controlled)).toContain('[p1] (in a content control) In a control')
    expect(await editDocx(controlled, [{ op: 'replace_text', anchor: 'p1', text: 'x' }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
      message: 'p1 is inside a content control; Retrace does not edit those.',
    })
    const linked = edited(await editDocx(controlled, [{ op: 'replace_text', anchor: 'p2', text: 'link words after' }]))
    expect(await documentXml(linked)).toContain(
      '<w:hyperlink r:id="rId1"><w:r><w:t>link words</w:t></w:r></w:hyperlink>',
    )
    // The words around the field stay editable.
    const around = edited(await editDocx(original, [{ op: 'replace_text', anchor: 'p4', text: 'Net 7 margin fell.' }]))
    expect(await viewOf(around)).toContain('Net 7 margin fell.')
  })
})

describe('DOCX redline', () => {
  test('names the changed words, counts the inserted paragraph and a formatting-only change', async () => {
    const original = await makeReport()
    const after = edited(
      await editDocx(original, [
        { op: 'replace_text', anchor: 'p2', text: 'The quarterly revenue grew by 7 percent.' },
        { op: 'insert_paragraph', after: 'p2', text: 'Costs fell.' },
        { op: 'replace_text', anchor: 't1.r1.c2', text: 'Change' },
      ]),
    )
    const diff = DocxDiffSchema.parse(await diffDocx(original, after))
    expect(diff.counts).toEqual({ added: 1, removed: 0, changed: 2 })
    const changed = diff.entries.find((e) => e.before_anchor === 'p2')
    expect(changed).toMatchObject({ change: 'changed', story: 'body', after_anchor: 'p2' })
    expect(changed?.segments.filter((s) => s.kind !== 'same')).toEqual([
      { kind: 'removed', text: '5' },
      { kind: 'added', text: '7' },
    ])
    expect(diff.entries.find((e) => e.change === 'added')).toMatchObject({
      after_anchor: 'p3',
      segments: [{ kind: 'added', text: 'Costs fell.' }],
    })
    expect(diff.entries.find((e) => e.after_anchor === 't1.r1.c2')).toMatchObject({ change: 'changed' })
    // Nothing after the insertion is reported as changed.
    expect(diff.entries).toHaveLength(3)

    const bolder = await makeReport(
      REPORT_BODY.replace(
        '<w:r><w:t>Closing words.</w:t></w:r>',
        '<w:r><w:rPr><w:b/><w:sz w:val="28"/></w:rPr><w:t>Closing words.</w:t></w:r>',
      ).replace('<w:pStyle w:val="Heading1"/>', '<w:pStyle w:val="Heading2"/>'),
    )
    const formatting = await diffDocx(original, bolder)
    expect(formatting.entries.map((e) => [e.change, e.after_anchor, e.formatting])).toEqual([
      ['formatting', 'p1', ['style Heading 1 → Heading 2']],
      ['formatting', 'p6', ['bold added', 'font size default → 14']],
    ])
    expect(formatting.counts).toEqual({ added: 0, removed: 0, changed: 2 })

    // Words and formatting changed together: both are named, formatting on the words both keep.
    const italic = await makeReport(
      REPORT_BODY.replace(
        '<w:rPr><w:b/></w:rPr><w:t>quarterly</w:t>',
        '<w:rPr><w:i/></w:rPr><w:t>quarterly</w:t>',
      ).replace('grew by 5 percent.', 'grew by 6 percent.'),
    )
    expect((await diffDocx(original, italic)).entries).toMatchObject([
      { change: 'changed', after_anchor: 'p2', formatting: ['bold removed', 'italic added'] },
    ])
  })

  test('a whole document added or removed; headers are their own story', async () => {
    const report = await makeReport()
    const added = await diffDocx(null, report)
    expect(added.counts).toEqual({ added: 9, removed: 0, changed: 0 })
    expect(added.entries.every((e) => e.change === 'added' && e.before_anchor === null)).toBe(true)
    const removed = await diffDocx(report, null)
    expect(removed.counts).toEqual({ added: 0, removed: 9, changed: 0 })

    // A new table row: its cells are added, the cells below it are not "changed".
    const row = `<w:tr><w:tc><w:p><w:r><w:t>APAC</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>4%</w:t></w:r></w:p></w:tc></w:tr>`
    const withRow = await makeReport(REPORT_BODY.replace('</w:tr><w:tr>', `</w:tr>${row}<w:tr>`))
    const rows = await diffDocx(report, withRow)
    expect(rows.entries.map((e) => [e.change, e.after_anchor])).toEqual([
      ['added', 't1.r2.c1'],
      ['added', 't1.r2.c2'],
    ])

    const file = corpusFile('poi-60329-tables-hdrftr.docx')
    if (!file) return
    const header = edited(
      await editDocx(file, [{ op: 'replace_text', anchor: 'hdr1.t2.r1.c1', text: 'Study Design and Endpoints' }]),
    )
    const diff = await diffDocx(file, header)
    expect(diff.entries).toHaveLength(1)
    expect(diff.entries[0]).toMatchObject({ story: 'header', before_anchor: 'hdr1.t2.r1.c1', change: 'changed' })
  })

  test('a 2 000-paragraph document: one insertion near the top is one added paragraph, not 2 000 changes', async () => {
    const paragraph = (i: number) => `<w:p><w:r><w:t>Paragraph number ${i} of the long report.</w:t></w:r></w:p>`
    const body = Array.from({ length: 2_000 }, (_, i) => paragraph(i + 1)).join('')
    const before = await makeDocx(body)
    const after = edited(
      await editDocx(before, [
        { op: 'insert_paragraph', after: 'p3', text: 'A new finding.' },
        { op: 'replace_text', anchor: 'p1500', text: 'Paragraph number 1500 of the short report.' },
        { op: 'delete_paragraph', anchor: 'p1900' },
      ]),
    )
    const diff = await diffDocx(before, after)
    expect(diff.counts).toEqual({ added: 1, removed: 1, changed: 1 })
    expect(diff.entries.map((e) => [e.change, e.before_anchor, e.after_anchor])).toEqual([
      ['added', null, 'p4'],
      ['changed', 'p1500', 'p1501'],
      ['removed', 'p1900', null],
    ])
    // Every other paragraph rewritten: past Myers' bound the linear fallback still finds the 1 000 unchanged ones.
    const alternate = await makeDocx(
      Array.from({ length: 2_000 }, (_, i) =>
        i % 2 === 0 ? `<w:p><w:r><w:t>Rewritten ${i + 1}</w:t></w:r></w:p>` : paragraph(i + 1),
      ).join(''),
    )
    const halves = await diffDocx(before, alternate)
    expect(halves.counts.added + halves.counts.changed).toBe(1_000)
    expect(halves.counts.removed + halves.counts.changed).toBe(1_000)
    expect(halves.entries.some((e) => e.before_anchor === 'p2')).toBe(false)
    // Totally different documents: the list is bounded, the counts stay exact.
    const other = await makeDocx(
      Array.from({ length: 2_000 }, (_, i) => `<w:p><w:r><w:t>Other ${i}</w:t></w:r></w:p>`).join(''),
    )
    const rewritten = await diffDocx(before, other)
    expect(rewritten.truncated).toBe(true)
    expect(rewritten.entries.length).toBeLessThanOrEqual(500)
    expect(rewritten.counts.added + rewritten.counts.changed).toBe(2_000)
  })
})

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: reopening edited DOCX in LibreOffice — ${detection.reason}`)

describe.skipIf(detection.kind === 'missing')('LibreOffice reopens an edited DOCX', () => {
  test('the replaced, inserted and header text is in LibreOffice’s own text output', { timeout: 120_000 }, async () => {
    const file = corpusFile('poi-60329-tables-hdrftr.docx')
    if (!file || detection.kind !== 'found') return
    const bytes = edited(
      await editDocx(file, [
        { op: 'replace_text', anchor: 't2.r1.c2', text: 'A5346 (99999)' },
        { op: 'insert_paragraph', after: 't3.r1.c1', text: 'Inserted by the agent.' },
      ]),
    )
    const dir = tempDir('retrace-docx-lo-')
    const input = join(dir, 'edited.docx')
    writeFileSync(input, bytes)
    execFileSync(
      detection.install.soffice,
      [
        `-env:UserInstallation=file://${join(dir, 'profile')}`,
        '--headless',
        '--convert-to',
        'txt:Text',
        '--outdir',
        dir,
        input,
      ],
      { stdio: 'ignore', timeout: 100_000 },
    )
    const text = readFileSync(join(dir, 'edited.txt'), 'utf8')
    expect(text).toContain('A5346 (99999)')
    expect(text).toContain('Inserted by the agent.')
  })
})
