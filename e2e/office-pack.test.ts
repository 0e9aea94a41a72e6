import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startBundleServer, type BundleServer } from '../test/support/bundle-fixtures'
import { makeDocx } from '../test/support/office-fixtures'
import { fakePack, integrityOf } from '../test/support/pack-fixtures'
import { watchPage, type PageWatch } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * The LibreOffice WebAssembly pack offer in real Chromium against browser mode, on a "machine"
 * without LibreOffice (RETRACE_SOFFICE names nothing): the Office view explains the download and
 * installs only on Install; the pack (a stand-in with the registry tarball's layout, from a
 * loopback mirror) then gives the document its pages through the worker process.
 */
let mirror: BundleServer
const packPin = (work: string) => join(work, 'office-pack.json')

const workspace = useWorkspace({
  name: 'office-pack',
  files: async ({ work, project }) => {
    writeFileSync(
      join(project, 'letter.docx'),
      await makeDocx('<w:p><w:r><w:t>A letter for the pack</w:t></w:r></w:p>'),
    )
    mirror = await startBundleServer()
    const archive = fakePack('@matbee/libreoffice-converter', '2.7.2')
    mirror.serve('pack.tgz', archive)
    writeFileSync(
      packPin(work),
      JSON.stringify({
        name: '@matbee/libreoffice-converter',
        version: '2.7.2',
        url: mirror.url('pack.tgz'),
        size: archive.length,
        unpacked_size: 253_734_760,
        integrity: integrityOf(archive),
        licence: 'MPL-2.0',
        source: 'https://example.invalid/source',
      }),
    )
  },
  hostEnv: ({ work }) => ({
    RETRACE_SOFFICE: join(work, 'no-libreoffice-here'),
    RETRACE_OFFICE_PACK: packPin(work),
    RETRACE_OFFICE_BUNDLE: join(work, 'no-bundle.json'),
  }),
  setupTimeout: 120_000,
})
let host: RunningWebHost
let dataDir: string
beforeAll(() => {
  ;({ host, dataDir } = workspace)
})
afterAll(async () => {
  await mirror?.close()
})

async function open(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  await expect.poll(() => page.getByTestId('office-engines').count(), { timeout: 30_000 }).toBe(1)
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  await page.context().close()
}

describe('LibreOffice WebAssembly pack offer', () => {
  test('without LibreOffice the view explains the pack; Not now closes it and installs nothing', async () => {
    const { page, watch } = await open('letter.docx')
    const offer = page.getByRole('dialog', { name: 'Show faithful pages without LibreOffice?' })
    await expect.poll(() => offer.count(), { timeout: 20_000 }).toBe(1)
    const text = (await offer.textContent()) ?? ''
    expect(text).toContain('MPL-2.0')
    expect(text).toContain('never uploaded')
    expect(text).toMatch(/a [\d.]+ (B|KiB) download, about 242 MiB on disk/)
    // Keyboard path: the buttons are plain focusable buttons; Enter on Not now closes the offer.
    await offer.getByRole('button', { name: 'Not now' }).focus()
    await page.keyboard.press('Enter')
    expect(await offer.count()).toBe(0)
    expect(mirror.hits.get('pack.tgz') ?? 0).toBe(0)
    expect(await page.getByRole('radio', { name: 'Pages (LibreOffice)' }).count()).toBe(0)
    await close(page, watch)
  })

  test('Install downloads and installs the pack; the document then has pages from it', async () => {
    const { page, watch } = await open('letter.docx')
    const offer = page.getByRole('dialog', { name: 'Show faithful pages without LibreOffice?' })
    await expect.poll(() => offer.count(), { timeout: 20_000 }).toBe(1)
    await offer.getByRole('button', { name: 'Install' }).click()
    await expect.poll(() => offer.count(), { timeout: 30_000 }).toBe(0)
    expect(mirror.hits.get('pack.tgz')).toBe(1)
    expect(readdirSync(join(dataDir, 'office', 'pack'))).toContain('2.7.2')
    const pages = page.getByRole('radio', { name: 'Pages (LibreOffice)' })
    await expect.poll(() => pages.count(), { timeout: 20_000 }).toBe(1)
    await pages.click()
    const reader = page.getByTestId('pdf-reader')
    await expect.poll(() => reader.count(), { timeout: 60_000 }).toBe(1)
    await expect.poll(() => reader.getByText('of 1', { exact: true }).count(), { timeout: 60_000 }).toBe(1)
    await expect.poll(() => page.locator('.pdf-scroll .page[data-rendered="true"]').count()).toBeGreaterThan(0)
    await close(page, watch)
  })
})
