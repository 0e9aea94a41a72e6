import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { watchPage, type PageWatch } from './support/browser'
import { patternPixel, png } from './support/image-fixtures'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/** An SVG (always preview-only) far larger than the pane, so a fit shows it below 100 %. */
const BIG_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1600" viewBox="0 0 2400 1600">' +
  '<rect width="2400" height="1600" fill="#2563eb"/><rect width="1200" height="800" fill="#f59e0b"/></svg>'

const workspace = useWorkspace({
  name: 'image-zoom',
  files: {
    'big.svg': BIG_SVG,
    // Editable (PNG, under every limit) and larger than the pane.
    'photo.png': png(1600, 1200, patternPixel),
  },
})

async function openFile(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const page = await (await workspace.newContext()).newPage()
  const watch = await watchPage(page)
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  await page.context().close()
}

const level = (page: Page) => page.getByTestId('image-zoom-level').textContent()
const percent = async (page: Page) => Number((await level(page))?.replace('%', ''))
const cssWidth = (locator: Locator) => locator.evaluate((element) => Math.round(element.getBoundingClientRect().width))

/** Ctrl+wheel over `target`; whether every wheel event's default (the window's zoom) was cancelled. */
async function ctrlWheel(page: Page, target: Locator, deltaY: number): Promise<boolean> {
  await page.evaluate(() => {
    const seen: boolean[] = []
    ;(window as unknown as { wheelCancelled: boolean[] }).wheelCancelled = seen
    window.addEventListener('wheel', (event) => seen.push(event.defaultPrevented), { passive: true })
  })
  const box = await target.boundingBox()
  if (!box) throw new Error('nothing on screen to wheel over')
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await page.keyboard.down('Control')
  await page.mouse.wheel(0, deltaY)
  await page.keyboard.up('Control')
  const seen = await page.evaluate(() => (window as unknown as { wheelCancelled: boolean[] }).wheelCancelled)
  return seen.length > 0 && seen.every(Boolean)
}

describe('zooming images', () => {
  test('the viewer: fit, 100 % at the natural size, zoom in and out, Ctrl+wheel and the keys', async () => {
    const { page, watch } = await openFile('big.svg')
    const image = page.getByTestId('image-preview').getByTestId('image-view')
    await expect.poll(() => image.getAttribute('data-rendered'), { timeout: 20_000 }).toBe('true')
    const tools = page.getByRole('group', { name: 'Zoom' })
    for (const name of ['Zoom out', 'Zoom in', 'Fit', 'Actual size (100%)']) {
      expect(await tools.getByRole('button', { name, exact: true }).count(), name).toBe(1)
    }
    // Fitted: smaller than its 2400 px, and the level says by how much.
    await expect.poll(() => percent(page)).toBeLessThan(100)
    const fit = await percent(page)
    const fitWidth = await cssWidth(image)
    expect(Math.abs(fitWidth - 2400 * (fit / 100))).toBeLessThan(2400 * 0.006)
    expect(await tools.getByRole('button', { name: 'Fit' }).getAttribute('aria-pressed')).toBe('true')

    await tools.getByRole('button', { name: 'Actual size (100%)' }).click()
    await expect.poll(() => cssWidth(image)).toBe(2400)
    expect(await level(page)).toBe('100%')
    const view = page.locator('.image-preview .image-view')
    expect(await view.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)

    await tools.getByRole('button', { name: 'Zoom in' }).click()
    await expect.poll(() => level(page)).toBe('150%')
    expect(await cssWidth(image)).toBe(3600)
    await tools.getByRole('button', { name: 'Zoom out' }).click()
    await tools.getByRole('button', { name: 'Zoom out' }).click()
    await expect.poll(() => level(page)).toBe('75%')
    expect(await cssWidth(image)).toBe(1800)
    await tools.getByRole('button', { name: 'Fit' }).click()
    await expect.poll(() => cssWidth(image)).toBe(fitWidth)
    await expect.poll(() => percent(page)).toBe(fit)

    // Ctrl+wheel zooms the image, not the window.
    expect(await ctrlWheel(page, view, -120)).toBe(true)
    await expect.poll(() => percent(page)).toBeGreaterThan(fit)
    expect(await cssWidth(image)).toBeGreaterThan(fitWidth)
    expect(await page.evaluate(() => window.visualViewport?.scale ?? 1)).toBe(1)

    // The keys, with the focus on the image: Ctrl+0 fits again, Ctrl+= steps up.
    await view.focus()
    await page.keyboard.press('Control+0')
    await expect.poll(() => cssWidth(image)).toBe(fitWidth)
    await page.keyboard.press('Control+Equal')
    await expect.poll(() => percent(page)).toBeGreaterThan(fit)
    await page.screenshot({ path: join(ARTIFACTS, 'image-zoom-viewer.png') })
    await close(page, watch)
  })

  test('the editor: 100 % shows the canvas at the image size, zoom is no edit, Ctrl+wheel zooms the canvas', async () => {
    const { page, watch } = await openFile('photo.png')
    await expect
      .poll(() => page.getByTestId('image-editor').getAttribute('data-ready'), { timeout: 20_000 })
      .toBe('true')
    const canvas = page.locator('.image-canvas canvas.lower-canvas')
    const tools = page.getByRole('group', { name: 'Zoom' })
    await expect.poll(() => percent(page)).toBeLessThan(100)
    const fitWidth = await cssWidth(canvas)
    expect(fitWidth).toBeLessThan(1600)

    await tools.getByRole('button', { name: 'Actual size (100%)' }).click()
    await expect.poll(() => cssWidth(canvas)).toBe(1600)
    expect(await level(page)).toBe('100%')
    // The image's pixels are not touched: same backing size, nothing to undo.
    expect(await canvas.evaluate((element) => (element as HTMLCanvasElement).width)).toBe(1600)
    expect(await page.getByRole('button', { name: 'Undo', exact: true }).isDisabled()).toBe(true)
    await tools.getByRole('button', { name: 'Zoom in' }).click()
    await expect.poll(() => cssWidth(canvas)).toBe(2400)
    await tools.getByRole('button', { name: 'Fit' }).click()
    await expect.poll(() => cssWidth(canvas)).toBe(fitWidth)

    expect(await ctrlWheel(page, page.locator('.image-canvas'), -120)).toBe(true)
    await expect.poll(() => cssWidth(canvas)).toBeGreaterThan(fitWidth)
    // A rotation keeps the zoom (the editor re-fits its canvas; the zoom is applied again).
    const zoomed = await percent(page)
    await page.getByRole('button', { name: 'Rotate right' }).click()
    await expect.poll(() => page.getByTestId('image-size').textContent()).toBe('1200 × 1600 px')
    await expect.poll(() => percent(page)).toBe(zoomed)
    await expect.poll(() => cssWidth(canvas)).toBe(Math.round(1200 * (zoomed / 100)))
    await page.screenshot({ path: join(ARTIFACTS, 'image-zoom-editor.png') })
    await close(page, watch)
  })

  test('the editor: a stroke drawn on a zoomed, scrolled canvas lands under the pointer', async () => {
    const { page, watch } = await openFile('photo.png')
    await expect
      .poll(() => page.getByTestId('image-editor').getAttribute('data-ready'), { timeout: 20_000 })
      .toBe('true')
    const host = page.locator('.image-canvas')
    const canvas = page.locator('.image-canvas canvas.lower-canvas')
    await page.getByRole('group', { name: 'Zoom' }).getByRole('button', { name: 'Actual size (100%)' }).click()
    await expect.poll(() => cssWidth(canvas)).toBe(1600)
    await host.evaluate((element) => element.scrollTo({ left: 500, top: 400 }))
    await page.getByRole('button', { name: 'Draw', exact: true }).click()
    const box = await host.boundingBox()
    if (!box) throw new Error('no canvas on screen')
    const at = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) }
    await page.mouse.move(at.x, at.y)
    await page.mouse.down()
    for (let i = 1; i <= 10; i++) await page.mouse.move(at.x + i * 4, at.y)
    await page.mouse.up()
    await expect.poll(() => page.getByRole('button', { name: 'Undo', exact: true }).isEnabled()).toBe(true)
    // The image pixel under the stroke's middle, found from where the canvas is on screen now.
    const stroke = await canvas.evaluate((element, point) => {
      const c = element as HTMLCanvasElement
      const rect = c.getBoundingClientRect()
      const x = Math.round(((point.x + 20 - rect.left) * c.width) / rect.width)
      const y = Math.round(((point.y - rect.top) * c.height) / rect.height)
      const [r, g, b] = c.getContext('2d')?.getImageData(x, y, 1, 1).data ?? []
      return { r, g, b }
    }, at)
    // The stroke colour is #e11d48.
    expect(stroke).toEqual({ r: 0xe1, g: 0x1d, b: 0x48 })
    await close(page, watch)
  })
})
