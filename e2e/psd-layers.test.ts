import { writePsdUint8Array, type Layer } from 'ag-psd'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { rgba, type Pixel } from './support/image-fixtures'
import { useWorkspace } from './support/workspace'

const WHITE: Pixel = [255, 255, 255, 255]
const RED: Pixel = [220, 30, 30, 255]
const GREEN: Pixel = [20, 160, 60, 255]
const PURPLE: Pixel = [120, 40, 200, 255]

function pixelLayer(name: string, color: Pixel, left: number, top: number, width: number, height: number): Layer {
  return {
    name,
    left,
    top,
    imageData: { width, height, data: new Uint8ClampedArray(rgba(width, height, () => color)) },
  }
}

/**
 * What Photoshop writes with "Maximize compatibility" off: layers (pixels, a text layer and a
 * shape layer, each with the pixels Photoshop rasterised for it), a plain white composite and,
 * with `versionInfo`, the version resource saying `hasRealMergedData` = 0.
 */
function noCompositePsd(options: { versionInfo: boolean }): Uint8Array {
  const size = 120
  const text: Layer = {
    ...pixelLayer('Title', GREEN, 10, 90, 60, 14),
    text: {
      text: 'Poster',
      transform: [1, 0, 0, 1, 10, 100],
      style: { font: { name: 'ArialMT' }, fontSize: 12, fillColor: { r: 20, g: 160, b: 60 } },
    },
  }
  const shape: Layer = {
    ...pixelLayer('Badge', PURPLE, 70, 10, 40, 40),
    vectorFill: { type: 'color', color: { r: 120, g: 40, b: 200 } },
  }
  return writePsdUint8Array(
    {
      width: size,
      height: size,
      imageData: { width: size, height: size, data: new Uint8ClampedArray(rgba(size, size, () => WHITE)) },
      ...(options.versionInfo
        ? {
            imageResources: {
              versionInfo: {
                hasRealMergedData: false,
                writerName: 'Adobe Photoshop',
                readerName: 'Adobe Photoshop 2024',
                fileVersion: 1,
              },
            },
          }
        : {}),
      children: [
        pixelLayer('Background', WHITE, 0, 0, size, size),
        pixelLayer('Red square', RED, 20, 20, 40, 40),
        { name: 'Hidden', hidden: true, ...pixelLayer('Hidden', [0, 0, 0, 255], 0, 0, 10, 10) },
        shape,
        text,
      ],
    },
    { noBackground: false, invalidateTextLayers: false },
  )
}

/** A genuinely white picture saved with its composite: the composite is what is shown. */
function whitePsd(): Uint8Array {
  const size = 40
  return writePsdUint8Array({
    width: size,
    height: size,
    imageData: { width: size, height: size, data: new Uint8ClampedArray(rgba(size, size, () => WHITE)) },
  })
}

const workspace = useWorkspace({
  name: 'psd-layers',
  files: {
    'no-composite.psd': noCompositePsd({ versionInfo: true }),
    'white-composite.psd': noCompositePsd({ versionInfo: false }),
    'white.psd': whitePsd(),
  },
})

async function openPsd(path: string): Promise<Page> {
  const page = await workspace.newPage()
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'), {
      timeout: 20_000,
    })
    .toBe(path)
  return page
}

async function pixel(page: Page, x: number, y: number): Promise<number[] | null> {
  return page.getByTestId('psd-canvas').evaluate(
    (canvas, at) => {
      const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(at.x, at.y, 1, 1).data
      return data ? [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0] : null
    },
    { x, y },
  )
}

describe('PSD saved without a composite ("Maximize compatibility" off)', () => {
  test('hasRealMergedData = 0: the picture is drawn from its pixel, shape and text layers, and the note says so', async () => {
    const page = await openPsd('no-composite.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('layers')
    expect(await page.getByTestId('psd-note').textContent()).toBe(
      'Saved without a composite (“Maximize compatibility” off); drawn from its visible layers.',
    )
    expect(await pixel(page, 30, 30)).toEqual([220, 30, 30]) // pixel layer
    expect(await pixel(page, 90, 30)).toEqual([120, 40, 200]) // shape layer
    expect(await pixel(page, 30, 95)).toEqual([20, 160, 60]) // text layer
    expect(await pixel(page, 5, 5)).toEqual([255, 255, 255]) // a layer saved hidden stays hidden
    await page.close()
  })

  test('a plain white composite over layers that are not white (no version resource) is drawn from the layers too', async () => {
    const page = await openPsd('white-composite.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('layers')
    expect(await pixel(page, 30, 30)).toEqual([220, 30, 30])
    await page.close()
  })

  test('a white picture without layers still shows its saved composite', async () => {
    const page = await openPsd('white.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('composite')
    expect(await page.getByTestId('psd-note').textContent()).toBe('The composite saved in the file.')
    await page.close()
  })
})
