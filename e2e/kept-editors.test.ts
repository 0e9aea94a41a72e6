import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { decode as decodePng } from 'fast-png'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { makeDocx, unzipParts } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import { png } from './support/image-fixtures'
import { paperPdf } from './support/pdf-fixtures'
import { useWorkspace } from './support/workspace'

/**
 * Editors kept alive across tab switches (the DOCX editor, the PDF reader) and the text editor,
 * while another tab is shown: nothing a person does elsewhere — Tab through the window from the
 * chat composer, typing — may reach them. The bytes on disk stay exactly as they were after the
 * autosave window, and the focus never lands in the hidden document.
 */

/** What each file holds once the person's own edit (before leaving the tab) was published. */
const published = new Map<string, Buffer>()

const workspace = useWorkspace({
  name: 'kept',
  viewport: { width: 1440, height: 900 },
  files: async ({ project }) => {
    const files: Record<string, Uint8Array | string> = {
      'letter.docx': await makeDocx(
        '<w:p><w:r><w:t xml:space="preserve">A letter that nobody is editing.</w:t></w:r></w:p>',
      ),
      'paper.pdf': paperPdf(),
      'draft.txt': 'A text nobody is editing.\n',
      'notes.txt': 'Somewhere else\n',
      'photo.png': png(120, 80, (x, y) => [(x * 2) % 256, (y * 3) % 256, 128, 255]),
    }
    for (const [name, content] of Object.entries(files)) {
      writeFileSync(join(project, name), content)
      published.set(name, readFileSync(join(project, name)))
    }
  },
})

const onDisk = (name: string) => readFileSync(join(workspace.project, name))
const unchanged = (name: string) => onDisk(name).equals(published.get(name) ?? Buffer.alloc(0))
/** Waits until the person's edit reached the disk, and remembers those bytes. */
async function publishedEdit(name: string, contains: string) {
  await expect.poll(() => onDisk(name).toString('latin1').includes(contains), { timeout: 20_000 }).toBe(true)
  published.set(name, onDisk(name))
}

/** Where the focus is, as a path of classes and test ids (for a readable failure). */
function focusTrail(page: Page) {
  return page.evaluate(() => {
    const trail: string[] = []
    for (let node = document.activeElement; node && node !== document.body; node = node.parentElement) {
      trail.push(`${node.tagName.toLowerCase()}${node.className ? `.${String(node.className).split(' ')[0]}` : ''}`)
    }
    return trail.join(' < ') || 'body'
  })
}

/**
 * Opens `path`, waits for its view, then shows notes.txt instead (the first tab is kept hidden),
 * and walks the window with Tab from the chat composer, typing at every stop.
 */
async function tabThroughWithHidden(path: string, ready: (page: Page) => Promise<void>, inside: string) {
  const context = await workspace.newContext()
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  await ready(page)
  await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
    .toBe('notes.txt')
  await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 20_000 }).toBe(1)

  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').click()
  const stops: string[] = []
  for (let step = 0; step < 60; step++) {
    await page.keyboard.press('Tab')
    const trail = await focusTrail(page)
    stops.push(trail)
    const where = await page.evaluate(
      (selector) => ({
        hidden: document.activeElement?.closest(selector) != null,
        visibleEditor: document.activeElement?.closest('.monaco-editor') != null,
      }),
      inside,
    )
    expect(where.hidden, `Tab ${step + 1} reached the hidden document: ${trail}`).toBe(false)
    // Typing wherever the focus is must not reach the hidden document either. (In the shown text
    // editor Tab indents instead of moving on, so the walk ends there.)
    if (where.visibleEditor) break
    await page.keyboard.type('x')
  }
  // The autosave window (about a second) passes several times over.
  await page.waitForTimeout(3000)
  expect(stops.length).toBeGreaterThan(3)
  expect(watch.consoleErrors).toEqual([])
  await context.close()
}

describe('a hidden tab’s editor is inert', () => {
  test('a hidden DOCX editor never takes the focus or typing from the rest of the window', async () => {
    await tabThroughWithHidden(
      'letter.docx',
      async (page) => {
        const cancel = page
          .getByRole('dialog', { name: 'Install the full Office editor?' })
          .getByRole('button', { name: 'Cancel' })
        await expect
          .poll(() => page.getByTestId('office-docx').getByText('A letter that nobody', { exact: false }).count(), {
            timeout: 30_000,
          })
          .toBeGreaterThan(0)
        if (await cancel.count()) await cancel.click()
        // An edit first: from then on the editor publishes whatever it is given (the bug saved the
        // hidden typing with the next edit).
        await page.getByTestId('office-docx').getByText('A letter that nobody', { exact: false }).first().click()
        await page.keyboard.press('End')
        await page.keyboard.type(' Signed.')
        await expect
          .poll(async () => (await unzipParts(onDisk('letter.docx'))).get('word/document.xml')?.toString() ?? '', {
            timeout: 20_000,
          })
          .toContain('Signed.')
        published.set('letter.docx', onDisk('letter.docx'))
      },
      // The editor's own input surface lives outside its view (a portal into the body).
      '[data-testid="office-view"], .paged-editor__hidden-pm, [contenteditable="true"]:not([data-testid="composer-input"])',
    )
    expect(unchanged('letter.docx')).toBe(true)
  }, 120_000)

  test('a hidden PDF reader never takes the focus or typing from the rest of the window', async () => {
    await tabThroughWithHidden(
      'paper.pdf',
      async (page) => {
        await expect
          .poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count(), { timeout: 30_000 })
          .toBeGreaterThan(0)
      },
      'section.viewer[aria-label="paper.pdf"], [data-testid="pdf-view"], .pdf-scroll',
    )
    expect(unchanged('paper.pdf')).toBe(true)
  }, 120_000)

  test('a hidden text editor never takes the focus or typing from the rest of the window', async () => {
    await tabThroughWithHidden(
      'draft.txt',
      async (page) => {
        await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 20_000 }).toBe(1)
        await page.locator('.monaco-editor').click()
        await page.keyboard.press('Control+End')
        await page.keyboard.type('Signed.')
        await publishedEdit('draft.txt', 'Signed.')
      },
      'section.viewer[aria-label="draft.txt"]',
    )
    expect(unchanged('draft.txt')).toBe(true)
  }, 120_000)
})

describe('a kept editor comes back as it was left', () => {
  test('an edited image is back at once, undo history and all, while the engine has not answered its re-read', async () => {
    const context = await workspace.newContext()
    // Holds the tab's re-read of photo.png (the engine slow to answer, a busy machine) until released.
    const control = { holding: false }
    const held: Array<() => void> = []
    await context.routeWebSocket(/\/api\/ws/, (ws) => {
      const server = ws.connectToServer()
      ws.onMessage((frame) => {
        const text = typeof frame === 'string' ? frame : frame.toString()
        const request = JSON.parse(text) as { action?: string; payload?: { path?: unknown } }
        if (control.holding && request.action === 'files.read' && request.payload?.path === 'photo.png')
          held.push(() => server.send(frame))
        else server.send(frame)
      })
    })
    const page = await context.newPage()
    const watch = await watchPage(page)
    await page.goto(`${workspace.host.url}&open=photo.png`)
    const editor = page.getByTestId('image-editor')
    const tool = (name: string) =>
      page.getByRole('toolbar', { name: 'Image tools' }).getByRole('button', { name, exact: true })
    await expect.poll(() => editor.getAttribute('data-ready'), { timeout: 20_000 }).toBe('true')
    await tool('Rotate right').click()
    await expect.poll(() => unchanged('photo.png'), { timeout: 20_000 }).toBe(false)
    const rotated = decodePng(onDisk('photo.png'))
    expect([rotated.width, rotated.height]).toEqual([80, 120])
    await expect.poll(() => page.getByTestId('image-size').textContent()).toBe('80 × 120 px')

    await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('notes.txt')
    control.holding = true
    await page.locator('[data-testid="tab-file"][data-path="photo.png"]').click()
    // The tab asked the engine again and has no answer yet — and the editor is there, as it was left.
    await expect.poll(() => held.length).toBeGreaterThan(0)
    await expect.poll(() => editor.getAttribute('data-ready')).toBe('true')
    expect(await page.getByTestId('image-size').textContent()).toBe('80 × 120 px')
    expect(await tool('Undo').isEnabled()).toBe(true)

    // The answer names the editor's own publish: nothing is reloaded, the history stays.
    control.holding = false
    for (const send of held.splice(0)) send()
    await tool('Undo').click()
    await expect.poll(() => page.getByTestId('image-size').textContent()).toBe('120 × 80 px')
    // Every edit undone: the file's own bytes go back, never a re-encoding.
    await expect.poll(() => unchanged('photo.png'), { timeout: 20_000 }).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await context.close()
  }, 120_000)
})
