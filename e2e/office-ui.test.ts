import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import CFB from 'cfb'
import type { Frame, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { manifestFor, sha256, startBundleServer, tarGz, type BundleServer } from '../test/support/bundle-fixtures'
import {
  changedParts,
  corpusFile,
  makeDocx,
  makeFormatsXlsx,
  makeLongDocx,
  makePptx,
  makeXlsx,
  PNG_1X1,
  unzipParts,
} from '../test/support/office-fixtures'
import { watchPage, type PageWatch } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * The Office document view in real Chromium against browser mode: the built-in DOCX editor,
 * slide text and cell editing (each checked on the bytes written), LibreOffice's pages in the PDF
 * reader, legacy conversion from the UI, explicit states for encrypted and damaged files, and the
 * ONLYOFFICE install and frame round trip against a stub engine that speaks the same contract.
 */

const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((path) => existsSync(path))
if (!SOFFICE) {
  console.log(
    'skipped: LibreOffice (soffice) is not installed: its page and .doc conversion tests do not run, ' +
      'and the other tests leave out their LibreOffice checks',
  )
}
const STUB = join(__dirname, 'fixtures', 'office-stub')
let bundles: BundleServer
const originals = new Map<string, Uint8Array>()

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const DRAWING_NS =
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"'
const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`
const cell = (text: string) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>${run(text)}</w:p></w:tc>`
const inlineImage = `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="dot.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdImage"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`

/** A letter with a paragraph, a 2×2 table and a picture: what an edit must keep. */
function letterDocx() {
  return makeDocx(
    `<w:p>${run('Dear reader, this is the first paragraph.')}</w:p><w:tbl><w:tblPr><w:tblW w:w="4000" w:type="dxa"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid><w:tr>${cell('North')}${cell('South')}</w:tr><w:tr>${cell('East')}${cell('West')}</w:tr></w:tbl>${inlineImage}<w:p>${run('Closing line.')}</w:p>`,
    {
      namespaces: DRAWING_NS,
      rels: `<Relationship Id="rIdImage" Type="${REL}/image" Target="media/image1.png"/>`,
      types: '<Default Extension="png" ContentType="image/png"/>',
      parts: { 'word/media/image1.png': PNG_1X1 },
    },
  )
}

/** A document with a chart: the built-in editor would drop it, so it must open read-only. */
function chartDocx() {
  return makeDocx(
    `<w:p>${run('Sales by region')}</w:p><w:p><w:r><w:drawing><wp:inline><wp:extent cx="4000000" cy="3000000"/><wp:docPr id="1" name="Chart 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart r:id="rIdChart"/></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`,
    {
      namespaces: DRAWING_NS,
      rels: `<Relationship Id="rIdChart" Type="${REL}/chart" Target="charts/chart1.xml"/>`,
      types:
        '<Override PartName="/word/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>',
      parts: {
        'word/charts/chart1.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart><c:plotArea><c:layout/></c:plotArea></c:chart></c:chartSpace>`,
      },
    },
  )
}

/** OOXML encrypted with a password is a compound file holding these two streams. */
function encryptedDocx(): Buffer {
  const container = CFB.utils.cfb_new()
  CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]))
  CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 7))
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array)
}

/** What the stub engine exports after its edit (made once: zip timestamps differ per call). */
let stubExport: Buffer

/** The stub release's pin (what RETRACE_OFFICE_BUNDLE names), beside the project. */
const bundlePin = (work: string) => join(work, 'office-bundle.json')

const workspace = useWorkspace({
  name: 'office',
  files: async ({ work, project }) => {
    const put = (name: string, bytes: Uint8Array) => {
      writeFileSync(join(project, name), bytes)
      originals.set(name, new Uint8Array(bytes))
    }
    put('letter.docx', await letterDocx())
    put('kept.docx', await letterDocx())
    put('numbers.xlsx', await makeFormatsXlsx())
    put('notes.txt', Buffer.from('Meeting notes\n'))
    // A Graphviz graph: `.dot` is also Word's template extension, but this one is text.
    put('graph.dot', Buffer.from('digraph { a -> b }\n'))
    // RTF is ASCII, so it is sniffed as text: it still opens in the Office view, not the code editor.
    put('memo.rtf', Buffer.from('{\\rtf1\\ansi\\deff0 {\\fonttbl {\\f0 Times;}} \\f0\\fs24 A memo in RTF.\\par }\n'))
    put('chart.docx', await chartDocx())
    put('deck.pptx', await makePptx())
    put('book.xlsx', await makeXlsx())
    put('three-pages.docx', await makeLongDocx(3))
    put('locked.docx', encryptedDocx())
    put('stub.docx', await makeDocx(`<w:p>${run('Opened in the stub engine')}</w:p>`))
    const legacy = corpusFile('poi-travel-form.doc')
    if (legacy) put('travel.doc', legacy)
    const truncated = corpusFile('poi-truncated62886.docx')
    if (truncated) put('truncated.docx', truncated)
    const tables = corpusFile('poi-60329-tables-hdrftr.docx')
    if (tables) put('tables.docx', tables)
    const slides = corpusFile('odfdo-example.odp')
    if (slides) put('example.odp', slides)

    // The stub engine as an ONLYOFFICE bundle (manifest, entry page, script, export) on a loopback
    // "release" server, pinned through RETRACE_OFFICE_BUNDLE as a mirror would be.
    bundles = await startBundleServer()
    const files: Record<string, Buffer> = {
      'index.html': readFileSync(join(STUB, 'index.html')),
      'stub.js': readFileSync(join(STUB, 'stub.js')),
      'edited.bin': (stubExport = Buffer.from(await makeDocx(`<w:p>${run('Edited in the stub engine')}</w:p>`))),
    }
    const archive = tarGz([
      { type: 'file', path: 'retrace-office-manifest.json', content: manifestFor('stub-1', files) },
      ...Object.entries(files).map(([path, content]) => ({ type: 'file' as const, path, content })),
    ])
    bundles.serve('stub.tar.gz', archive)
    writeFileSync(
      bundlePin(work),
      JSON.stringify({
        version: 'stub-1',
        url: bundles.url('stub.tar.gz'),
        size: archive.length,
        sha256: sha256(archive),
        licence: 'AGPL-3.0-only',
        source: 'https://example.invalid/source',
      }),
    )
  },
  hostEnv: ({ work }) => ({ RETRACE_OFFICE_BUNDLE: bundlePin(work) }),
  setupTimeout: 120_000,
})
let work: string
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ work, project: root, host } = workspace)
})
// The release server is the spec's own; it stops before the workspace (after-hooks run in reverse).
afterAll(async () => {
  await bundles?.close()
})

async function open(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const opened = await openText(path)
  await expect.poll(() => opened.page.getByTestId('office-engines').count(), { timeout: 30_000 }).toBe(1)
  return opened
}

/** A tab for `path`, whatever view it gets. */
async function openText(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  await page.context().close()
}

const onDisk = (name: string) => new Uint8Array(readFileSync(join(root, name)))
const changed = (name: string) => changedParts(originals.get(name) ?? new Uint8Array(), onDisk(name))
const sameAsOriginal = (name: string) => Buffer.from(onDisk(name)).equals(Buffer.from(originals.get(name) ?? []))
/** The Office offer is for the ONLYOFFICE test; the others close it first. */
async function dismissOffer(page: Page) {
  const cancel = page
    .getByRole('dialog', { name: 'Install the full Office editor?' })
    .getByRole('button', { name: 'Cancel' })
  if (await cancel.count()) await cancel.click()
}

/** LibreOffice's own rendering of a file: its PDF page count and its plain text. */
function soffice(file: string, to: 'pdf' | 'txt:Text'): string {
  const out = mkdtempSync(join(work, 'soffice-'))
  execFileSync(
    SOFFICE ?? 'soffice',
    [`-env:UserInstallation=file://${out}/profile`, '--headless', '--convert-to', to, '--outdir', out, file],
    { timeout: 120_000, stdio: 'ignore' },
  )
  const produced = readdirSync(out).find((name) => name.endsWith(to === 'pdf' ? '.pdf' : '.txt'))
  if (!produced) throw new Error(`soffice produced nothing for ${file}`)
  return join(out, produced)
}

describe('Office documents in the document view', () => {
  test('the view says which engines this machine has and what each gives', async () => {
    const { page, watch } = await open('deck.pptx')
    const engines = page.getByTestId('office-engines')
    // One line names them; what each gives is one click (or Enter) away.
    const summary = page.getByTestId('office-engines-details').locator('summary')
    expect(await summary.textContent()).toContain('Engines: Built-in')
    expect(await summary.textContent()).toContain('ONLYOFFICE (not available)')
    expect(await engines.isVisible()).toBe(false)
    await summary.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => engines.isVisible()).toBe(true)
    expect(await engines.locator('li').count()).toBe(3)
    expect(await engines.locator('li[data-engine="builtin"]').textContent()).toContain(
      'edits DOCX, slide text and cells',
    )
    expect(await engines.locator('li[data-engine="onlyoffice"]').textContent()).toContain('not installed')
    if (SOFFICE) {
      expect(await engines.locator('li[data-engine="libreoffice"]').getAttribute('data-available')).toBe('true')
    }
    // The offer explains size, local processing and the licence; Cancel closes it, it can come back.
    const offer = page.getByRole('dialog', { name: 'Install the full Office editor?' })
    expect(await offer.textContent()).toContain('AGPL-3.0-only')
    expect(await offer.textContent()).toContain('never uploaded')
    await offer.getByRole('button', { name: 'Cancel' }).click()
    expect(await offer.count()).toBe(0)
    await page.getByRole('button', { name: 'Get the full editor…' }).click()
    expect(await offer.count()).toBe(1)
    await close(page, watch)
  })

  test('DOCX: an edit in the built-in editor autosaves, and the file keeps its table and picture', async () => {
    const { page, watch } = await open('letter.docx')
    await dismissOffer(page)
    const view = page.getByTestId('office-docx')
    await expect
      .poll(() => view.getByText('Dear reader', { exact: false }).count(), { timeout: 30_000 })
      .toBeGreaterThan(0)
    await view.getByText('Closing line.', { exact: false }).first().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' Added by a person.')
    await expect
      .poll(async () => (await unzipParts(onDisk('letter.docx'))).get('word/document.xml')?.toString() ?? '', {
        timeout: 20_000,
      })
      .toContain('Added by a person.')
    const parts = await unzipParts(onDisk('letter.docx'))
    const xml = parts.get('word/document.xml')?.toString() ?? ''
    expect((xml.match(/<w:tbl>/g) ?? []).length).toBe(1)
    for (const word of ['North', 'South', 'East', 'West', 'Dear reader']) expect(xml).toContain(word)
    expect(xml).toMatch(/<a:blip [^>]*r:embed=/)
    // The picture is still there, once.
    const media = [...parts.keys()].filter((name) => name.startsWith('word/media/'))
    expect(media).toEqual(['word/media/image1.png'])
    expect(parts.get('word/media/image1.png')?.equals(PNG_1X1)).toBe(true)
    expect((xml.match(/<a:blip /g) ?? []).length).toBe(1)
    if (SOFFICE) {
      const text = readFileSync(soffice(join(root, 'letter.docx'), 'txt:Text'), 'utf8')
      expect(text).toContain('Added by a person.')
      expect(text).toContain('North')
    }
    await page.screenshot({ path: join(ARTIFACTS, 'office-docx.png') })
    await close(page, watch)
  }, 120_000)

  test('DOCX: another tab and back keeps the editor, so Ctrl+Z still undoes the edit', async () => {
    const { page, watch } = await open('kept.docx')
    await dismissOffer(page)
    const view = page.getByTestId('office-docx')
    await expect
      .poll(() => view.getByText('Closing line.', { exact: false }).count(), { timeout: 30_000 })
      .toBeGreaterThan(0)
    const documentXml = async () => (await unzipParts(onDisk('kept.docx'))).get('word/document.xml')?.toString() ?? ''
    await view.getByText('Closing line.', { exact: false }).first().click()
    await page.keyboard.press('End')
    await page.keyboard.type(' Kept across tabs.')
    await expect.poll(documentXml, { timeout: 20_000 }).toContain('Kept across tabs.')

    await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('notes.txt')
    await page.locator('[data-testid="tab-file"][data-path="kept.docx"]').click()
    await expect.poll(() => view.getByText('Kept across tabs.', { exact: false }).count()).toBeGreaterThan(0)
    // The same editor: its undo history still holds the typing, and undoing it is published.
    await view.getByText('Kept across tabs.', { exact: false }).first().click()
    await page.keyboard.press('Control+z')
    await expect.poll(documentXml, { timeout: 20_000 }).not.toContain('Kept across tabs.')
    expect(await documentXml()).toContain('Closing line.')
    await close(page, watch)
  }, 120_000)

  test('DOCX from the corpus (tables, header and footer): an edit keeps every table, LibreOffice reopens it', async () => {
    if (!originals.has('tables.docx')) return
    const before =
      (await unzipParts(originals.get('tables.docx') ?? new Uint8Array())).get('word/document.xml')?.toString() ?? ''
    const tables = (before.match(/<w:tbl>/g) ?? []).length
    expect(tables).toBeGreaterThan(0)
    const { page, watch } = await open('tables.docx')
    await dismissOffer(page)
    const view = page.getByTestId('office-docx')
    await expect.poll(() => view.locator('[contenteditable="true"]').count(), { timeout: 30_000 }).toBeGreaterThan(0)
    await view.locator('.layout-page-content').getByText('The study population', { exact: false }).first().click()
    await page.keyboard.press('Home')
    await page.keyboard.type('Reviewed. ')
    await expect
      .poll(async () => (await unzipParts(onDisk('tables.docx'))).get('word/document.xml')?.toString() ?? '', {
        timeout: 20_000,
      })
      .toContain('Reviewed.')
    const after = (await unzipParts(onDisk('tables.docx'))).get('word/document.xml')?.toString() ?? ''
    expect((after.match(/<w:tbl>/g) ?? []).length).toBe(tables)
    if (SOFFICE) {
      const text = readFileSync(soffice(join(root, 'tables.docx'), 'txt:Text'), 'utf8')
      expect(text).toContain('Reviewed.')
    }
    await close(page, watch)
  }, 120_000)

  test('a text file with an Office name (a Graphviz .dot) opens in the text editor', async () => {
    const { page, watch } = await openText('graph.dot')
    await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 20_000 }).toBe(1)
    expect(await page.locator('div.office-view-full').count()).toBe(0)
    await close(page, watch)
  })

  test('RTF (plain ASCII on disk) opens in the Office view, never as editable source', async () => {
    const { page, watch } = await open('memo.rtf')
    await dismissOffer(page)
    expect(await page.locator('div.office-view-full').count()).toBe(1)
    expect(await page.locator('.monaco-editor').count()).toBe(0)
    if (SOFFICE) {
      await expect
        .poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count(), { timeout: 60_000 })
        .toBeGreaterThan(0)
    }
    await page.screenshot({ path: join(ARTIFACTS, 'office-rtf.png') })
    await close(page, watch)
  }, 120_000)

  test('DOCX with a chart opens read-only and says why', async () => {
    const { page, watch } = await open('chart.docx')
    await dismissOffer(page)
    const reason = page.getByTestId('office-readonly-reason')
    await expect.poll(() => reason.count(), { timeout: 20_000 }).toBe(1)
    expect(await reason.textContent()).toBe('Read-only: the built-in editor would lose charts (1).')
    expect(await page.getByTestId('office-docx').getAttribute('data-readonly')).toBe('true')
    await page.waitForTimeout(1500)
    expect(sameAsOriginal('chart.docx')).toBe(true)
    await close(page, watch)
  })

  test('PPTX: an approximate preview, and a text edit changes only its slide part', async () => {
    const { page, watch } = await open('deck.pptx')
    await dismissOffer(page)
    const slides = page.getByTestId('office-slides')
    await expect.poll(() => slides.count(), { timeout: 20_000 }).toBe(1)
    expect(await slides.getByText('Approximate', { exact: true }).count()).toBe(1)
    await expect.poll(() => page.getByTestId('slide-preview').textContent()).toContain('Quarterly review')
    // The preview is inert: nothing in it takes focus or input.
    expect(await page.getByTestId('slide-preview').evaluate((el) => (el as HTMLElement).inert)).toBe(true)
    // In an 800 px window the slide is scaled down to the pane, seen whole, never cut at its edge.
    const viewport = page.viewportSize()
    await page.setViewportSize({ width: 800, height: 900 })
    const overhang = async () => {
      const preview = await page.getByTestId('slide-preview').boundingBox()
      const pane = await slides.boundingBox()
      return preview && pane ? preview.x + preview.width - (pane.x + pane.width) : Number.NaN
    }
    await expect.poll(overhang).toBeLessThanOrEqual(1)
    if (viewport) await page.setViewportSize(viewport)
    const title = page.getByRole('textbox', { name: 'Text of Title' })
    expect(await title.inputValue()).toBe('Quarterly review')
    await title.fill('Annual review')
    await expect.poll(() => changed('deck.pptx'), { timeout: 20_000 }).toEqual(['ppt/slides/slide1.xml'])
    const slide = (await unzipParts(onDisk('deck.pptx'))).get('ppt/slides/slide1.xml')?.toString() ?? ''
    expect(slide).toContain('<a:t>Annual review</a:t>')
    expect(slide).toContain('b="1"')
    await expect.poll(() => page.getByTestId('slide-preview').textContent()).toContain('Annual review')
    await page.screenshot({ path: join(ARTIFACTS, 'office-pptx.png') })
    // The save is a person's version in History; the original stays there too.
    await page.getByRole('button', { name: 'File history' }).click()
    const versions = page.getByTestId('history-version')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    expect(await page.getByTestId('history-list').textContent()).toContain('You edited')
    expect(await page.getByTestId('history-list').textContent()).toContain('Original')
    await close(page, watch)
  })

  test('XLSX: a cell edit through the grid changes only the sheet and workbook parts', async () => {
    const { page, watch } = await open('book.xlsx')
    await dismissOffer(page)
    const grid = page.getByRole('grid', { name: 'Sheet Data' })
    await expect.poll(() => grid.count(), { timeout: 20_000 }).toBe(1)
    expect(await page.getByRole('tab', { name: 'Summary' }).count()).toBe(1)
    const a2 = grid.getByRole('gridcell', { name: 'A2', exact: true })
    // A2's style formats it with two decimals, as Excel shows it; the editor edits the number.
    expect(await a2.textContent()).toBe('20.00')
    await a2.click()
    // Keyboard: down one, then Enter edits; the editor is named.
    await page.keyboard.press('ArrowUp')
    await expect.poll(() => page.getByTestId('sheet-address').textContent()).toBe('A1')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    const editor = page.getByRole('textbox', { name: 'Cell value' })
    await expect.poll(() => editor.evaluate((el) => el === document.activeElement)).toBe(true)
    await editor.fill('25')
    await editor.press('Enter')
    // Enter commits and moves down, back in the grid.
    await expect.poll(() => page.getByTestId('sheet-address').textContent()).toBe('A3')
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-address') ?? null))
      .toBe('A3')
    // The sheet and workbook parts only (cached formula results go in every sheet with formulas,
    // so LibreOffice recalculates; README "Office decisions").
    await expect.poll(() => changed('book.xlsx'), { timeout: 20_000 }).toContain('xl/worksheets/sheet1.xml')
    const touched = await changed('book.xlsx')
    expect(touched).toContain('xl/workbook.xml')
    expect(touched.every((part) => part === 'xl/workbook.xml' || part.startsWith('xl/worksheets/sheet'))).toBe(true)
    const parts = await unzipParts(onDisk('book.xlsx'))
    expect(parts.get('xl/worksheets/sheet1.xml')?.toString()).toContain('<c r="A2" s="2"><v>25</v></c>')
    expect(parts.get('xl/workbook.xml')?.toString()).toContain('fullCalcOnLoad="1"')
    const before = await unzipParts(originals.get('book.xlsx') ?? new Uint8Array())
    for (const part of [
      'xl/charts/chart1.xml',
      'xl/comments1.xml',
      'xl/media/image1.png',
      'xl/drawings/drawing1.xml',
    ]) {
      expect(parts.get(part)?.equals(before.get(part) ?? Buffer.alloc(0)), part).toBe(true)
    }
    expect(await grid.getByRole('gridcell', { name: 'A2', exact: true }).textContent()).toBe('25.00')
    await page.screenshot({ path: join(ARTIFACTS, 'office-xlsx.png') })
    await close(page, watch)
  })

  test('XLSX: numbers are shown in their formats — dates, percentages — and edited as numbers', async () => {
    const { page, watch } = await open('numbers.xlsx')
    await dismissOffer(page)
    const grid = page.getByRole('grid', { name: 'Sheet Numbers' })
    await expect.poll(() => grid.count(), { timeout: 20_000 }).toBe(1)
    const shown = async (address: string) => grid.getByRole('gridcell', { name: address, exact: true }).textContent()
    expect(await shown('A1')).toBe('2024-03-03')
    expect(await shown('B1')).toBe('2.34%')
    expect(await shown('C1')).toBe('2024-03-04')
    expect(await shown('D1')).toBe('1234.5')
    await grid.getByRole('gridcell', { name: 'A1', exact: true }).dblclick()
    expect(await page.getByRole('textbox', { name: 'Cell value' }).inputValue()).toBe('45354')
    await close(page, watch)
  })

  // Retried: switching from the LibreOffice pages to the thumbnail while pdf.js is still setting up
  // its pages sometimes throws "reading 'pdfPage'" inside pdf.js's viewer (docs/known-gaps.md,
  // seen since issue 24, not yet found). The test only reads the file, so a second run is the same test.
  test(
    'an ODF presentation: its own thumbnail labelled approximate, next to LibreOffice pages when present',
    { retry: 2 },
    async () => {
      if (!originals.has('example.odp')) return
      const { page, watch } = await open('example.odp')
      await dismissOffer(page)
      const approximate = page.getByRole('radio', { name: 'Approximate' })
      if (SOFFICE) {
        expect(await page.getByRole('radio', { name: 'Pages (LibreOffice)' }).getAttribute('aria-checked')).toBe('true')
        expect(await page.getByRole('button', { name: 'Convert to PPTX' }).count()).toBe(1)
        await approximate.click()
      }
      const thumbnail = page.getByRole('img', { name: 'First page thumbnail' })
      await expect.poll(() => thumbnail.count(), { timeout: 20_000 }).toBe(1)
      await expect.poll(() => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
      expect(await page.locator('.office-thumbnail figcaption').textContent()).toContain('Approximate')
      if (SOFFICE) {
        // The view switch is a radio group: arrows move the choice.
        await approximate.focus()
        await page.keyboard.press('ArrowRight')
        const pages = page.getByRole('radio', { name: 'Pages (LibreOffice)' })
        await expect.poll(() => pages.getAttribute('aria-checked')).toBe('true')
        expect(await pages.evaluate((el) => el === document.activeElement)).toBe(true)
      }
      await close(page, watch)
    },
  )

  test('a password-protected file gets its own state with Download; a damaged one says so', async () => {
    const { page, watch } = await open('locked.docx')
    await expect.poll(() => page.getByTestId('office-password-protected').count()).toBe(1)
    expect(await page.getByRole('heading', { name: 'This document is password-protected' }).count()).toBe(1)
    expect(await page.getByTestId('office-password-protected').getByRole('button', { name: 'Download' }).count()).toBe(
      1,
    )
    await close(page, watch)
    if (!originals.has('truncated.docx')) return
    const damaged = await open('truncated.docx')
    await expect.poll(() => damaged.page.getByTestId('office-corrupt').count()).toBe(1)
    await close(damaged.page, damaged.watch)
  })

  test.runIf(SOFFICE)(
    'LibreOffice pages in the PDF reader, with the page count soffice gives',
    async () => {
      const reference = readFileSync(soffice(join(root, 'three-pages.docx'), 'pdf'), 'latin1')
      const pages = (reference.match(/\/Type\s*\/Page[^s]/g) ?? []).length
      expect(pages).toBe(3)
      const { page, watch } = await open('three-pages.docx')
      await dismissOffer(page)
      await page.getByRole('radio', { name: 'Pages (LibreOffice)' }).click()
      const reader = page.getByTestId('pdf-reader')
      await expect.poll(() => reader.count(), { timeout: 90_000 }).toBe(1)
      await expect.poll(() => reader.getByText(`of ${pages}`, { exact: true }).count(), { timeout: 90_000 }).toBe(1)
      await expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
      // Read-only: no annotation tools on a preview.
      expect(await page.getByRole('button', { name: 'Highlight', exact: true }).count()).toBe(0)
      await page.screenshot({ path: join(ARTIFACTS, 'office-pages.png') })
      await close(page, watch)
    },
    200_000,
  )

  test.runIf(SOFFICE)(
    '.doc → .docx from the UI writes a new file and leaves the original',
    async () => {
      if (!originals.has('travel.doc')) return
      const { page, watch } = await open('travel.doc')
      await dismissOffer(page)
      // The legacy file opens in LibreOffice's pages. Converting opens the new file in its tab,
      // which closes this reader; closing it while pdf.js still initialises pages logs "Unable to
      // get page N" (a PDF reader gap, README), so the pages are given time to load first.
      await expect
        .poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count(), { timeout: 60_000 })
        .toBeGreaterThan(0)
      await page.waitForTimeout(1500)
      await page.getByRole('button', { name: 'Convert to DOCX' }).click()
      await expect.poll(() => existsSync(join(root, 'travel.docx')), { timeout: 120_000 }).toBe(true)
      expect(sameAsOriginal('travel.doc')).toBe(true)
      const parts = await unzipParts(onDisk('travel.docx'))
      expect(parts.has('word/document.xml')).toBe(true)
      // The new file opens in its own tab.
      await expect
        .poll(() => page.locator('.viewer-path .crumb-last').allTextContents(), { timeout: 60_000 })
        .toContain('travel.docx')
      await close(page, watch)
    },
    200_000,
  )

  test('ONLYOFFICE: install with progress, then the stub engine round trip through the frame', async () => {
    const { page, watch } = await open('stub.docx')
    const offer = page.getByRole('dialog', { name: 'Install the full Office editor?' })
    // Progress is real byte counts while it runs (the stub bundle is small: it may be brief).
    await page.evaluate(() => {
      const seen: string[] = []
      Object.defineProperty(window, '__installProgress', { value: seen })
      new MutationObserver(() => {
        const text = document.querySelector('[data-testid="office-install-progress"]')?.textContent
        if (text) seen.push(text)
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    await offer.getByRole('button', { name: 'Install' }).click()
    const frameElement = page.locator('iframe.office-engine-frame')
    // The stub fails its first start: the overlay says so, the failed frame is gone, Retry starts again.
    const overlay = page.getByTestId('office-engine-overlay')
    await expect
      .poll(() => overlay.getByRole('alert').textContent(), { timeout: 30_000 })
      .toBe('The editor could not start: Stub start-up failureRetry')
    expect(await frameElement.count()).toBe(0)
    await overlay.getByRole('button', { name: 'Retry' }).click()
    await expect.poll(() => frameElement.count(), { timeout: 30_000 }).toBe(1)
    expect(await frameElement.getAttribute('title')).toBe('ONLYOFFICE editor')
    const progress = await page.evaluate(() => (window as unknown as { __installProgress: string[] }).__installProgress)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.every((text) => /^Downloading… [\d.]+ (B|KiB|MiB) of [\d.]+ (B|KiB|MiB)$/.test(text))).toBe(true)
    expect(await offer.count()).toBe(0)
    const src = (await frameElement.getAttribute('src')) ?? ''
    expect(new URL(src).origin).not.toBe(new URL(host.url).origin)
    const frame = (): Frame => {
      const found = page.frames().find((f) => f.url().startsWith(new URL(src).origin))
      if (!found) throw new Error('no engine frame')
      return found
    }
    await expect
      .poll(() => frame().locator('#status').textContent(), { timeout: 20_000 })
      .toMatch(/^Opened \d+ bytes of docx; macros off, plugins off$/)
    await expect.poll(() => page.getByTestId('office-engine-overlay').count()).toBe(0)

    // A message from the right frame but for another instance is ignored: nothing is saved.
    await frame().locator('#forge').click()
    await page.waitForTimeout(2000)
    expect(sameAsOriginal('stub.docx')).toBe(true)

    // Switching views hides the frame; it is not rebuilt (the stub keeps its state).
    await frameElement.evaluate((el) => (el.dataset.mark = 'kept'))
    await page.getByRole('radio', { name: 'Edit' }).click()
    await expect.poll(() => page.getByTestId('office-docx').count(), { timeout: 20_000 }).toBe(1)
    await page.getByRole('radio', { name: 'ONLYOFFICE' }).click()
    expect(await frameElement.getAttribute('data-mark')).toBe('kept')
    expect(await frame().locator('#status').textContent()).toContain('Opened')

    // An edit in the engine is exported on save through the autosave.
    await frame().locator('#edit').click()
    const expected = stubExport
    await expect.poll(() => Buffer.from(onDisk('stub.docx')).equals(expected), { timeout: 20_000 }).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'office-onlyoffice-stub.png') })
    // The built-in view then opens what the engine exported, not the bytes first opened.
    await page.getByRole('radio', { name: 'Edit' }).click()
    await expect
      .poll(() => page.getByTestId('office-docx').getByText('Edited in the stub engine').count(), { timeout: 20_000 })
      .toBeGreaterThan(0)

    // Another tab and back: a frame cannot leave the page without reloading, so this view is
    // released like a closed tab (nothing was pending) and opens again on the file as it is now.
    await page.getByRole('radio', { name: 'ONLYOFFICE' }).click()
    await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('notes.txt')
    expect(await frameElement.count()).toBe(0)
    await page.locator('[data-testid="tab-file"][data-path="stub.docx"]').click()
    const radio = page.getByRole('radio', { name: 'ONLYOFFICE' })
    await expect.poll(() => radio.count(), { timeout: 20_000 }).toBe(1)
    if ((await radio.getAttribute('aria-checked')) !== 'true') await radio.click()
    await expect
      .poll(() => frame().locator('#status').textContent(), { timeout: 20_000 })
      .toMatch(/^Opened \d+ bytes of docx/)
    expect(Buffer.from(onDisk('stub.docx')).equals(expected)).toBe(true)
    await close(page, watch)
  }, 120_000)
})
