import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { corpusFile, makeDocx, unzipParts } from '../test/support/office-fixtures'
import { watchPage, type PageWatch } from './support/browser'
import { useWorkspace } from './support/workspace'

/**
 * DOCX fidelity through the built-in editor (issue 27): one word typed, the autosaved file opened
 * by LibreOffice has the same number of pages as the original (page breaks written as
 * `w:pageBreakBefore` or `w:br w:type="page"` add no page), a table of contents is kept, and
 * footnotes are numbered as Word numbers them.
 */

const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((path) => existsSync(path))
if (!SOFFICE) console.log('skipped: LibreOffice (soffice) is not installed: page counts are not compared')

const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`
const paragraph = (text: string, properties = '') =>
  `<w:p>${properties ? `<w:pPr>${properties}</w:pPr>` : ''}${run(text)}</w:p>`

/** Three pages: chapters two and three start on a new page through `w:pageBreakBefore`. */
function breakBeforeDocx() {
  return makeDocx(
    paragraph('Intro paragraph one.') +
      paragraph('Intro paragraph two.') +
      paragraph('Chapter Two', '<w:pageBreakBefore/>') +
      paragraph('Body of chapter two.') +
      paragraph('Chapter Three', '<w:pageBreakBefore/>') +
      paragraph('Body of chapter three.'),
  )
}

/** Three pages: a page break inside a paragraph, and a paragraph that is only a page break. */
function pageBreakRunDocx() {
  return makeDocx(
    paragraph('First page text.') +
      `<w:p>${run('Before break')}<w:r><w:br w:type="page"/></w:r>${run('After break')}</w:p>` +
      paragraph('Second page text.') +
      '<w:p><w:r><w:br w:type="page"/></w:r></w:p>' +
      paragraph('Third page text.'),
  )
}

/**
 * What LibreOffice writes for a document with a table of contents (a `w:sdt` of the "Table of
 * Contents" gallery around a TOC field), two footnotes (ids 2 and 3: 0 and 1 are the separators)
 * and a heading that starts a new page (written as a page break at the end of the paragraph before).
 */
const TOC_FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles><style:style style:name="PB" style:family="paragraph" style:parent-style-name="Heading_20_1"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>
<office:body><office:text>
<text:table-of-content text:name="Table of Contents1"><text:table-of-content-source text:outline-level="3"/><text:index-body><text:index-title text:name="Table of Contents1_Head"><text:p>Contents</text:p></text:index-title><text:p>Chapter One<text:tab/>1</text:p><text:p>Chapter Two<text:tab/>2</text:p></text:index-body></text:table-of-content>
<text:h text:outline-level="1">Chapter One</text:h>
<text:p>Body one has a note<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>First note.</text:p></text:note-body></text:note> and another<text:note text:id="n2" text:note-class="footnote"><text:note-citation>2</text:note-citation><text:note-body><text:p>Second note.</text:p></text:note-body></text:note>.</text:p>
<text:h text:style-name="PB" text:outline-level="1">Chapter Two</text:h>
<text:p>Body two.</text:p>
</office:text></office:body></office:document>
`

function libreOfficeDocx(work: string, fodt: string): Uint8Array {
  const out = mkdtempSync(join(work, 'toc-'))
  writeFileSync(join(out, 'toc.fodt'), fodt)
  execFileSync(
    SOFFICE ?? 'soffice',
    [
      `-env:UserInstallation=file://${out}/profile`,
      '--headless',
      '--convert-to',
      'docx',
      '--outdir',
      out,
      join(out, 'toc.fodt'),
    ],
    { timeout: 120_000, stdio: 'ignore' },
  )
  return new Uint8Array(readFileSync(join(out, 'toc.docx')))
}

const BREAK_PARAGRAPH = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'

/**
 * As Word saves it: the chapters' heading style starts a new page (`w:pageBreakBefore` in
 * styles.xml), and the first run of each page carries Word's `w:lastRenderedPageBreak` marker.
 */
function wordStyleBreakDocx() {
  const heading = (text: string) =>
    `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:lastRenderedPageBreak/><w:t>${text}</w:t></w:r></w:p>`
  return makeDocx(
    paragraph('Intro paragraph one.') +
      heading('Chapter Two') +
      paragraph('Body of chapter two.') +
      `<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:lastRenderedPageBreak/><w:t>Chapter Three</w:t></w:r></w:p>` +
      paragraph('Body of chapter three.'),
    {
      rels: `<Relationship Id="rIdStyles" Type="${REL}/styles" Target="styles.xml"/>`,
      types:
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>',
      parts: {
        'word/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ${W_NS}><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:pPr><w:keepNext/><w:pageBreakBefore/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style></w:styles>`,
      },
    },
  )
}

/**
 * Two sections (the first ends with a "next page" section break in a paragraph's properties, the
 * second is landscape), a page break just before the section break, and the body's own section.
 */
function sectionsDocx() {
  const portrait =
    '<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/>'
  const landscape =
    '<w:pgSz w:w="15840" w:h="12240" w:orient="landscape"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/>'
  return makeDocx(
    paragraph('Section one, page one.') +
      `<w:p>${run('Section one, page two.')}</w:p>` +
      `<w:p><w:pPr><w:sectPr><w:type w:val="nextPage"/>${portrait}</w:sectPr></w:pPr>${run('End of section one.')}</w:p>` +
      paragraph('Section two, landscape.') +
      `<w:p>${run('Last words')}<w:r><w:br w:type="page"/></w:r></w:p>` +
      paragraph('Final page.') +
      `<w:sectPr><w:type w:val="nextPage"/>${landscape}</w:sectPr>`,
  )
}

/**
 * A page break at the end of a paragraph (where LibreOffice and Word put a manual break) followed
 * by a heading that starts a new page itself: one page break in Word and LibreOffice, two pages.
 */
function trailingBreakDocx() {
  return makeDocx(
    `<w:p>${run('Chapter one ends here.')}<w:r><w:br w:type="page"/></w:r></w:p>` +
      paragraph('Chapter Two', '<w:pageBreakBefore/>') +
      paragraph('Body of chapter two.'),
  )
}

const originals = new Map<string, Uint8Array>()
const workspace = useWorkspace({
  name: 'office-docx-fidelity',
  files: async ({ project, work }) => {
    const put = (name: string, bytes: Uint8Array) => {
      writeFileSync(join(project, name), bytes)
      originals.set(name, new Uint8Array(bytes))
    }
    put('break-before.docx', await breakBeforeDocx())
    put('break-run.docx', await pageBreakRunDocx())
    put('word-breaks.docx', await wordStyleBreakDocx())
    put('sections.docx', await sectionsDocx())
    put('trailing-break.docx', await trailingBreakDocx())
    if (SOFFICE) {
      put('libreoffice-toc.docx', libreOfficeDocx(work, TOC_FODT))
      put(
        'libreoffice-notes.docx',
        libreOfficeDocx(work, TOC_FODT.replace(/<text:table-of-content .*<\/text:table-of-content>/s, '')),
      )
    }
    const tables = corpusFile('poi-60329-tables-hdrftr.docx')
    if (tables) put('tables.docx', tables)
  },
  setupTimeout: 60_000,
})
let work: string
let root: string
beforeAll(() => {
  ;({ work, project: root } = workspace)
})

async function open(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  await expect.poll(() => page.getByTestId('office-engines').count(), { timeout: 30_000 }).toBe(1)
  const cancel = page
    .getByRole('dialog', { name: 'Install the full Office editor?' })
    .getByRole('button', { name: 'Cancel' })
  if (await cancel.count()) await cancel.click()
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  await page.context().close()
}

const documentXml = async (name: string) =>
  (await unzipParts(new Uint8Array(readFileSync(join(root, name))))).get('word/document.xml')?.toString() ?? ''

/** LibreOffice's page count of `bytes`. */
function pages(bytes: Uint8Array): number {
  const out = mkdtempSync(join(work, 'soffice-'))
  const file = join(out, 'file.docx')
  writeFileSync(file, bytes)
  execFileSync(
    SOFFICE ?? 'soffice',
    [`-env:UserInstallation=file://${out}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', out, file],
    { timeout: 120_000, stdio: 'ignore' },
  )
  const produced = readdirSync(out).find((name) => name.endsWith('.pdf'))
  if (!produced) throw new Error(`soffice produced nothing for ${file}`)
  return (readFileSync(join(out, produced), 'latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length
}

/** Types `typed` at the start of the first paragraph showing `text`, and waits for the autosave. */
async function editAt(page: Page, name: string, text: string, typed: string) {
  const view = page.getByTestId('office-docx')
  const target = view.locator('.layout-page-content').getByText(text, { exact: false }).first()
  await expect.poll(() => target.count(), { timeout: 30_000 }).toBe(1)
  expect(await view.getAttribute('data-readonly')).toBeNull()
  await target.click()
  await page.keyboard.press('Home')
  await page.keyboard.type(typed)
  await expect.poll(() => documentXml(name), { timeout: 20_000 }).toContain(typed.trim())
}

describe('DOCX page breaks survive an edit', () => {
  for (const [name, at] of [
    ['break-before.docx', 'Chapter Two'],
    ['break-run.docx', 'After break'],
    ['break-run.docx', 'Third page'],
    ['word-breaks.docx', 'Chapter Two'],
    ['word-breaks.docx', 'Body of chapter three'],
    ['sections.docx', 'Section two'],
    ['trailing-break.docx', 'Body of chapter two'],
    ['tables.docx', 'The study population'],
    ['libreoffice-notes.docx', 'Body two'],
  ] as const) {
    test(`${name}: a word typed in “${at}” keeps LibreOffice's page count`, async () => {
      const original = originals.get(name)
      if (!original) {
        console.log(`skipped: ${name} is not in the corpus here`)
        return
      }
      const { page, watch } = await open(name)
      await editAt(page, name, at, 'Edited ')
      const saved = new Uint8Array(readFileSync(join(root, name)))
      const xml = (await unzipParts(saved)).get('word/document.xml')?.toString() ?? ''
      const originalXml = (await unzipParts(original)).get('word/document.xml')?.toString() ?? ''
      // Run properties first in every run (Word refuses a run whose w:rPr comes later).
      expect(xml).not.toMatch(/<w:lastRenderedPageBreak\/><w:rPr>/)
      // No page break split out into a paragraph of its own (an empty line, or a blank page, in Word).
      if (!originalXml.includes(BREAK_PARAGRAPH)) expect(xml).not.toContain(BREAK_PARAGRAPH)
      if (SOFFICE) expect(pages(saved)).toBe(pages(original))
      await close(page, watch)
    }, 180_000)
  }
})

describe('DOCX table of contents and footnotes', () => {
  test('a LibreOffice table of contents: read-only with the precise reason, the file untouched', async () => {
    const original = originals.get('libreoffice-toc.docx')
    if (!original) {
      console.log('skipped: LibreOffice is not installed to write the document')
      return
    }
    expect(await documentXml('libreoffice-toc.docx')).toContain('<w:docPartGallery w:val="Table of Contents"/>')
    const { page, watch } = await open('libreoffice-toc.docx')
    const view = page.getByTestId('office-docx')
    await expect.poll(() => view.getAttribute('data-readonly'), { timeout: 30_000 }).toBe('true')
    expect(await page.getByTestId('office-readonly-reason').textContent()).toBe(
      'Read-only: the built-in editor would lose table of contents fields and their first entry (1).',
    )
    expect(Buffer.from(readFileSync(join(root, 'libreoffice-toc.docx'))).equals(Buffer.from(original))).toBe(true)
    await close(page, watch)
  }, 120_000)

  test('LibreOffice footnotes (ids 2 and 3) read 1 and 2, and still do after an edit is saved', async () => {
    const original = originals.get('libreoffice-notes.docx')
    if (!original) {
      console.log('skipped: LibreOffice is not installed to write the document')
      return
    }
    // The file as LibreOffice wrote it (an earlier test saved an edit of it since).
    const originalXml = (await unzipParts(original)).get('word/document.xml')?.toString() ?? ''
    expect([...originalXml.matchAll(/footnoteReference w:id="(\d+)"/g)].map((m) => m[1])).toEqual(['2', '3'])
    const { page, watch } = await open('libreoffice-notes.docx')
    // The notes at the foot of the page, and the reference marks in the text, as the editor draws them.
    const view = page.getByTestId('office-docx')
    const footnotes = async () =>
      (await view.locator('.layout-footnote-content').allTextContents()).map((text) => text.replace(/\s+/g, ' '))
    await expect.poll(footnotes, { timeout: 30_000 }).toEqual(['1 First note.', '2 Second note.'])
    expect(await page.locator('.docx-footnote-ref').allTextContents()).toEqual(['1', '2'])
    await editAt(page, 'libreoffice-notes.docx', 'Body two', 'Noted ')
    const saved = await unzipParts(new Uint8Array(readFileSync(join(root, 'libreoffice-notes.docx'))))
    const xml = saved.get('word/document.xml')?.toString() ?? ''
    expect([...xml.matchAll(/footnoteReference w:id="(-?\d+)"/g)].map((m) => m[1])).toEqual(['1', '2'])
    const notes = saved.get('word/footnotes.xml')?.toString() ?? ''
    expect(notes).toMatch(/w:id="1"[^>]*>.*First note\./s)
    expect(notes).toMatch(/w:id="2"[^>]*>.*Second note\./s)
    await close(page, watch)
  }, 120_000)
})
