import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { craftedDocx, deflatedRepeat, EMPTY_PARAGRAPHS, MiB, paragraphUnit } from '../test/support/office-bombs'
import { watchPage, type PageWatch } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * Crafted Office packages in the document view (issue 23): the engine answers `office.inspect`
 * with TOO_LARGE, and the view says which bound the file crossed — it never falls back to the
 * built-in DOCX editor, which would unzip the file in the renderer outside any bound.
 */

const originals = new Map<string, Buffer>()

const workspace = useWorkspace({
  name: 'office-refusals',
  files: async ({ project }) => {
    const put = (name: string, bytes: Buffer) => {
      writeFileSync(join(project, name), bytes)
      originals.set(name, bytes)
    }
    // A header part that honestly inflates to 70 MiB (~150:1): past the 64 MiB part bound.
    put('huge-header.docx', craftedDocx(null, [await deflatedRepeat(paragraphUnit(), 70 * MiB)]))
    // A document part of empty paragraphs at about 1000:1.
    put(
      'dense.docx',
      craftedDocx({ name: 'word/document.xml', deflated: await deflatedRepeat(EMPTY_PARAGRAPHS, 48 * MiB) }, []),
    )
  },
  setupTimeout: 120_000,
})
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project: root, host } = workspace)
})

/** The file's tab, with every script the page loads recorded (the DOCX editor is its own chunk). */
async function open(path: string, locale = 'en-US'): Promise<{ page: Page; watch: PageWatch; scripts: string[] }> {
  const context = await workspace.newContext({ viewport: { width: 1280, height: 860 }, locale })
  const page = await context.newPage()
  const watch = await watchPage(page)
  const scripts: string[] = []
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname)
  })
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  return { page, watch, scripts }
}

const sameAsOriginal = (name: string) => readFileSync(join(root, name)).equals(originals.get(name) ?? Buffer.alloc(0))

describe('an Office package the engine refuses as TOO_LARGE', () => {
  test('a part past 64 MiB: the pane names the part and the bound, loads no editor, writes nothing', async () => {
    const { page, watch, scripts } = await open('huge-header.docx')
    const refused = page.getByTestId('office-too-large')
    await expect.poll(() => refused.count(), { timeout: 30_000 }).toBe(1)
    expect(await refused.getByRole('heading', { name: 'This document is too large to open safely' }).count()).toBe(1)
    expect(await refused.textContent()).toContain('Its part word/header1.xml inflates past 64 MiB.')
    expect(await refused.textContent()).toContain('No editor was opened and nothing was changed')
    expect(await refused.getByRole('button', { name: 'Download' }).count()).toBe(1)
    // No engine opened it: no DOCX editor element, no editor chunk fetched, no view modes offered.
    expect(await page.getByTestId('office-docx').count()).toBe(0)
    expect(scripts.filter((path) => /DocxView/i.test(path))).toEqual([])
    expect(await page.getByRole('radio', { name: /Built-in/ }).count()).toBe(0)
    // Given time to do anything it would do, the tab wrote nothing.
    await page.waitForTimeout(1500)
    expect(sameAsOriginal('huge-header.docx')).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    expect(await watch.cspViolations()).toEqual([])
    await page.context().close()
  })

  test('a 1000:1 part: the pane says so, in Chinese too', async () => {
    const { page, watch, scripts } = await open('dense.docx', 'zh-CN')
    const refused = page.getByTestId('office-too-large')
    await expect.poll(() => refused.count(), { timeout: 30_000 }).toBe(1)
    expect(await refused.getByRole('heading', { name: '此文档过大，无法安全打开' }).count()).toBe(1)
    expect(await refused.textContent()).toContain('压缩比超过 200:1')
    expect(await page.getByTestId('office-docx').count()).toBe(0)
    expect(scripts.filter((path) => /DocxView/i.test(path))).toEqual([])
    expect(sameAsOriginal('dense.docx')).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await page.context().close()
  })
})
