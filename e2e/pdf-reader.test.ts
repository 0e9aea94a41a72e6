import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage, type PageWatch } from './support/browser'
import { longPdf, PAPER, paperFindCount, paperPdf, truncatedPdf } from './support/pdf-fixtures'
import { copySelection, inkPerPage, selectText } from './support/pdf-page'
import { writePdf } from './support/pdf-writer'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

const CORPUS = join(__dirname, '..', '..', 'shared', 'corpus', 'pdf')
const CORPUS_FILES = [
  'pdfjs-comments.pdf',
  'pdfjs-issue12823-chinese.pdf',
  'pdfjs-nested_outline.pdf',
  'pdfjs-rotation.pdf',
  'pdfjs-issue3371-encrypted.pdf',
  'pdfjs-bug1020226-truncated.pdf',
]
let corpus: string[] = []

const workspace = useWorkspace({
  name: 'pdf',
  files: ({ project }) => {
    mkdirSync(join(project, 'papers'), { recursive: true })
    writeFileSync(join(project, 'papers', 'paper.pdf'), paperPdf())
    writeFileSync(join(project, 'papers', 'locked.pdf'), paperPdf({ userPassword: 'retrace' }))
    writeFileSync(join(project, 'papers', 'broken.pdf'), truncatedPdf())
    // Bytes that are neither text nor a PDF, under a .pdf name.
    writeFileSync(
      join(project, 'papers', 'not-a-pdf.pdf'),
      Buffer.from([0xff, 0xd8, 0x00, 0x13, 0x37, 0xfe, 0x00, 0x42]),
    )
    writeFileSync(join(project, 'long.pdf'), longPdf(500))
    writeFileSync(
      join(project, 'papers', 'noted.pdf'),
      writePdf({
        pages: [
          {
            texts: [{ x: 72, y: 770, size: 14, text: 'A page with a sticky note' }],
            notes: [{ rect: [100, 600, 120, 620], text: 'Check this figure' }],
          },
        ],
      }),
    )
    // Empty, or text that only starts like a PDF: sniffed as text, still a damaged PDF to a person.
    writeFileSync(join(project, 'papers', 'empty.pdf'), '')
    writeFileSync(join(project, 'papers', 'text.pdf'), '%PDF-1.7\nnot really a pdf\n')
    if (existsSync(CORPUS)) {
      mkdirSync(join(project, 'corpus'))
      for (const name of CORPUS_FILES) copyFileSync(join(CORPUS, name), join(project, 'corpus', name))
      corpus = CORPUS_FILES
    } else {
      console.log(`pdf corpus tests skipped: ${CORPUS} is missing`)
    }
  },
})
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

async function openPdf(
  path: string,
  options: { width?: number; height?: number; clipboard?: boolean } = {},
): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    ...(options.clipboard ? { permissions: ['clipboard-read', 'clipboard-write'] } : {}),
  })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  return { page, watch }
}

const reader = (page: Page) => page.getByTestId('pdf-reader')
const firstPageDrawn = (page: Page) =>
  expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
const pageBox = (page: Page) => page.getByRole('textbox', { name: 'Page', exact: true })
/** pdf.js's CSS width of page 1 (changes with the zoom). */
const pageWidth = (page: Page) =>
  page
    .locator('.pdf-scroll .page')
    .first()
    .evaluate((element) => element.getBoundingClientRect().width)

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  await page.context().close()
}

describe('the PDF reader', () => {
  test('reads a paper: real pages in one scroll, page box, outline, links, find with a count, zoom modes', async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    await firstPageDrawn(page)
    for (const name of ['Toggle sidebar', 'Previous page', 'Next page', 'Zoom out', 'Zoom in', 'Find', 'Highlight']) {
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(1)
    }
    expect(await page.getByRole('button', { name: 'Free text' }).count()).toBe(1)
    expect(await pageBox(page).inputValue()).toBe('1')
    expect(await reader(page).getByText('of 6', { exact: true }).count()).toBe(1)
    expect((await inkPerPage(page)).every((ink) => ink > 50)).toBe(true)

    // Continuous scroll: the next page is drawn as it comes into view, and the page box follows.
    await page.getByRole('button', { name: 'Next page' }).click()
    await expect.poll(() => pageBox(page).inputValue()).toBe('2')
    await expect
      .poll(() => page.locator('.pdf-scroll .page[data-page-number="2"][data-rendered="true"]').count())
      .toBe(1)
    await pageBox(page).fill('5')
    await pageBox(page).press('Enter')
    await expect.poll(() => pageBox(page).inputValue()).toBe('5')

    // Outline: nested, and a click lands on the entry's page.
    await page.getByRole('button', { name: 'Toggle sidebar' }).click()
    await reader(page).getByRole('tab', { name: 'Outline' }).click()
    const outline = page.getByRole('tree', { name: 'Outline' })
    expect(await outline.getByRole('treeitem').count()).toBeGreaterThanOrEqual(6)
    await outline.getByRole('button', { name: '2.1 Data' }).click()
    await expect.poll(() => pageBox(page).inputValue()).toBe('4')
    await outline.getByRole('button', { name: '1 Introduction' }).click()
    await expect.poll(() => pageBox(page).inputValue()).toBe('1')
    await page.screenshot({ path: join(ARTIFACTS, 'pdf-reader-outline.png') })

    // An in-document link goes to its page.
    await expect.poll(() => page.locator('.pdf-scroll .page[data-page-number="1"] .annotationLayer a').count()).toBe(2)
    await page.locator('.pdf-scroll .page[data-page-number="1"] .annotationLayer a[href^="#"]').first().click()
    await expect.poll(() => pageBox(page).inputValue()).toBe('5')

    // Find: the count matches the text, Enter and the buttons step through the matches (from
    // the current page on).
    await pageBox(page).fill('1')
    await pageBox(page).press('Enter')
    await expect.poll(() => pageBox(page).inputValue()).toBe('1')
    await page.getByRole('button', { name: 'Find', exact: true }).click()
    const box = page.getByRole('searchbox', { name: 'Find in document' })
    await box.fill(PAPER.findTerm)
    const total = paperFindCount()
    await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toBe(`1 of ${total}`)
    await box.press('Enter')
    await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toBe(`2 of ${total}`)
    await page.getByRole('button', { name: 'Previous match' }).click()
    await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toBe(`1 of ${total}`)
    await expect.poll(() => page.locator('.textLayer .highlight').count()).toBeGreaterThan(1)
    await page.getByRole('checkbox', { name: 'Highlight all' }).uncheck()
    await expect.poll(() => page.locator('.textLayer .highlight:not(.selected)').count()).toBe(0)
    await box.fill('no such phrase anywhere')
    await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toBe('No matches')
    await box.press('Escape')
    expect(await box.count()).toBe(0)

    // Zoom: actual size is 100 % (a 595 pt page is 793 CSS px), fit page is smaller than fit
    // width here, zoom in and out step.
    const zoom = page.getByRole('combobox', { name: 'Zoom' })
    await zoom.selectOption('page-actual')
    await expect.poll(() => pageWidth(page).then((w) => Math.abs(w - 793.7) < 2)).toBe(true)
    await zoom.selectOption('page-width')
    const fitWidth = await pageWidth(page)
    await zoom.selectOption('page-fit')
    await expect.poll(() => pageWidth(page)).toBeLessThan(fitWidth)
    const fitPage = await pageWidth(page)
    await page.getByRole('button', { name: 'Zoom in' }).click()
    await expect.poll(() => pageWidth(page)).toBeGreaterThan(fitPage)
    await zoom.selectOption('2')
    await expect.poll(() => pageWidth(page).then((w) => Math.abs(w - 2 * 793.7) < 3)).toBe(true)
    await page.getByRole('button', { name: 'Zoom out' }).click()
    await expect.poll(() => pageWidth(page)).toBeLessThan(1580)
    await close(page, watch)
  })

  test('copy reads like the paper: joined lines, rejoined hyphenated words, kept paragraphs, no spaces in Chinese', async () => {
    const { page, watch } = await openPdf('papers/paper.pdf', { clipboard: true })
    await firstPageDrawn(page)
    await expect
      .poll(() => page.locator('.pdf-scroll .page[data-page-number="1"] .textLayer span').count())
      .toBeGreaterThan(10)
    await selectText(page, 1, 'Lattice methods', 'too.')
    expect(await copySelection(page)).toBe(PAPER.copied)

    await page.getByRole('checkbox', { name: 'Keep line breaks' }).check()
    await selectText(page, 1, 'Lattice methods', 'plane.')
    expect(await copySelection(page)).toBe(
      'Lattice methods give a con-\nvenient way for cooperative\nreasoning in the plane.',
    )
    await page.getByRole('checkbox', { name: 'Keep line breaks' }).uncheck()

    await pageBox(page).fill('6')
    await pageBox(page).press('Enter')
    await expect
      .poll(() => page.locator('.pdf-scroll .page[data-page-number="6"] .textLayer span').count())
      .toBeGreaterThan(1)
    await selectText(page, 6, (PAPER.cjkLines[0] ?? '').slice(0, 3), '编写。')
    expect(await copySelection(page)).toBe(PAPER.cjkCopied)
    // Only the clipboard changed: the text layer still has the page's own lines.
    expect(await page.locator('.pdf-scroll .page[data-page-number="6"] .textLayer').textContent()).toContain(
      PAPER.cjkLines[0],
    )
    await close(page, watch)
  })

  test('an encrypted PDF asks for its password: a wrong one says so, cancel leaves an explicit state with Download', async () => {
    const { page, watch } = await openPdf('papers/locked.pdf')
    const dialog = page.getByRole('dialog', { name: 'This PDF is protected' })
    await expect.poll(() => dialog.count()).toBe(1)
    await dialog.getByLabel('Password').fill('wrong')
    await dialog.getByRole('button', { name: 'Open' }).click()
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('That password is not correct. Try again.')
    await dialog.getByLabel('Password').fill('retrace')
    await dialog.getByRole('button', { name: 'Open' }).click()
    await firstPageDrawn(page)
    expect((await inkPerPage(page))[0]).toBeGreaterThan(50)
    await page.context().close()

    const again = await openPdf('papers/locked.pdf')
    const prompt = again.page.getByRole('dialog', { name: 'This PDF is protected' })
    await expect.poll(() => prompt.count()).toBe(1)
    await prompt.getByRole('button', { name: 'Cancel' }).click()
    const failed = again.page.getByTestId('pdf-failed')
    await expect.poll(() => failed.getAttribute('data-reason')).toBe('locked')
    expect(await failed.textContent()).toContain('protected by a password')
    const download = again.page.waitForEvent('download')
    await failed.getByRole('button', { name: 'Download' }).click()
    expect((await download).suggestedFilename()).toBe('locked.pdf')
    expect(watch.consoleErrors).toEqual([])
    await close(again.page, again.watch)
  })

  test('a damaged file gets an explicit state with Download, never a blank pane', async () => {
    for (const path of ['papers/broken.pdf', 'papers/not-a-pdf.pdf', 'papers/empty.pdf', 'papers/text.pdf']) {
      const { page } = await openPdf(path)
      const failed = page.getByTestId('pdf-failed')
      await expect.poll(() => failed.getAttribute('data-reason'), { message: path }).toBe('corrupt')
      expect(await failed.textContent()).toContain('damaged')
      expect(await failed.getByRole('button', { name: 'Download' }).isEnabled()).toBe(true)
      await page.context().close()
    }
  })

  test("a sticky note's icon is drawn from the staged pdf.js images", async () => {
    const { page, watch } = await openPdf('papers/noted.pdf')
    await firstPageDrawn(page)
    const icon = page.locator('.annotationLayer .textAnnotation img')
    await expect.poll(() => icon.count()).toBe(1)
    await expect.poll(() => icon.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0)
    await close(page, watch)
  })

  test('real papers from other tools render: odd fonts, Chinese, rotation, existing annotations, encryption, damage', async () => {
    if (corpus.length === 0) return
    for (const name of corpus) {
      const { page, watch } = await openPdf(`corpus/${name}`)
      if (name.includes('encrypted')) {
        const dialog = page.getByRole('dialog', { name: 'This PDF is protected' })
        await expect.poll(() => dialog.count(), { message: name }).toBe(1)
        await dialog.getByLabel('Password').fill('ELXRTQWS')
        await dialog.getByRole('button', { name: 'Open' }).click()
      }
      if (name.includes('truncated')) {
        await expect
          .poll(() => page.getByTestId('pdf-failed').getAttribute('data-reason'), { message: name })
          .toBe('corrupt')
      } else {
        await firstPageDrawn(page)
        // Scanned (JBIG2/JPX) pages are images: wait for pixels rather than text.
        await expect.poll(async () => (await inkPerPage(page))[0] ?? 0, { message: name }).toBeGreaterThan(20)
      }
      if (name.includes('nested_outline')) {
        await page.getByRole('button', { name: 'Toggle sidebar' }).click()
        await reader(page).getByRole('tab', { name: 'Outline' }).click()
        const items = page.getByRole('tree', { name: 'Outline' }).getByRole('treeitem')
        await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3)
        const last = page.getByRole('tree', { name: 'Outline' }).getByRole('button').last()
        await last.click()
        await expect.poll(() => pageBox(page).inputValue().then(Number), { message: name }).toBeGreaterThan(1)
      }
      if (name.includes('chinese')) {
        await page.getByRole('button', { name: 'Find', exact: true }).click()
        await page.getByRole('searchbox', { name: 'Find in document' }).fill('知识库')
        await expect
          .poll(() => page.getByTestId('pdf-match-count').textContent(), { message: name })
          .toMatch(/^1 of \d+$/)
      }
      await page.screenshot({ path: join(ARTIFACTS, `pdf-corpus-${name}.png`) })
      expect(watch.consoleErrors, name).toEqual([])
      expect(await watch.cspViolations(), name).toEqual([])
      await page.context().close()
    }
  })

  test('a 500-page file: thumbnails are drawn as they scroll into view and only a bounded number are kept', async () => {
    const { page, watch } = await openPdf('long.pdf')
    await firstPageDrawn(page)
    expect(await reader(page).getByText('of 500', { exact: true }).count()).toBe(1)
    await page.getByRole('button', { name: 'Toggle sidebar' }).click()
    const thumbnails = page.getByTestId('pdf-thumbnails')
    expect(await thumbnails.getByRole('button').count()).toBe(500)
    await expect.poll(() => thumbnails.locator('[data-drawn="true"]').count()).toBeGreaterThan(0)
    const body = page.locator('.pdf-sidebar-body')
    let most = 0
    for (let step = 1; step <= 25; step++) {
      await body.evaluate((element, step) => {
        element.scrollTop = (element.scrollHeight * step) / 25
      }, step)
      await expect.poll(() => thumbnails.locator('[data-drawn="true"] canvas').count()).toBeGreaterThan(0)
      most = Math.max(most, await page.locator('.pdf-thumbnails canvas').count())
    }
    expect(most).toBeLessThanOrEqual(40)
    await thumbnails.getByRole('button', { name: 'Page 500' }).click()
    await expect.poll(() => pageBox(page).inputValue()).toBe('500')
    expect(await thumbnails.getByRole('button', { name: 'Page 500' }).getAttribute('aria-current')).toBe('page')
    await close(page, watch)
  })

  test('in a narrow pane the toolbar wraps and never covers the page; light and dark', async () => {
    for (const [width, scheme] of [
      [1440, 'light'],
      [1024, 'dark'],
      [800, 'light'],
      [800, 'dark'],
    ] as const) {
      const { page, watch } = await openPdf('papers/paper.pdf', { width })
      await page.emulateMedia({ colorScheme: scheme })
      await firstPageDrawn(page)
      const toolbar = await page.getByRole('toolbar', { name: 'PDF tools' }).boundingBox()
      const stage = await page.locator('.pdf-stage').boundingBox()
      expect(toolbar && stage && toolbar.y + toolbar.height <= stage.y + 1).toBe(true)
      // Every control is inside the reader's width (wrapped, not cut off).
      const frame = await reader(page).boundingBox()
      const overflow = await page
        .getByRole('toolbar', { name: 'PDF tools' })
        .locator('button, input, select')
        .evaluateAll(
          (controls, right) => controls.filter((c) => c.getBoundingClientRect().right > (right as number) + 1).length,
          (frame?.x ?? 0) + (frame?.width ?? 0),
        )
      expect(overflow).toBe(0)
      await page.getByRole('button', { name: 'Toggle sidebar' }).click()
      await expect.poll(() => page.locator('.pdf-thumbnails [data-drawn="true"]').count()).toBeGreaterThan(0)
      expect(Math.round((await page.locator('.pdf-sidebar').boundingBox())?.width ?? 0)).toBe(180)
      await page.screenshot({ path: join(ARTIFACTS, `pdf-reader-${width}-${scheme}.png`) })
      await close(page, watch)
    }
  })

  test("runs under the production CSP: an external request is refused, the staged pdf.js is the manifest's", async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    await firstPageDrawn(page)
    const response = await page.request.get(`http://127.0.0.1:${host.port}/document-assets/pdfjs/manifest.json`)
    expect(response.headers()['content-security-policy']).toContain("connect-src 'self' blob:")
    const main = await page.evaluate(async () => {
      const r = await fetch(location.href)
      return r.headers.get('content-security-policy')
    })
    expect(main).toContain("default-src 'self'")
    const external = await page.evaluate(async () => {
      try {
        await fetch('https://example.org/probe')
        return 'loaded'
      } catch {
        return 'refused'
      }
    })
    expect(external).toBe('refused')
    const violations = await watch.cspViolations()
    expect(violations.map((v) => v.directive)).toEqual(['connect-src'])
    // The only console errors are the browser reporting that refusal.
    expect(watch.consoleErrors.filter((e) => !e.includes('https://example.org/probe'))).toEqual([])
    // The manifest names the legacy build; the worker and module served are those bytes.
    const manifest = (await response.json()) as {
      version: string
      build: string
      files: Array<{ path: string; sha256: string }>
    }
    expect(manifest).toMatchObject({ version: '6.3.289', build: 'legacy' })
    for (const name of ['pdf.worker.min.mjs', 'pdf.min.mjs', 'pdf_viewer.mjs']) {
      const served = await page.request.get(`http://127.0.0.1:${host.port}/document-assets/pdfjs/${name}`)
      const digest = createHash('sha256')
        .update(await served.body())
        .digest('hex')
      expect(digest, name).toBe(manifest.files.find((f) => f.path === name)?.sha256)
    }
    // The app's own styles are untouched by pdf.js's (its `.dialog` class and root variables are scoped).
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--page-border')),
    ).toBe('')
    await page.context().close()
  })
})
