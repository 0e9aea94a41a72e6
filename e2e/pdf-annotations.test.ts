import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage, type PageWatch } from './support/browser'
import { paperPdf } from './support/pdf-fixtures'
import { annotationsOnDisk, withoutNewerApis, workerSawMissingApis } from './support/pdf-page'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

const original = paperPdf()
const workspace = useWorkspace({
  name: 'pdf-notes',
  files: {
    ...Object.fromEntries(
      ['native', 'compat', 'failing', 'closing', 'conflict', 'drafted', 'history', 'shared'].map((name) => [
        `${name}.pdf`,
        original,
      ]),
    ),
    'notes.txt': 'Reading notes\n',
    'locked.pdf': paperPdf({ userPassword: 'retrace' }),
  },
})
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project: root, host } = workspace)
})

async function openPdf(context: BrowserContext, path: string): Promise<{ page: Page; watch: PageWatch }> {
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  await expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
  await expect.poll(() => page.getByRole('button', { name: 'Highlight', exact: true }).count()).toBe(1)
  return { page, watch }
}

const newContext = () => workspace.newContext({ viewport: { width: 1440, height: 900 } })
const onDisk = (name: string) => annotationsOnDisk(join(root, name))
const count = (name: string, subtype: string) => onDisk(name).filter((a) => a.subtype === subtype).length
const notes = (name: string) =>
  onDisk(name)
    .filter((a) => a.subtype === 'FreeText')
    .map((a) => a.contents)
    .sort()

/** Turns a tool on and waits until pdf.js has switched to it (it redraws the visible pages first). */
async function toolOn(page: Page, name: 'Highlight' | 'Free text') {
  const button = page.getByRole('button', { name, exact: true })
  await button.click()
  await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true')
}

/** Drags across the text of page 1 from one word to another (a person selecting with the mouse). */
async function dragOver(page: Page, from: string, to: string) {
  const layer = page.locator('.pdf-scroll .page[data-page-number="1"] .textLayer')
  const start = await layer.getByText(from, { exact: true }).first().boundingBox()
  const end = await layer.getByText(to, { exact: true }).first().boundingBox()
  if (!start || !end) throw new Error(`words not found: ${from}, ${to}`)
  await page.mouse.move(start.x + 1, start.y + start.height / 2)
  await page.mouse.down()
  await page.mouse.move(end.x + end.width - 1, end.y + end.height / 2, { steps: 8 })
  await page.mouse.up()
}

/** A free-text note typed at a point of page 1 (CSS pixels from the page's corner). */
async function noteAt(page: Page, x: number, y: number, text: string) {
  const box = await page.locator('.pdf-scroll .page[data-page-number="1"]').boundingBox()
  if (!box) throw new Error('page 1 is not laid out')
  await page.mouse.click(box.x + x, box.y + y)
  await typeIntoNewNote(page, text)
}

/** Types into the note pdf.js just opened, once it has the focus (so no keystroke is lost). */
async function typeIntoNewNote(page: Page, text: string) {
  const editable = page.locator('.freeTextEditor [contenteditable="true"]')
  await expect.poll(() => editable.count()).toBe(1)
  await expect.poll(() => editable.evaluate((element) => element === document.activeElement)).toBe(true)
  await page.keyboard.type(text)
  await page.keyboard.press('Escape')
  // pdf.js commits the note and moves the focus afterwards; a person's next key comes after that.
  await expect.poll(() => editable.count()).toBe(0)
}

/**
 * The whole annotating session of the issue: a highlight and a note by mouse, a highlight and a
 * note by keyboard, pdf.js's undo/redo, autosave, the file re-read by qpdf, and a reload.
 */
async function annotate(context: BrowserContext, name: string) {
  const { page, watch } = await openPdf(context, name)
  // By mouse: a green highlight over a selection, then a note.
  await page.getByRole('radio', { name: 'Green' }).click()
  await toolOn(page, 'Highlight')
  await dragOver(page, 'second', 'starts')
  await expect.poll(() => page.locator('.highlightEditor').count()).toBe(1)
  await toolOn(page, 'Free text')
  await noteAt(page, 120, 640, 'Check this claim')
  await expect.poll(() => page.locator('.freeTextEditor').count()).toBe(1)

  // By keyboard: find a phrase, highlight the match; place a note and type it.
  await page.keyboard.press('Control+f')
  const box = page.getByRole('searchbox', { name: 'Find in document' })
  await expect.poll(() => box.evaluate((element) => element === document.activeElement)).toBe(true)
  await box.fill('reasoning')
  await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toBe('1 of 1')
  await page.getByRole('button', { name: 'Highlight', exact: true }).focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => page.locator('.highlightEditor').count()).toBe(2)
  await page.getByRole('button', { name: 'Free text' }).focus()
  await page.keyboard.press('Enter')
  await typeIntoNewNote(page, 'Typed from the keyboard')
  await expect.poll(() => page.locator('.freeTextEditor').count()).toBe(2)

  // Autosave publishes about a second after the last change; qpdf reads the result.
  await expect.poll(() => notes(name), { timeout: 20_000 }).toEqual(['Check this claim', 'Typed from the keyboard'])
  await expect.poll(() => count(name, 'Highlight')).toBe(2)
  const highlight = readFileSync(join(root, name), 'latin1')
  expect(highlight).toMatch(/\/Subtype \/Highlight/)

  // pdf.js's own undo and redo still work after publishing (the viewer was never rebuilt), and
  // each step is published too.
  await page.getByRole('button', { name: 'Undo' }).click()
  await expect.poll(() => page.locator('.freeTextEditor').count()).toBe(1)
  await expect.poll(() => notes(name), { timeout: 20_000 }).toEqual(['Check this claim'])
  await page.getByRole('button', { name: 'Redo' }).click()
  await expect.poll(() => page.locator('.freeTextEditor').count()).toBe(2)
  await expect.poll(() => notes(name), { timeout: 20_000 }).toEqual(['Check this claim', 'Typed from the keyboard'])
  await page.screenshot({ path: join(ARTIFACTS, `pdf-annotations-${name}.png`) })

  // Reload: the annotations come back from the file itself.
  await page.reload()
  await expect.poll(() => page.locator('.pdf-scroll .page[data-page-number="1"][data-rendered="true"]').count()).toBe(1)
  const layer = page.locator('.pdf-scroll .page[data-page-number="1"] .annotationLayer')
  await expect.poll(() => layer.locator('.freeTextAnnotation').count()).toBe(2)
  await expect.poll(() => layer.locator('.highlightAnnotation').count()).toBe(2)
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  return page
}

/**
 * Makes every `files.write` of this context fail with `message` (the engine never sees it) until
 * `failing` is set to false: a disk or connection failure as the reader experiences it.
 */
async function failWrites(context: BrowserContext, message: string): Promise<{ failing: boolean }> {
  const control = { failing: true }
  await context.routeWebSocket(/\/api\/ws/, (ws) => {
    const server = ws.connectToServer()
    ws.onMessage((frame) => {
      const text = typeof frame === 'string' ? frame : frame.toString()
      const request = JSON.parse(text) as { request_id?: string; action?: string; owner?: unknown }
      if (control.failing && request.action === 'files.write') {
        ws.send(
          JSON.stringify({
            request_id: request.request_id,
            action: request.action,
            owner: request.owner ?? {},
            status: 'error',
            error: { code: 'INTERNAL', message },
          }),
        )
        return
      }
      server.send(frame)
    })
  })
  return control
}

describe('annotations saved into the PDF', () => {
  test('highlight and free text by mouse and keyboard, undo/redo, autosaved, found by qpdf, back after a reload', async () => {
    const context = await newContext()
    await annotate(context, 'native.pdf')
    // The colour picked is the one written.
    const file = readFileSync(join(root, 'native.pdf'), 'latin1')
    expect(file).toMatch(/\/C \[0\.32\d* 1 0\.73\d*\]/)
    await context.close()
  })

  test('the same session works where toHex and sumPrecise are missing in the page and the worker', async () => {
    const context = await newContext()
    await withoutNewerApis(context)
    const page = await annotate(context, 'compat.pdf')
    expect(await workerSawMissingApis(page)).toEqual(['undefined', 'undefined'])
    // Reading works the same: outline navigation and zoom (find ran inside the session above).
    const pageBox = page.getByRole('textbox', { name: 'Page', exact: true })
    await page.getByRole('button', { name: 'Toggle sidebar' }).click()
    await page.getByTestId('pdf-reader').getByRole('tab', { name: 'Outline' }).click()
    await page.getByRole('tree', { name: 'Outline' }).getByRole('button', { name: '2.1 Data' }).click()
    await expect.poll(() => pageBox.inputValue()).toBe('4')
    await page.getByRole('combobox', { name: 'Zoom' }).selectOption('page-actual')
    const width = () =>
      page
        .locator('.pdf-scroll .page')
        .first()
        .evaluate((element) => element.getBoundingClientRect().width)
    await expect.poll(async () => Math.abs((await width()) - 793.7) < 2).toBe(true)
    await context.close()
  })

  test('a failed publish keeps the editor and its annotations; Retry publishes them', async () => {
    const context = await newContext()
    const writes = await failWrites(context, 'the disk is unavailable (test)')
    const { page } = await openPdf(context, 'failing.pdf')
    await toolOn(page, 'Highlight')
    await dragOver(page, 'second', 'starts')
    const banner = page.getByTestId('save-failed')
    await expect.poll(() => banner.textContent(), { timeout: 20_000 }).toContain('the disk is unavailable (test)')
    expect(await page.locator('.highlightEditor').count()).toBe(1)
    expect(readFileSync(join(root, 'failing.pdf')).equals(original)).toBe(true)
    writes.failing = false
    await banner.getByRole('button', { name: 'Retry' }).click()
    await expect.poll(() => count('failing.pdf', 'Highlight'), { timeout: 20_000 }).toBe(1)
    await expect.poll(() => banner.count()).toBe(0)
    expect(await page.locator('.highlightEditor').count()).toBe(1)
    await context.close()
  })

  test('a publish that keeps failing leaves a durable draft: after a reload the annotation is back and publishes', async () => {
    const context = await newContext()
    const writes = await failWrites(context, 'offline (test)')
    const { page } = await openPdf(context, 'drafted.pdf')
    await toolOn(page, 'Free text')
    await noteAt(page, 120, 640, 'Kept in the draft')
    await expect.poll(() => page.getByTestId('save-failed').count(), { timeout: 20_000 }).toBe(1)
    expect(readFileSync(join(root, 'drafted.pdf')).equals(original)).toBe(true)
    // The tab's dirty dot says the edit is not on disk.
    await expect.poll(() => page.getByTestId('tab-dirty').count()).toBe(1)
    writes.failing = false
    await page.reload()
    // The reader opens the draft's bytes (the note is in them), then autosave publishes them.
    const layer = page.locator('.pdf-scroll .page[data-page-number="1"] .annotationLayer')
    await expect.poll(() => layer.locator('.freeTextAnnotation').count(), { timeout: 20_000 }).toBe(1)
    await expect.poll(() => notes('drafted.pdf'), { timeout: 20_000 }).toEqual(['Kept in the draft'])
    await expect.poll(() => page.getByTestId('tab-dirty').count(), { timeout: 20_000 }).toBe(0)
    await context.close()
  })

  test('the annotations are a version in History; restoring the original gives its bytes back exactly', async () => {
    const context = await newContext()
    const { page } = await openPdf(context, 'history.pdf')
    await toolOn(page, 'Free text')
    await noteAt(page, 120, 640, 'A note to take back')
    await expect.poll(() => notes('history.pdf'), { timeout: 20_000 }).toEqual(['A note to take back'])
    await page.getByTestId('history-toggle').click()
    const versions = page.getByTestId('history-version')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBe(2)
    expect(await versions.nth(1).getAttribute('data-source')).toBe('original')
    await versions.nth(1).click()
    // The version previews in the same reader, read-only.
    await expect
      .poll(() => page.getByTestId('history-preview').locator('.pdf-scroll .page[data-rendered="true"]').count(), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0)
    await page.getByTestId('history-restore').click()
    await expect.poll(() => readFileSync(join(root, 'history.pdf')).equals(original), { timeout: 20_000 }).toBe(true)
    // The reader shows the restored file (no note), and nothing republishes the old annotations.
    const layer = page.locator('.pdf-reader').first().locator('.pdf-scroll .page[data-page-number="1"]')
    await expect.poll(() => layer.locator('.freeTextEditor, .freeTextAnnotation').count(), { timeout: 20_000 }).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 2500))
    expect(readFileSync(join(root, 'history.pdf')).equals(original)).toBe(true)
    await context.close()
  })

  test('a note in a password-protected PDF is saved encrypted: readable with the password only', async () => {
    const context = await newContext()
    const page = await context.newPage()
    await page.goto(`${host.url}&open=locked.pdf`)
    const dialog = page.getByRole('dialog', { name: 'This PDF is protected' })
    await dialog.getByLabel('Password').fill('retrace')
    await dialog.getByRole('button', { name: 'Open', exact: true }).click()
    await expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
    await toolOn(page, 'Free text')
    await noteAt(page, 120, 640, 'Protected note')
    await expect
      .poll(
        () =>
          annotationsOnDisk(join(root, 'locked.pdf'), 'retrace')
            .filter((a) => a.subtype === 'FreeText')
            .map((a) => a.contents),
        { timeout: 20_000 },
      )
      .toEqual(['Protected note'])
    expect(() => annotationsOnDisk(join(root, 'locked.pdf'))).toThrow(/password/)
    expect(readFileSync(join(root, 'locked.pdf'), 'latin1')).not.toContain('Protected note')
    await context.close()
  })

  test('the reader shares the window: the composer keeps its keys and paste; another tab and back keeps the place and the undo stack', async () => {
    const context = await workspace.newContext({
      viewport: { width: 1440, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    })
    const { page, watch } = await openPdf(context, 'shared.pdf')
    await toolOn(page, 'Highlight')
    await dragOver(page, 'second', 'starts')
    await expect.poll(() => page.locator('.highlightEditor').count()).toBe(1)
    await expect.poll(() => count('shared.pdf', 'Highlight'), { timeout: 20_000 }).toBe(1)

    // With the tool still on, the chat composer's Backspace, Ctrl+A, paste and Ctrl+Z are the
    // composer's: pdf.js's editing shortcuts never delete, select or undo the highlight from there.
    if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
    const composer = page.getByTestId('composer-input')
    await composer.click()
    await page.keyboard.type('hello')
    await page.keyboard.press('Backspace')
    expect(await composer.inputValue()).toBe('hell')
    await page.evaluate(() => navigator.clipboard.writeText('Summarise page 3'))
    await page.keyboard.press('Control+a')
    await page.keyboard.press('Control+v')
    await expect.poll(() => composer.inputValue()).toBe('Summarise page 3')
    await page.keyboard.press('Control+z')
    expect(await page.locator('.highlightEditor').count()).toBe(1)
    expect(await page.getByRole('button', { name: 'Redo' }).isDisabled()).toBe(true)
    // A click on the chat's plain text leaves the focus on the page's body: keys are still not the reader's.
    await page.getByTestId('transcript').click({ position: { x: 20, y: 20 } })
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true)
    await page.keyboard.press('Delete')
    await page.keyboard.press('Backspace')
    expect(await page.locator('.highlightEditor').count()).toBe(1)
    // A picture dropped on the composer or on the page is no stamp in the PDF (no such tool here).
    for (const target of ['[data-testid="composer-input"]', '.pdf-scroll .page[data-page-number="1"]']) {
      await page.evaluate((selector) => {
        const base64 =
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
        const png = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))
        const transfer = new DataTransfer()
        transfer.items.add(new File([png], 'dropped.png', { type: 'image/png' }))
        document
          .querySelector(selector)
          ?.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }))
      }, target)
    }
    await page.waitForTimeout(500)
    expect(await page.locator('.stampEditor').count()).toBe(0)

    // To page 3, another tab, and back: the same reader, on page 3, with its highlight undoable.
    await page.getByRole('textbox', { name: 'Page', exact: true }).fill('3')
    await page.getByRole('textbox', { name: 'Page', exact: true }).press('Enter')
    await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('notes.txt')
    await page.locator('[data-testid="tab-file"][data-path="shared.pdf"]').click()
    await expect.poll(() => page.getByRole('textbox', { name: 'Page', exact: true }).inputValue()).toBe('3')
    await expect
      .poll(() => page.locator('.pdf-scroll .page[data-page-number="3"] canvas[data-rendered="true"]').count())
      .toBe(1)
    await page.getByRole('button', { name: 'Undo' }).click()
    await expect.poll(() => page.locator('.highlightEditor').count()).toBe(0)
    await expect.poll(() => count('shared.pdf', 'Highlight'), { timeout: 20_000 }).toBe(0)
    await page.screenshot({ path: join(ARTIFACTS, 'pdf-annotations-shared.png') })
    expect(watch.consoleErrors).toEqual([])
    await context.close()
  })

  test('closing the tab right after an edit publishes it first', async () => {
    const context = await newContext()
    const { page } = await openPdf(context, 'closing.pdf')
    await toolOn(page, 'Free text')
    await noteAt(page, 120, 640, 'Written just before closing')
    await page.getByTestId('tab-file').click({ button: 'middle' })
    await expect.poll(() => notes('closing.pdf'), { timeout: 20_000 }).toEqual(['Written just before closing'])
    await context.close()
  })

  test('a change on disk under unpublished annotations shows the conflict; overwriting publishes mine', async () => {
    const context = await newContext()
    const writes = await failWrites(context, 'offline (test)')
    const { page } = await openPdf(context, 'conflict.pdf')
    await toolOn(page, 'Highlight')
    await dragOver(page, 'second', 'starts')
    await expect.poll(() => page.getByTestId('save-failed').count(), { timeout: 20_000 }).toBe(1)
    // Someone else rewrites the file while the highlight is unpublished.
    const theirs = paperPdf()
    writeFileSync(join(root, 'conflict.pdf'), theirs)
    const banner = page.getByTestId('save-conflict')
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(1)
    expect(await banner.textContent()).toContain('The file was changed by another operation')
    expect(await page.locator('.highlightEditor').count()).toBe(1)
    expect(readFileSync(join(root, 'conflict.pdf')).equals(theirs)).toBe(true)
    writes.failing = false
    await banner.getByRole('button', { name: 'Overwrite with mine' }).click()
    await expect.poll(() => count('conflict.pdf', 'Highlight'), { timeout: 20_000 }).toBe(1)
    await expect.poll(() => banner.count()).toBe(0)
    await context.close()
  })
})
