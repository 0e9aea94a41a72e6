import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage, type PageWatch } from './support/browser'
import { paperPdf, paragraph, truncatedPdf } from './support/pdf-fixtures'
import { copySelection, selectText } from './support/pdf-page'
import { writePdf } from './support/pdf-writer'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * A page whose Courier text uses the font's built-in StandardEncoding, where byte 0xAE is the "fi"
 * ligature glyph and 0xAF "fl" (as typeset papers draw them), so pdf.js's text layer holds
 * U+FB01 / U+FB02; one word is hyphenated across a line end. The writer names WinAnsiEncoding as
 * the base encoding: that name is blanked with spaces, so every byte offset stays as written.
 */
function ligaturePdf(): Buffer {
  const lines = ['The \u00aerst \u00aeeld of this hyphen-', 'ated paragraph is \u00afat and', 'ends here.']
  const pdf = writePdf({
    pages: [{ texts: paragraph(lines, { x: 72, y: 720, size: 11, width: 330, leading: 14 }) }],
  })
  const base = Buffer.from('/BaseEncoding /WinAnsiEncoding /Differences [173 /sfthyphen]', 'latin1')
  const at = pdf.indexOf(base)
  if (at < 0 || pdf.indexOf(base, at + 1) >= 0) throw new Error('the Courier encoding was not found once')
  const blank = '/BaseEncoding /WinAnsiEncoding'.length
  pdf.fill(0x20, at, at + blank)
  return pdf
}
const LIGATURE_COPIED = 'The first field of this hyphenated paragraph is flat and ends here.'

const workspace = useWorkspace({
  name: 'pdf-zoom',
  files: ({ project }) => {
    mkdirSync(join(project, 'papers'), { recursive: true })
    writeFileSync(join(project, 'papers', 'paper.pdf'), paperPdf())
    writeFileSync(join(project, 'papers', 'ligatures.pdf'), ligaturePdf())
    writeFileSync(join(project, 'papers', 'broken.pdf'), truncatedPdf())
    // A line of text circled by a freehand ink annotation whose box covers the whole line.
    writeFileSync(
      join(project, 'papers', 'inked.pdf'),
      writePdf({
        pages: [
          {
            texts: [{ x: 72, y: 700, size: 14, text: 'Selectable words under the ink circle' }],
            inks: [{ rect: [60, 680, 400, 730], strokes: [[62, 705, 230, 728, 398, 705, 230, 682, 62, 705]] }],
          },
        ],
      }),
    )
  },
})
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

async function openPdf(
  path: string,
  options: { width?: number; clipboard?: boolean } = {},
): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({
    viewport: { width: options.width ?? 1440, height: 900 },
    ...(options.clipboard ? { permissions: ['clipboard-read', 'clipboard-write'] } : {}),
  })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  await expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  await page.context().close()
}

/** pdf.js's CSS width of page 1 (changes with the zoom). */
const pageWidth = (page: Page) =>
  page
    .locator('.pdf-scroll .page')
    .first()
    .evaluate((element) => Math.round(element.getBoundingClientRect().width))
const scrollWidth = (page: Page) => page.locator('.pdf-scroll').evaluate((element) => element.clientWidth)
const zoomValue = (page: Page) => page.getByRole('combobox', { name: 'Zoom' }).inputValue()

describe('zooming the PDF reader', () => {
  test('Ctrl+= and Ctrl+- zoom the pages and Ctrl+0 goes back to Fit width, only while the reader is where the person is', async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    const fit = await pageWidth(page)
    const pages = page.locator('.pdf-scroll')
    await pages.focus()
    await page.keyboard.press('Control+Equal')
    await expect.poll(() => pageWidth(page)).toBeGreaterThan(fit + 20)
    const bigger = await pageWidth(page)
    await page.keyboard.press('Control+Minus')
    await expect.poll(() => pageWidth(page)).toBeLessThan(bigger)
    await page.keyboard.press('Control+Equal')
    await page.keyboard.press('Control+0')
    await expect.poll(() => zoomValue(page)).toBe('page-width')
    await expect.poll(() => pageWidth(page)).toBe(fit)

    // The focus on a control outside the reader, the pointer away from it: the keys are not the
    // reader's (nothing zooms).
    await page.mouse.move(2, 2)
    await page
      .locator('button:visible')
      .filter({ hasNot: page.locator('[data-testid="pdf-reader"] *') })
      .evaluateAll((buttons) => {
        const outside = buttons.find((button) => !button.closest('[data-testid="pdf-reader"]'))
        if (!(outside instanceof HTMLElement)) throw new Error('no button outside the reader')
        outside.focus()
      })
    await page.keyboard.press('Control+Equal')
    await page.keyboard.press('Control+Equal')
    expect(await zoomValue(page)).toBe('page-width')
    expect(await pageWidth(page)).toBe(fit)

    // Nothing focused, the pointer over the pages: the reader's again.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    const box = await pages.boundingBox()
    if (!box) throw new Error('no pages on screen')
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.keyboard.press('Control+Equal')
    await expect.poll(() => pageWidth(page)).toBeGreaterThan(fit + 20)
    await close(page, watch)
  })

  test('Ctrl+wheel zooms the pages around the pointer, never the whole window', async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    const fit = await pageWidth(page)
    // Whether the wheel's default action (the browser's own page zoom) was cancelled.
    await page.evaluate(() => {
      const seen: boolean[] = []
      ;(window as unknown as { wheelCancelled: boolean[] }).wheelCancelled = seen
      window.addEventListener('wheel', (event) => seen.push(event.defaultPrevented), { passive: true })
    })
    const box = await page.locator('.pdf-scroll').boundingBox()
    if (!box) throw new Error('no pages on screen')
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3)
    await page.keyboard.down('Control')
    await page.mouse.wheel(0, -120)
    await page.keyboard.up('Control')
    await expect.poll(() => pageWidth(page)).toBeGreaterThan(fit + 20)
    const cancelled = await page.evaluate(() => (window as unknown as { wheelCancelled: boolean[] }).wheelCancelled)
    expect(cancelled.length).toBeGreaterThan(0)
    expect(cancelled.every(Boolean)).toBe(true)
    expect(await page.evaluate(() => window.visualViewport?.scale ?? 1)).toBe(1)
    expect(await zoomValue(page)).toBe('custom')

    // A plain wheel still scrolls the pages.
    const top = await page.locator('.pdf-scroll').evaluate((element) => element.scrollTop)
    await page.mouse.wheel(0, 300)
    await expect.poll(() => page.locator('.pdf-scroll').evaluate((element) => element.scrollTop)).toBeGreaterThan(top)
    await close(page, watch)
  })

  test('Fit width and Fit page follow the pane when it is resized', async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    const wide = await pageWidth(page)
    const wideScroll = await scrollWidth(page)
    await page.setViewportSize({ width: 1024, height: 900 })
    await expect.poll(() => scrollWidth(page)).toBeLessThan(wideScroll)
    await expect.poll(() => pageWidth(page)).toBeLessThan(wide - 100)
    // The page fills the narrower pane as it filled the wide one (same margins).
    await expect
      .poll(async () => (await scrollWidth(page)) - (await pageWidth(page)))
      .toBeLessThan(wideScroll - wide + 4)
    await page.setViewportSize({ width: 1440, height: 900 })
    await expect.poll(() => pageWidth(page)).toBe(wide)

    await page.getByRole('combobox', { name: 'Zoom' }).selectOption('page-fit')
    await expect.poll(() => pageWidth(page)).toBeLessThan(wide)
    const fitPage = await pageWidth(page)
    await page.setViewportSize({ width: 1440, height: 600 })
    await expect.poll(() => pageWidth(page)).toBeLessThan(fitPage - 50)
    await close(page, watch)
  })

  test('screenshots at 1440, 1024 and 800 px', async () => {
    for (const width of [1440, 1024, 800]) {
      const { page, watch } = await openPdf('papers/paper.pdf', { width })
      await page.screenshot({ path: join(ARTIFACTS, `pdf-zoom-${width}.png`) })
      await close(page, watch)
    }
  })
})

describe('copying, damage, ink and the annotation toolbar', () => {
  test('copied text has its ligatures spelled out and a word hyphenated at a line end rejoined', async () => {
    const { page, watch } = await openPdf('papers/ligatures.pdf', { clipboard: true })
    const layerText = await page.locator('.textLayer').first().textContent()
    // The page really carries the ligature characters (otherwise this test proves nothing).
    expect(layerText).toContain('\ufb01')
    expect(layerText).toContain('\ufb02')
    await selectText(page, 1, 'The', 'here.')
    expect(await copySelection(page)).toBe(LIGATURE_COPIED)
    await page.getByRole('checkbox', { name: 'Keep line breaks' }).check()
    await selectText(page, 1, 'The', 'here.')
    expect(await copySelection(page)).toBe('The first field of this hyphen-\nated paragraph is flat and\nends here.')
    await close(page, watch)
  })

  test('a damaged PDF says it is damaged and why, with Download', async () => {
    const context = await workspace.newContext()
    const page = await context.newPage()
    await page.goto(`${host.url}&open=${encodeURIComponent('papers/broken.pdf')}`)
    const failed = page.getByTestId('pdf-failed')
    await expect.poll(() => failed.getAttribute('data-reason')).toBe('corrupt')
    const heading = await failed.getByRole('heading').textContent()
    expect(heading).toMatch(/^This PDF is damaged and cannot be opened: \S/)
    expect(await failed.textContent()).not.toContain('Cannot preview this file yet')
    expect(await failed.getByRole('button', { name: 'Download' }).isEnabled()).toBe(true)
    await context.close()
  })

  test('a text selection can start under an ink annotation when no tool is on', async () => {
    const { page, watch } = await openPdf('papers/inked.pdf')
    await expect.poll(() => page.locator('.annotationLayer section.inkAnnotation').count()).toBe(1)
    // From inside "Selectable" (inside the ink's box, off its stroke) to the end of "words".
    const points = await page
      .locator('.textLayer')
      .first()
      .evaluate((layer) => {
        const boxOf = (word: string) => {
          const walker = document.createTreeWalker(layer, NodeFilter.SHOW_TEXT)
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = (node as Text).data.indexOf(word)
            if (at < 0) continue
            const range = document.createRange()
            range.setStart(node, at)
            range.setEnd(node, at + word.length)
            return range.getBoundingClientRect()
          }
          throw new Error(`no ${word} in the text layer: ${JSON.stringify(layer.textContent)}`)
        }
        const from = boxOf('Selectable')
        const to = boxOf('words')
        return {
          from: { x: from.left + 3, y: from.top + from.height / 2 },
          to: { x: to.right - 1, y: to.top + to.height / 2 },
        }
      })
    const under = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest('.annotationLayer') !== null,
      points.from,
    )
    expect(under, 'the ink annotation covers the text where the drag starts').toBe(false)
    await page.mouse.move(points.from.x, points.from.y)
    await page.mouse.down()
    await page.mouse.move(points.to.x, points.to.y, { steps: 8 })
    await page.mouse.up()
    expect(await page.evaluate(() => getSelection()?.toString().trim())).toMatch(/^S?electable words$/)
    await close(page, watch)
  })

  test("a selected highlight's toolbar is laid out like the app's: a visible delete icon, reachable and working from the keyboard", async () => {
    const { page, watch } = await openPdf('papers/paper.pdf')
    await selectText(page, 1, 'Lattice methods', 'plane.')
    await page.getByRole('button', { name: 'Highlight', exact: true }).click()
    await expect.poll(() => page.locator('.highlightEditor').count()).toBe(1)
    await page.locator('.highlightEditor').focus()
    const toolbar = page.getByRole('toolbar').filter({ has: page.locator('.deleteButton') })
    await expect.poll(() => toolbar.count()).toBe(1)
    const remove = toolbar.getByRole('button', { name: 'Remove highlight' })
    const look = await remove.evaluate((button) => {
      const before = getComputedStyle(button, '::before')
      const toolbar = button.closest('.editToolbar')
      const readerToolbar = button.closest('.pdf-reader')?.querySelector('.pdf-toolbar')
      return {
        content: before.content,
        font: before.fontFamily,
        toolbar: toolbar ? getComputedStyle(toolbar).backgroundColor : '',
        reader: readerToolbar ? getComputedStyle(readerToolbar).backgroundColor : 'none',
      }
    })
    expect(look.content).not.toBe('""')
    expect(look.font).toContain('codicon')
    // The toolbar takes the reader's own toolbar colour.
    expect(look.toolbar).toBe(look.reader)
    await page.screenshot({ path: join(ARTIFACTS, 'pdf-editor-toolbar.png') })
    await remove.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.locator('.highlightEditor').count()).toBe(0)
    await close(page, watch)
  })
})
