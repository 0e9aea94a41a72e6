import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { decode as decodePng } from 'fast-png'
import type { Browser, Page } from 'playwright-core'
import piexif from 'piexifjs'
import { afterAll, describe, expect, test } from 'vitest'
import { watchPage, type PageWatch } from './support/browser'
import {
  animatedGif,
  cmykPsd,
  floatPredictorTiff,
  hostileSvg,
  largePng,
  layeredPsd,
  patternPixel,
  png,
  png16,
  twoPageTiff,
  type Pixel,
  wav,
} from './support/image-fixtures'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/** A server on another port standing for "the internet": the SVG points at it; nothing may reach it. */
let outside: Server
let outsideHits: string[] = []
let outsideUrl = ''

/** JPEG, WebP and WebM written by the browser under test (no encoder for them in Node here). */
async function browserMadeFiles(
  browser: Browser,
): Promise<{ jpeg: Buffer; webp: Buffer; losslessWebp: Buffer; webm: Buffer | null }> {
  const page = await browser.newPage()
  const made = await page.evaluate(async () => {
    const canvas = document.createElement('canvas')
    canvas.width = 160
    canvas.height = 120
    const context = canvas.getContext('2d') as CanvasRenderingContext2D
    context.fillStyle = '#2563eb'
    context.fillRect(0, 0, 160, 120)
    context.fillStyle = '#f59e0b'
    context.fillRect(0, 0, 80, 60)
    const bytes = (url: string) => Array.from(atob(url.slice(url.indexOf(',') + 1)), (c) => c.charCodeAt(0))
    let webm: number[] | null
    try {
      const stream = canvas.captureStream(10)
      const recorder = new MediaRecorder(stream, { mimeType: 'video/webm;codecs=vp8' })
      const chunks: Blob[] = []
      recorder.ondataavailable = (event) => chunks.push(event.data)
      const stopped = new Promise((resolve) => (recorder.onstop = resolve))
      recorder.start()
      for (let i = 0; i < 8; i++) {
        context.fillStyle = `hsl(${i * 40} 80% 50%)`
        context.fillRect(i * 20, 60, 20, 60)
        await new Promise((resolve) => setTimeout(resolve, 60))
      }
      recorder.stop()
      await stopped
      webm = Array.from(new Uint8Array(await new Blob(chunks).arrayBuffer()))
    } catch {
      webm = null
    }
    return {
      jpeg: bytes(canvas.toDataURL('image/jpeg', 0.9)),
      webp: bytes(canvas.toDataURL('image/webp', 0.9)),
      // Chromium writes WebP at quality 1 losslessly (a VP8L chunk).
      losslessWebp: bytes(canvas.toDataURL('image/webp', 1)),
      webm,
    }
  })
  await page.close()
  return {
    jpeg: Buffer.from(made.jpeg),
    webp: Buffer.from(made.webp),
    losslessWebp: Buffer.from(made.losslessWebp),
    webm: made.webm && made.webm.length > 0 ? Buffer.from(made.webm) : null,
  }
}

let webmWritten = false

/** A Windows icon holding one 32×32 PNG image (how favicons are usually saved). */
function iconOf(image: Uint8Array): Buffer {
  const header = Buffer.alloc(6 + 16)
  header.writeUInt16LE(0, 0)
  header.writeUInt16LE(1, 2) // an icon
  header.writeUInt16LE(1, 4) // one image
  header.writeUInt8(32, 6)
  header.writeUInt8(32, 7)
  header.writeUInt16LE(1, 10) // colour planes
  header.writeUInt16LE(32, 12) // bits per pixel
  header.writeUInt32LE(image.length, 14)
  header.writeUInt32LE(22, 18)
  return Buffer.concat([header, Buffer.from(image)])
}

const binary = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1')

/** A phone photo's EXIF: camera, date, GPS, a thumbnail, and "rotate 90° clockwise to view". */
function withCameraExif(jpeg: Buffer): Buffer {
  const exif = piexif.dump({
    '0th': { [0x010f]: 'RetraceCam', [0x0110]: 'Model 7', [0x0112]: 6 },
    Exif: { [0x9003]: '2026:11:30 09:15:00', [0xa002]: 160, [0xa003]: 120 },
    GPS: {
      [0x0001]: 'N',
      [0x0002]: [
        [51, 1],
        [30, 1],
        [0, 1],
      ],
    },
    '1st': { [0x0103]: 6 },
    thumbnail: binary(jpeg),
  })
  return Buffer.from(piexif.insert(exif, binary(jpeg)), 'latin1')
}

const workspace = useWorkspace({
  name: 'images',
  viewport: { width: 1440, height: 900 },
  files: async ({ project: root, browser }) => {
    mkdirSync(join(root, 'media'), { recursive: true })
    outside = createServer((request, response) => {
      outsideHits.push(request.url ?? '')
      response.writeHead(200, { 'Content-Type': 'image/png' })
      response.end(Buffer.from(png(4, 4, () => [0, 0, 0, 255])))
    })
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve))
    const address = outside.address()
    outsideUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/tracker.png`
    const made = await browserMadeFiles(browser)
    writeFileSync(join(root, 'edit.png'), png(200, 100, patternPixel))
    writeFileSync(
      join(root, 'shapes.png'),
      png(160, 120, () => [255, 255, 255, 255]),
    )
    writeFileSync(join(root, 'photo.jpg'), made.jpeg)
    writeFileSync(join(root, 'camera.jpg'), withCameraExif(made.jpeg))
    writeFileSync(join(root, 'photo.webp'), made.webp)
    writeFileSync(join(root, 'lossless.webp'), made.losslessWebp)
    writeFileSync(join(root, 'notes.txt'), 'notes\n')
    writeFileSync(join(root, 'spin.gif'), animatedGif())
    writeFileSync(join(root, 'favicon.ico'), iconOf(png(32, 32, patternPixel)))
    writeFileSync(join(root, 'empty.png'), '')
    writeFileSync(join(root, 'float.tif'), floatPredictorTiff())
    writeFileSync(join(root, 'deep.png'), png16(64, 48))
    writeFileSync(join(root, 'huge.png'), largePng(5000, 4000))
    writeFileSync(join(root, 'hostile.svg'), hostileSvg(outsideUrl))
    writeFileSync(join(root, 'layers.psd'), layeredPsd())
    writeFileSync(join(root, 'empty.psd'), layeredPsd({ emptyComposite: true }))
    writeFileSync(join(root, 'black.psd'), layeredPsd({ emptyComposite: 'black' }))
    writeFileSync(join(root, 'cmyk.psd'), cmykPsd())
    writeFileSync(join(root, 'pages.tif'), twoPageTiff())
    writeFileSync(join(root, 'media', 'tone.wav'), wav())
    if (made.webm) {
      writeFileSync(join(root, 'media', 'clip.webm'), made.webm)
      webmWritten = true
    }
    // EBML magic, then nothing a decoder can use: sniffed as WebM, unplayable.
    writeFileSync(
      join(root, 'media', 'broken.webm'),
      Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(512, 0)]),
    )
    mkdirSync(ARTIFACTS, { recursive: true })
  },
})
const root = () => workspace.project

afterAll(async () => {
  await new Promise((resolve) => outside?.close(resolve))
})

async function openFile(path: string): Promise<{ page: Page; watch: PageWatch; requests: string[] }> {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  await page.goto(`${workspace.host.url}&open=${encodeURIComponent(path)}`)
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'), {
      timeout: 20_000,
    })
    .toBe(path)
  return { page, watch, requests }
}

const tool = (page: Page, name: string) =>
  page.getByRole('toolbar', { name: 'Image tools' }).getByRole('button', { name, exact: true })
const editorReady = (page: Page) =>
  expect.poll(() => page.getByTestId('image-editor').getAttribute('data-ready'), { timeout: 20_000 }).toBe('true')
const diskPng = (name: string) => decodePng(readFileSync(join(root(), name)))

/** The pixel at (x, y) of a decoded 8-bit RGBA (or RGB) PNG. */
function pixelAt(image: ReturnType<typeof decodePng>, x: number, y: number): Pixel {
  const c = image.channels
  const o = (y * image.width + x) * c
  const d = image.data
  return [d[o] ?? 0, d[o + 1] ?? 0, d[o + 2] ?? 0, c === 4 ? (d[o + 3] ?? 0) : 255]
}

/** Pixels of the text (#e11d48) in the file: the only colour with green under 60 and red over 150. */
function textPixels(image: ReturnType<typeof decodePng>): number {
  let count = 0
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      const [r, g] = pixelAt(image, x, y)
      if (r > 150 && g < 60) count++
    }
  return count
}

describe('bitmap editor', () => {
  test('crop + rotate + text autosave into the PNG; undo, tab switch, redo; History restores the original', async () => {
    const original = readFileSync(join(root(), 'edit.png'))
    const { page, watch, requests } = await openFile('edit.png')
    await editorReady(page)
    for (const name of [
      'Crop',
      'Rotate left',
      'Rotate right',
      'Flip horizontal',
      'Flip vertical',
      'Draw',
      'Shape',
      'Text',
    ]) {
      await expect.poll(() => tool(page, name).isEnabled()).toBe(true)
    }
    expect(await tool(page, 'Undo').isDisabled()).toBe(true)
    expect(await tool(page, 'Redo').isDisabled()).toBe(true)

    // Crop to the centred square (x 50–149 of 200×100), rotate right, add a word.
    await tool(page, 'Crop').click()
    await page.getByRole('button', { name: 'Square', exact: true }).click()
    await page.getByRole('button', { name: 'Apply crop', exact: true }).click()
    await expect.poll(() => page.getByTestId('image-size').textContent()).toBe('100 × 100 px')
    await tool(page, 'Rotate right').click()
    await tool(page, 'Text').click()
    await page.getByRole('textbox', { name: 'Text to add' }).fill('Hi')
    await page.getByRole('button', { name: 'Add text', exact: true }).click()

    // Autosave publishes about a second after the last change; the file on disk is decoded here.
    await expect
      .poll(() => (readFileSync(join(root(), 'edit.png')).equals(original) ? 0 : textPixels(diskPng('edit.png'))), {
        timeout: 20_000,
      })
      .toBeGreaterThan(10)
    const edited = diskPng('edit.png')
    expect([edited.width, edited.height]).toEqual([100, 100])
    // Rotated clockwise: new (x, y) is the cropped (y, 99 - x), i.e. the original (50 + y, 99 - x).
    let matching = 0
    let compared = 0
    for (let y = 0; y < 100; y++)
      for (let x = 0; x < 100; x++) {
        if (x > 25 && x < 75 && y > 25 && y < 75) continue // where the text is
        compared++
        const want = patternPixel(50 + y, 99 - x)
        const got = pixelAt(edited, x, y)
        if (want.every((v, i) => Math.abs(v - (got[i] ?? 0)) <= 6)) matching++
      }
    expect(matching / compared).toBeGreaterThan(0.97)
    await page.screenshot({ path: join(ARTIFACTS, 'images-editor.png') })

    // Undo removes the text, and that is published too.
    await tool(page, 'Undo').click()
    await expect.poll(() => textPixels(diskPng('edit.png')), { timeout: 20_000 }).toBe(0)
    expect(diskPng('edit.png').width).toBe(100)

    // Another tab and back: the same editor, its redo stack intact.
    await page.getByRole('treeitem', { name: /notes\.txt/ }).dblclick()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('notes.txt')
    // Ctrl+Z elsewhere never reaches the hidden editor (its shortcuts act on its canvas only).
    await page.keyboard.press('Control+z')
    await page.locator('[data-testid="tab-file"][data-path="edit.png"]').click()
    await editorReady(page)
    await expect.poll(() => tool(page, 'Redo').isEnabled()).toBe(true)
    await tool(page, 'Redo').click()
    await expect.poll(() => textPixels(diskPng('edit.png')), { timeout: 20_000 }).toBeGreaterThan(10)

    // File History lists the human versions; restoring the original brings its exact bytes back.
    await page.getByTestId('history-toggle').click()
    const versions = page.getByTestId('history-version')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(3)
    const last = versions.last()
    expect(await last.getAttribute('data-source')).toBe('original')
    await last.click()
    await page.getByTestId('history-restore').click()
    await expect.poll(() => readFileSync(join(root(), 'edit.png')).equals(original), { timeout: 20_000 }).toBe(true)
    // The editor shows the restored image (and its history starts again).
    await expect.poll(() => page.getByTestId('image-size').textContent(), { timeout: 10_000 }).toBe('200 × 100 px')

    // Nothing left the page: no analytics, no remote assets.
    const port = new URL(workspace.host.url).port
    expect(
      requests.filter((url) => !url.startsWith(`http://127.0.0.1:${port}/`) && !/^(blob|data):/.test(url)),
    ).toEqual([])
    expect(watch.consoleErrors).toEqual([])
    expect(await watch.cspViolations()).toEqual([])
    await page.close()
  })

  test('Shape and Draw put strokes into the file', async () => {
    const { page, watch } = await openFile('shapes.png')
    await editorReady(page)
    await tool(page, 'Shape').click()
    // The rectangle's outline (#e11d48) is in the file once published.
    await expect.poll(() => textPixels(diskPng('shapes.png')), { timeout: 20_000 }).toBeGreaterThan(50)
    const afterShape = textPixels(diskPng('shapes.png'))
    await tool(page, 'Draw').click()
    expect(await tool(page, 'Draw').getAttribute('aria-pressed')).toBe('true')
    const box = await page.locator('.image-canvas canvas.upper-canvas').boundingBox()
    if (!box) throw new Error('no canvas')
    await page.mouse.move(box.x + 5, box.y + 5)
    await page.mouse.down()
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + 5 + i * 2, box.y + 5 + i * (box.height / 12))
    await page.mouse.up()
    await expect.poll(() => textPixels(diskPng('shapes.png')), { timeout: 20_000 }).toBeGreaterThan(afterShape)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('JPEG and WebP are written back in their own format', async () => {
    for (const [name, magic] of [
      ['photo.jpg', 'ffd8ff'],
      ['photo.webp', '52494646'],
    ] as const) {
      const before = readFileSync(join(root(), name))
      const { page } = await openFile(name)
      await editorReady(page)
      await tool(page, 'Flip horizontal').click()
      await expect.poll(() => readFileSync(join(root(), name)).equals(before), { timeout: 20_000 }).toBe(false)
      const after = readFileSync(join(root(), name))
      expect(after.subarray(0, magic.length / 2).toString('hex')).toBe(magic)
      if (name.endsWith('.webp')) expect(after.subarray(8, 12).toString('latin1')).toBe('WEBP')
      await page.close()
    }
  })

  test('a lossless WebP is written back lossless', async () => {
    const before = readFileSync(join(root(), 'lossless.webp'))
    expect(before.includes('VP8L')).toBe(true)
    const { page } = await openFile('lossless.webp')
    await editorReady(page)
    await tool(page, 'Flip horizontal').click()
    await expect.poll(() => readFileSync(join(root(), 'lossless.webp')).equals(before), { timeout: 20_000 }).toBe(false)
    const after = readFileSync(join(root(), 'lossless.webp'))
    expect(after.includes('VP8L')).toBe(true)
    expect(after.includes('VP8 ')).toBe(false)
    await page.close()
  })

  test('an edited phone photo keeps its EXIF, upright and with its new size, without the old thumbnail', async () => {
    const before = readFileSync(join(root(), 'camera.jpg'))
    const { page, watch } = await openFile('camera.jpg')
    await editorReady(page)
    // Shown the way the camera meant it: rotated upright from 160 × 120.
    await expect.poll(() => page.getByTestId('image-size').textContent()).toBe('120 × 160 px')
    await tool(page, 'Flip horizontal').click()
    await expect.poll(() => readFileSync(join(root(), 'camera.jpg')).equals(before), { timeout: 20_000 }).toBe(false)
    const exif = piexif.load(binary(readFileSync(join(root(), 'camera.jpg'))))
    expect(exif['0th']?.[0x010f]).toBe('RetraceCam')
    expect(exif['0th']?.[0x0110]).toBe('Model 7')
    expect(exif.Exif?.[0x9003]).toBe('2026:11:30 09:15:00')
    expect(exif.GPS?.[0x0001]).toBe('N')
    // The pixels were written upright, so nothing may rotate them again; the size is the new one.
    expect(exif['0th']?.[0x0112]).toBe(1)
    expect([exif.Exif?.[0xa002], exif.Exif?.[0xa003]]).toEqual([120, 160])
    expect(exif.thumbnail ?? null).toBeNull()
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('an image over the limits says why it is not editable and is still shown', async () => {
    const { page } = await openFile('huge.png')
    await expect
      .poll(() => page.getByTestId('image-preview-note').textContent(), { timeout: 20_000 })
      .toBe('It has 20.0 megapixels; images over 16 megapixels are not edited.')
    await expect
      .poll(() => page.locator('[data-testid="image-view"][data-rendered="true"]').count(), { timeout: 20_000 })
      .toBe(1)
    expect(await page.getByTestId('image-editor').count()).toBe(0)
    await page.close()
  })
})

describe('preview-only formats', () => {
  test('an animated GIF cannot be edited; Convert to PNG writes a new file next to it', async () => {
    const gif = readFileSync(join(root(), 'spin.gif'))
    const { page, watch } = await openFile('spin.gif')
    await expect
      .poll(() => page.getByTestId('image-preview').getAttribute('data-reason'), { timeout: 20_000 })
      .toBe('animated')
    expect(await page.getByRole('button', { name: 'Crop', exact: true }).count()).toBe(0)
    await page.getByRole('button', { name: 'Convert to PNG' }).click()
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Created spin.png' }).count()).toBe(1)
    const converted = decodePng(readFileSync(join(root(), 'spin.png')))
    expect([converted.width, converted.height]).toEqual([60, 40])
    // The first frame: the red square at x 5–24.
    expect(pixelAt(converted, 10, 20).slice(0, 3)).toEqual([220, 40, 40])
    expect(readFileSync(join(root(), 'spin.gif')).equals(gif)).toBe(true)
    // Converting again never overwrites: the next free name.
    await page.getByRole('button', { name: 'Convert to PNG' }).click()
    await expect.poll(() => existsSync(join(root(), 'spin (1).png')), { timeout: 10_000 }).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('an icon (.ico, image/vnd.microsoft.icon by its name) is shown', async () => {
    const { page, watch } = await openFile('favicon.ico')
    await expect
      .poll(() => page.locator('[data-testid="image-view"][data-rendered="true"]').count(), { timeout: 20_000 })
      .toBe(1)
    expect(await page.getByText('Cannot preview this file yet').count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('an empty file named .png says it cannot be shown; it never opens in the text editor', async () => {
    const { page, watch } = await openFile('empty.png')
    await expect.poll(() => page.getByTestId('image-preview').getByRole('alert').count(), { timeout: 20_000 }).toBe(1)
    expect(await page.locator('.monaco-editor').count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('a 16-bit PNG is preview-only and says why', async () => {
    const { page } = await openFile('deep.png')
    await expect
      .poll(() => page.getByTestId('image-preview-note').textContent(), { timeout: 20_000 })
      .toBe('It has 16 bits per channel; the editor works in 8 bits and would lose precision.')
    await expect.poll(() => page.locator('[data-testid="image-view"][data-rendered="true"]').count()).toBe(1)
    await page.close()
  })

  test('SVG: shown as an image, its script never runs, nothing external is fetched; source one click away', async () => {
    outsideHits = []
    const { page, watch, requests } = await openFile('hostile.svg')
    await expect
      .poll(() => page.locator('[data-testid="image-view"][data-rendered="true"]').count(), { timeout: 20_000 })
      .toBe(1)
    await page.waitForTimeout(1000)
    expect(await page.evaluate(() => (window as unknown as { __svgRan?: boolean }).__svgRan ?? false)).toBe(false)
    expect(await page.title()).not.toBe('svg script ran')
    expect(outsideHits).toEqual([])
    expect(requests.filter((url) => url.startsWith(outsideUrl.replace('/tracker.png', '')))).toEqual([])
    // Drawn: the yellow circle is in the middle of the image.
    expect(
      await page
        .locator('svg')
        .filter({ has: page.locator('script') })
        .count(),
    ).toBe(0)
    await page.getByRole('button', { name: 'View source' }).click()
    await expect.poll(() => page.getByTestId('svg-source').textContent()).toContain('<script>')
    expect(await page.locator('script').filter({ hasText: '__svgRan' }).count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })
})

describe('PSD and TIFF', () => {
  test('PSD: the layer tree; hiding a layer re-composites the preview and never the file', async () => {
    const before = readFileSync(join(root(), 'layers.psd'))
    const { page, watch } = await openFile('layers.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('composite')
    const tree = page.getByRole('tree', { name: 'Layers' })
    for (const name of ['Background', 'Red square', 'Details', 'Blue square', 'Caption']) {
      await expect.poll(() => tree.getByRole('treeitem', { name, exact: true }).count()).toBe(1)
    }
    expect(await tree.getByRole('treeitem', { name: 'Caption', exact: true }).textContent()).toContain('Hello PSD')
    expect(await tree.getByRole('treeitem', { name: 'Details', exact: true }).textContent()).toContain('group')
    const redAt = () =>
      page.getByTestId('psd-canvas').evaluate((canvas) => {
        const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(40, 40, 1, 1).data
        return data ? [data[0], data[1], data[2]] : null
      })
    expect(await redAt()).toEqual([220, 30, 30])
    await page.getByRole('checkbox', { name: 'Show layer Red square' }).uncheck()
    await expect.poll(() => page.getByTestId('psd-preview').getAttribute('data-source')).toBe('preview')
    await expect.poll(redAt).toEqual([255, 255, 255])
    await page.screenshot({ path: join(ARTIFACTS, 'images-psd.png') })
    await page.waitForTimeout(1500)
    expect(readFileSync(join(root(), 'layers.psd')).equals(before)).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('PSD: an all-black composite in a file with layers (a writer that kept none) shows the layers', async () => {
    const { page } = await openFile('black.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('stacked')
    const blueAt = await page.getByTestId('psd-canvas').evaluate((canvas) => {
      const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(80, 80, 1, 1).data
      return data ? [data[0], data[1], data[2]] : null
    })
    expect(blueAt).toEqual([30, 60, 220])
    await page.close()
  })

  test('PSD: an empty composite falls back to the stacked layers and says so; CMYK says why there is no preview', async () => {
    const { page } = await openFile('empty.psd')
    await expect
      .poll(() => page.getByTestId('psd-preview').getAttribute('data-source'), { timeout: 20_000 })
      .toBe('stacked')
    expect(await page.getByTestId('psd-note').textContent()).toBe(
      'The saved composite is empty; showing the visible layers stacked.',
    )
    const blueAt = await page.getByTestId('psd-canvas').evaluate((canvas) => {
      const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(80, 80, 1, 1).data
      return data ? [data[0], data[1], data[2]] : null
    })
    expect(blueAt).toEqual([30, 60, 220])
    await page.close()
    const cmyk = await openFile('cmyk.psd')
    await expect
      .poll(() => cmyk.page.getByTestId('psd-unavailable').textContent(), { timeout: 20_000 })
      .toBe('Preview unavailable: its colour mode (CMYK, or another the decoder does not read) is not supported')
    await cmyk.page.close()
  })

  test('a TIFF page in an encoding the viewer cannot decode says so instead of drawing noise', async () => {
    const { page, watch } = await openFile('float.tif')
    await expect
      .poll(() => page.getByTestId('tiff-note').textContent(), { timeout: 20_000 })
      .toContain('Page 1 is stored in a way this viewer cannot decode (floating-point predictor).')
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('TIFF: two pages, the 16-bit one converted for display with a note', async () => {
    const { page, watch } = await openFile('pages.tif')
    await expect.poll(() => page.getByTestId('tiff-preview').getAttribute('data-page'), { timeout: 20_000 }).toBe('1')
    expect(await page.getByTestId('tiff-page').textContent()).toBe('Page 1 of 2')
    await page.getByRole('button', { name: 'Next page' }).click()
    await expect.poll(() => page.getByTestId('tiff-preview').getAttribute('data-page')).toBe('2')
    expect(await page.getByTestId('tiff-note').textContent()).toBe(
      'Converted from 16 bits per channel to 8 for display.',
    )
    const right = await page.getByTestId('tiff-canvas').evaluate((canvas) => {
      const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(63, 10, 1, 1).data
      return data ? data[0] : null
    })
    expect(right).toBe(255)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })
})

describe('audio and video', () => {
  test('WAV and WebM play from local bytes and seek; an undecodable file says so', async () => {
    const { page, watch } = await openFile('media/tone.wav')
    const player = page.getByTestId('media-player')
    await expect
      .poll(() => player.evaluate((m) => (m as HTMLMediaElement).duration), { timeout: 20_000 })
      .toBeCloseTo(1, 1)
    await player.evaluate((m) => ((m as HTMLMediaElement).currentTime = 0.5))
    await expect.poll(() => player.evaluate((m) => (m as HTMLMediaElement).currentTime)).toBeCloseTo(0.5, 1)
    expect(await player.evaluate((m) => (m as HTMLMediaElement).currentSrc.startsWith('blob:'))).toBe(true)
    await page.close()
    if (webmWritten) {
      const video = await openFile('media/clip.webm')
      await expect
        .poll(() => video.page.getByTestId('media-player').evaluate((m) => (m as HTMLMediaElement).readyState), {
          timeout: 20_000,
        })
        .toBeGreaterThanOrEqual(1)
      expect(await video.page.getByTestId('media-player').evaluate((m) => m.tagName)).toBe('VIDEO')
      await video.page.close()
    } else {
      console.log('WebM check skipped: this Chromium could not record one')
    }
    const broken = await openFile('media/broken.webm')
    await expect
      .poll(() => broken.page.getByTestId('media-error').textContent(), { timeout: 20_000 })
      .toMatch(/^This browser cannot play this file \(video\/webm\): /)
    expect(watch.consoleErrors).toEqual([])
    await broken.page.close()
  })
})
