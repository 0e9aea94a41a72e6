import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import { layeredPsd, patternPixel, png, twoPageTiff, wav } from './support/image-fixtures'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * Review's before/after of images, PSD, TIFF, SVG and audio, through the same adapters as a tab,
 * read-only; bitmaps also swipe and onion-skin.
 */
const workspace = useWorkspace({
  name: 'images-review',
  files: {
    'pic.png': png(80, 60, patternPixel),
    'art.psd': layeredPsd(),
    'scan.tif': twoPageTiff(),
    'logo.svg':
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="red"/></svg>',
    'tone.wav': wav(),
  },
  git: true,
  uncommitted: {
    'pic.png': png(80, 60, (x, y) => (x < 40 ? [0, 0, 0, 255] : patternPixel(x, y))),
    'art.psd': layeredPsd({ size: 60 }),
    'scan.tif': Buffer.concat([twoPageTiff(), Buffer.alloc(4)]),
    'logo.svg':
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="blue"/></svg>',
    'tone.wav': Buffer.concat([wav(), Buffer.alloc(2)]),
  },
})
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

const side = (page: Page, which: 'before' | 'after') => page.getByTestId(`review-preview-${which}`)

test('Review shows before/after of a PNG (side by side, swipe, onion skin), PSD, TIFF, SVG and WAV', async () => {
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await page.getByRole('button', { name: 'Open Review' }).click()
  const open = (path: string) => page.locator(`[data-testid="review-file"][data-path="${path}"]`).click()
  await expect.poll(() => page.getByTestId('review-file').count(), { timeout: 15_000 }).toBe(5)

  await open('pic.png')
  for (const which of ['before', 'after'] as const) {
    await expect.poll(() => side(page, which).locator('img[data-rendered="true"]').count(), { timeout: 15_000 }).toBe(1)
  }
  // Read-only: no editor tools in a review.
  expect(await page.getByRole('button', { name: 'Crop', exact: true }).count()).toBe(0)
  await page.getByRole('radio', { name: 'Swipe' }).click()
  const after = page.getByTestId('review-overlay').locator('img').nth(1)
  expect(await after.evaluate((img) => (img as HTMLElement).style.clipPath)).toBe('inset(0px 50% 0px 0px)')
  await page.getByRole('slider', { name: 'Before/after position' }).fill('80')
  expect(await after.evaluate((img) => (img as HTMLElement).style.clipPath)).toBe('inset(0px 20% 0px 0px)')
  await page.getByRole('radio', { name: 'Onion skin' }).click()
  expect(await after.evaluate((img) => (img as HTMLElement).style.opacity)).toBe('0.8')
  await page.getByRole('radio', { name: 'Side by side' }).click()

  await open('art.psd')
  for (const which of ['before', 'after'] as const) {
    await expect
      .poll(() => side(page, which).getByTestId('psd-canvas').getAttribute('data-rendered'), { timeout: 15_000 })
      .toBe('1')
  }
  expect(
    await side(page, 'before')
      .getByTestId('psd-canvas')
      .evaluate((c) => (c as HTMLCanvasElement).width),
  ).toBe(120)
  expect(
    await side(page, 'after')
      .getByTestId('psd-canvas')
      .evaluate((c) => (c as HTMLCanvasElement).width),
  ).toBe(60)

  await open('scan.tif')
  for (const which of ['before', 'after'] as const) {
    await expect
      .poll(() => side(page, which).getByTestId('tiff-canvas').getAttribute('data-rendered'), { timeout: 15_000 })
      .toBe('1')
  }

  await open('logo.svg')
  for (const which of ['before', 'after'] as const) {
    await expect.poll(() => side(page, which).locator('img[data-rendered="true"]').count(), { timeout: 15_000 }).toBe(1)
  }

  await open('tone.wav')
  for (const which of ['before', 'after'] as const) {
    await expect.poll(() => side(page, which).locator('audio').count(), { timeout: 15_000 }).toBe(1)
  }
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-images-review.png') })
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
