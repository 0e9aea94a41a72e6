import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import { tinyPdf, tinyPng } from './support/fixture'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const workspace = useWorkspace({
  name: 'review',
  files: { 'report.pdf': tinyPdf('Before'), 'pixel.png': tinyPng() },
  git: true,
  uncommitted: {
    'report.pdf': tinyPdf('After change'),
    'pixel.png': Buffer.concat([tinyPng(), Buffer.from([0])]),
  },
})
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

test('Workspace review shows a changed PDF and image as before/after previews', async () => {
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
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
