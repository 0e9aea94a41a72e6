import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { makeDocx, unzipParts } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import { patternPixel, png } from './support/image-fixtures'
import { paperPdf } from './support/pdf-fixtures'
import { annotationsOnDisk } from './support/pdf-page'
import { useWorkspace } from './support/workspace'

/**
 * File History groups a person's saves by editing session for every editor, as it does for text
 * (spec 08): two edits a few seconds apart in one open tab are one version, "2 saves"; opening the
 * file again starts a new version. Here for a PDF's annotations, an image edit and a DOCX edit.
 */

const workspace = useWorkspace({
  name: 'sessions',
  viewport: { width: 1440, height: 900 },
  files: async ({ project }) => {
    writeFileSync(join(project, 'paper.pdf'), paperPdf())
    writeFileSync(join(project, 'photo.png'), png(200, 100, patternPixel))
    writeFileSync(
      join(project, 'memo.docx'),
      await makeDocx('<w:p><w:r><w:t xml:space="preserve">A memo.</w:t></w:r></w:p>'),
    )
    writeFileSync(join(project, 'notes.txt'), 'notes\n')
  },
})

const onDisk = (name: string) => readFileSync(join(workspace.project, name))

async function openTab(page: Page, path: string) {
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'), {
      timeout: 20_000,
    })
    .toBe(path)
}

/** Waits until the file on disk differs from `before` (the autosave published). */
async function published(name: string, before: Buffer) {
  await expect.poll(() => onDisk(name).equals(before), { timeout: 20_000 }).toBe(false)
}

/** The person's edit versions in the File History panel, newest first: their "N saves" counts. */
async function editVersions(page: Page): Promise<number[]> {
  const toggle = page.getByTestId('history-toggle')
  if ((await toggle.getAttribute('aria-pressed')) === 'true') await toggle.click()
  await toggle.click()
  await expect.poll(() => page.getByTestId('history-list').count(), { timeout: 10_000 }).toBe(1)
  const items = page.locator('[data-testid="history-version"][data-actor="user"][data-source="edit"]')
  const texts = await items.allTextContents()
  await toggle.click()
  // Labelled as a person reads it (issue 25): "You edited — 2 saves", or "You edited" for one save.
  return texts.map((text) => {
    const label = /You edited(?: — (\d+) saves)?/.exec(text)
    if (!label) throw new Error(`not labelled as the person's edit: ${text}`)
    return Number(label[1] ?? 1)
  })
}

/** Two edits a few seconds apart, each published; then the file opened again and edited once more. */
async function twoSessions(
  path: string,
  ready: (page: Page) => Promise<void>,
  edit: (page: Page, n: number) => Promise<void>,
) {
  const context = await workspace.newContext()
  const page = await context.newPage()
  const watch = await watchPage(page)
  await openTab(page, path)
  await ready(page)
  for (const n of [1, 2]) {
    const before = onDisk(path)
    await edit(page, n)
    await published(path, before)
    // A few seconds apart: two publishes, not one merged save.
    await page.waitForTimeout(1500)
  }
  expect(await editVersions(page)).toEqual([2])

  // Opened again (a reload): a new editing session, so a new version.
  await openTab(page, path)
  await ready(page)
  const before = onDisk(path)
  await edit(page, 3)
  await published(path, before)
  await expect.poll(() => editVersions(page), { timeout: 10_000 }).toEqual([1, 2])
  expect(watch.consoleErrors).toEqual([])
  await context.close()
}

describe('File History groups every editor’s saves by editing session', () => {
  test('PDF annotations: two highlights in one visit are one version of 2 saves; a reopen starts another', async () => {
    await twoSessions(
      'paper.pdf',
      async (page) => {
        await expect
          .poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count(), { timeout: 30_000 })
          .toBeGreaterThan(0)
      },
      async (page, n) => {
        await page.keyboard.press('Control+f')
        const box = page.getByRole('searchbox', { name: 'Find in document' })
        await box.fill(['second', 'reasoning', 'starts'][n - 1] ?? 'second')
        await expect.poll(() => page.getByTestId('pdf-match-count').textContent()).toMatch(/^1 of \d+$/)
        await page.getByRole('button', { name: 'Highlight', exact: true }).focus()
        await page.keyboard.press('Enter')
        await expect
          .poll(() => annotationsOnDisk(join(workspace.project, 'paper.pdf')).filter((a) => a.subtype === 'Highlight').length, {
            timeout: 20_000,
          })
          .toBe(n)
      },
    )
  }, 120_000)

  test('an image: two rotations in one visit are one version of 2 saves; a reopen starts another', async () => {
    const tool = (page: Page, name: string) =>
      page.getByRole('toolbar', { name: 'Image tools' }).getByRole('button', { name, exact: true })
    await twoSessions(
      'photo.png',
      (page) =>
        expect
          .poll(() => page.getByTestId('image-editor').getAttribute('data-ready'), { timeout: 20_000 })
          .toBe('true'),
      async (page) => {
        await tool(page, 'Rotate right').click()
      },
    )
  }, 120_000)

  test('a DOCX: two edits in one visit are one version of 2 saves; a reopen starts another', async () => {
    const documentXml = async () => (await unzipParts(onDisk('memo.docx'))).get('word/document.xml')?.toString() ?? ''
    await twoSessions(
      'memo.docx',
      async (page) => {
        await expect
          .poll(() => page.getByTestId('office-docx').getByText('A memo', { exact: false }).count(), {
            timeout: 30_000,
          })
          .toBeGreaterThan(0)
        const cancel = page
          .getByRole('dialog', { name: 'Install the full Office editor?' })
          .getByRole('button', { name: 'Cancel' })
        if (await cancel.count()) await cancel.click()
      },
      async (page, n) => {
        await page.getByTestId('office-docx').getByText('A memo', { exact: false }).first().click()
        await page.keyboard.press('End')
        await page.keyboard.type(` Edit ${n}.`)
        await expect.poll(documentXml, { timeout: 20_000 }).toContain(`Edit ${n}.`)
      },
    )
  }, 120_000)
})
