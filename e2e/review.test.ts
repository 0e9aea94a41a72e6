import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { launchChromium, watchPage } from './support/browser'
import { tinyPdf, tinyPng } from './support/fixture'
import { commitAll } from './support/project'
import { startWebHost, type RunningWebHost } from './support/web-host'

let work: string
let host: RunningWebHost
let browser: Browser

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'retrace-e2e-review-'))
  const root = join(work, 'project')
  mkdirSync(root)
  writeFileSync(join(root, 'report.pdf'), tinyPdf('Before'))
  writeFileSync(join(root, 'pixel.png'), tinyPng())
  commitAll(root)
  writeFileSync(join(root, 'report.pdf'), tinyPdf('After change'))
  writeFileSync(join(root, 'pixel.png'), Buffer.concat([tinyPng(), Buffer.from([0])]))
  host = await startWebHost(root, join(work, 'data'))
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await host?.stop()
  rmSync(work, { recursive: true, force: true })
})

test('Workspace review shows a changed PDF and image as before/after previews', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'en-US' })
  const watch = await watchPage(page)
  await page.goto(host.url)
  // No session needed: the git workspace belongs to the project, and Review opens on it.
  await page.getByRole('button', { name: 'Open Review' }).click()
  expect(await page.getByTestId('review-scope-workspace').getAttribute('aria-selected')).toBe('true')
  const files = page.getByTestId('review-file')
  await expect.poll(() => files.count()).toBe(2)

  await page.locator('[data-testid="review-file"][data-path="report.pdf"]').click()
  const pdfs = page.locator('[data-testid="pdf-page"][data-rendered="true"]')
  await expect.poll(() => pdfs.count(), { timeout: 15_000 }).toBe(2)
  // Both pages were really drawn: each canvas has dark (text) pixels.
  const inked = await pdfs.evaluateAll((canvases) =>
    canvases.map((canvas) => {
      const c = canvas as HTMLCanvasElement
      const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray()
      let dark = 0
      for (let i = 0; i < data.length; i += 4) if ((data[i] ?? 255) < 100) dark++
      return dark
    }),
  )
  expect(inked.every((n) => n > 20)).toBe(true)

  await page.locator('[data-testid="review-file"][data-path="pixel.png"]').click()
  await expect.poll(() => page.locator('[data-testid="review-preview-after"] img').count()).toBe(1)
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-review-preview.png') })
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
