import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { changedParts, corpusFile, makePptx, unzipParts } from '../test/support/office-fixtures'
import { watchPage, type PageWatch } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * Slides edited on the slide (issue 27 item 2) in real Chromium against browser mode: the
 * approximate rendering fits its text instead of clipping it, text boxes are typed into in place,
 * shapes are moved, resized and nudged, slides are added, duplicated, deleted and reordered from
 * the list, speaker notes are edited, and Ctrl+Z undoes the last slide operation — each checked on
 * the bytes written, and the result opened by LibreOffice with one page per slide.
 */

const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((path) => existsSync(path))
if (!SOFFICE) console.log('skipped: LibreOffice (soffice) is not installed: the reopen checks do not run')
const CORPUS_DECK = 'poi-aptia-slides-images.pptx'
const originals = new Map<string, Uint8Array>()

const workspace = useWorkspace({
  name: 'slides-editing',
  files: async ({ project }) => {
    const put = (name: string, bytes: Uint8Array) => {
      writeFileSync(join(project, name), bytes)
      originals.set(name, new Uint8Array(bytes))
    }
    put('type.pptx', await makePptx())
    put('move.pptx', await makePptx())
    const corpus = corpusFile(CORPUS_DECK)
    if (corpus) {
      put('aptia.pptx', corpus)
      put('aptia-list.pptx', corpus)
    }
  },
  setupTimeout: 120_000,
})
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project: root, host } = workspace)
})

async function open(path: string): Promise<{ page: Page; watch: PageWatch }> {
  const context = await workspace.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  await expect.poll(() => page.getByTestId('office-slides').count(), { timeout: 30_000 }).toBe(1)
  await expect.poll(() => page.locator('.slide-shape').count(), { timeout: 20_000 }).toBeGreaterThan(0)
  return { page, watch }
}

async function close(page: Page, watch: PageWatch) {
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  await page.context().close()
}

const onDisk = (name: string) => new Uint8Array(readFileSync(join(root, name)))
const changed = (name: string) => changedParts(originals.get(name) ?? new Uint8Array(), onDisk(name))
const part = async (name: string, path: string) => (await unzipParts(onDisk(name))).get(path)?.toString() ?? ''
const slideIds = async (name: string) =>
  [...(await part(name, 'ppt/presentation.xml')).matchAll(/<p:sldId\b[^>]*\bid="(\d+)"/g)].map((m) => m[1])
const frameOf = (xml: string, shapeId: string) => {
  const at = xml.indexOf(`<p:cNvPr id="${shapeId}"`)
  const off = /<a:off x="(-?\d+)" y="(-?\d+)"\/><a:ext cx="(\d+)" cy="(\d+)"\/>/.exec(xml.slice(at))
  return off ? off.slice(1, 5).map(Number) : []
}

function pdfPages(file: string): number {
  const out = mkdtempSync(join(root, '..', 'soffice-'))
  execFileSync(
    SOFFICE ?? 'soffice',
    [`-env:UserInstallation=file://${out}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', out, file],
    { timeout: 120_000, stdio: 'ignore' },
  )
  const pdf = readdirSync(out).find((name) => name.endsWith('.pdf'))
  if (!pdf) throw new Error(`soffice produced nothing for ${file}`)
  return (
    readFileSync(join(out, pdf))
      .toString('latin1')
      .match(/\/Type\s*\/Page[^s]/g)?.length ?? 0
  )
}

describe('slides edited on the slide', () => {
  test('the approximate slide clips no text box, and a soft line break is never a missing-glyph box', async () => {
    if (!originals.has('aptia.pptx')) return
    const { page, watch } = await open('aptia.pptx')
    const preview = page.getByTestId('slide-preview')
    await expect.poll(() => preview.textContent(), { timeout: 20_000 }).toContain('Fair Work Commission')
    // Every text box shows all its text: nothing overflows a box that hides its overflow, and the
    // first line of each starts inside its box (a centred overflow used to lose it above the top).
    const clipped = await preview.evaluate((element) =>
      [...element.querySelectorAll<HTMLElement>('.slide > div')]
        .filter((box) => box.textContent?.trim())
        .filter((box) => {
          const style = getComputedStyle(box)
          if (style.overflow === 'visible') return false
          const range = document.createRange()
          range.selectNodeContents(box)
          const first = range.getClientRects()[0]
          const rect = box.getBoundingClientRect()
          return box.scrollHeight > box.clientHeight + 1 || (first !== undefined && first.top < rect.top - 1)
        })
        .map((box) => box.textContent?.trim().slice(0, 40)),
    )
    expect(clipped).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'slides-fitted.png') })
    // The title has a soft line break: no field holds U+000B (drawn as a box), the break is a line.
    const fields = await page
      .locator('.slide-text-field textarea')
      .evaluateAll((areas) => areas.map((area) => (area as HTMLTextAreaElement).value))
    expect(fields.some((value) => value.includes('\u000b'))).toBe(false)
    expect(fields.some((value) => value.includes('Fair Work Commission\u21b5in the 4'))).toBe(true)
    await close(page, watch)
  })

  test('a text box is typed into in place: runs keep their formatting, only that slide part changes', async () => {
    const { page, watch } = await open('type.pptx')
    // Keyboard path: the shapes of the slide are tab stops; Enter edits the focused text box.
    await page.getByRole('button', { name: 'Title (text box)' }).focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Body (text box)')
    await page.keyboard.press('Enter')
    const editor = page.getByRole('textbox', { name: 'Editing Body on the slide' })
    await expect.poll(() => editor.count()).toBe(1)
    // The soft break is a line in the editor, not a glyph.
    expect(await editor.innerText()).toBe('Revenue grew 12% this year\nCosts\nstayed flat')
    expect(await editor.evaluate((el) => el.textContent?.includes('\u000b'))).toBe(false)
    await page.keyboard.type(' overall')
    await page.keyboard.press('Escape')
    // Escape gives the keyboard back to the shape.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Body (text box)')
    await expect.poll(() => changed('type.pptx'), { timeout: 20_000 }).toEqual(['ppt/slides/slide1.xml'])
    const xml = await part('type.pptx', 'ppt/slides/slide1.xml')
    expect(xml).toContain('<a:t>stayed flat overall</a:t>')
    expect(xml).toContain('<a:rPr lang="en-US" b="1"/><a:t>12%</a:t>')
    expect(xml).toContain('<a:t>Costs</a:t></a:r><a:br><a:rPr lang="en-US"/></a:br>')
    // The text outline under the slide shows the break as a mark, never as a missing glyph.
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Text of Body' }).inputValue())
      .toBe('Revenue grew 12% this year\nCosts\u21b5stayed flat overall')

    // A double click on the title edits it too; a click outside ends editing and saves.
    await page.getByRole('button', { name: 'Title (text box)' }).dblclick()
    const title = page.getByRole('textbox', { name: 'Editing Title on the slide' })
    await expect.poll(() => title.count()).toBe(1)
    await page.keyboard.press('Shift+Enter')
    await page.keyboard.type('Q3')
    await page
      .getByRole('heading')
      .first()
      .click({ force: true })
      .catch(() => page.mouse.click(5, 5))
    await expect
      .poll(async () => part('type.pptx', 'ppt/slides/slide1.xml'), { timeout: 20_000 })
      .toContain(
        '<a:t>Quarterly review</a:t></a:r><a:br><a:rPr lang="en-US" sz="4000"/></a:br><a:r><a:rPr lang="en-US" sz="4000"/><a:t>Q3</a:t>',
      )
    expect(await changed('type.pptx')).toEqual(['ppt/slides/slide1.xml'])
    await page.screenshot({ path: join(ARTIFACTS, 'slides-typed.png') })
    // Ctrl+Z on the slide undoes the last on-slide text edit (the title), not the one before it.
    await page.getByRole('button', { name: 'Title (text box)' }).focus()
    await page.keyboard.press('Control+z')
    await expect
      .poll(async () => part('type.pptx', 'ppt/slides/slide1.xml'), { timeout: 20_000 })
      .toContain('<a:t>Quarterly review</a:t></a:r></a:p>')
    expect(await part('type.pptx', 'ppt/slides/slide1.xml')).toContain('<a:t>stayed flat overall</a:t>')

    // Enter starts a new paragraph, which takes the formatting of the paragraph before it.
    await page.getByRole('button', { name: 'Body (text box)' }).dblclick()
    await expect.poll(() => editor.count()).toBe(1)
    await page.keyboard.press('Enter')
    await page.keyboard.type('Next steps')
    await page.keyboard.press('Escape')
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Text of Body' }).inputValue(), { timeout: 20_000 })
      .toBe('Revenue grew 12% this year\nCosts\u21b5stayed flat overall\nNext steps')
    await expect
      .poll(() => part('type.pptx', 'ppt/slides/slide1.xml'), { timeout: 20_000 })
      .toContain('<a:endParaRPr lang="en-US"/></a:p><a:p><a:r><a:rPr lang="en-US"/><a:t>Next steps</a:t></a:r></a:p>')
    await close(page, watch)
  })

  test('dragging moves a shape, a handle resizes it and the arrows nudge it: a:xfrm of that slide only', async () => {
    const { page, watch } = await open('move.pptx')
    const titleBox = page.getByRole('button', { name: 'Title (text box)' })
    const scale = await page
      .locator('.slide-shapes')
      .evaluate((layer) => layer.getBoundingClientRect().width / (layer as HTMLElement).offsetWidth)
    const box = await titleBox.boundingBox()
    if (!box) throw new Error('no title box')
    await page.mouse.move(box.x + 40, box.y + 20)
    await page.mouse.down()
    await page.mouse.move(box.x + 80, box.y + 40, { steps: 5 })
    await page.mouse.move(box.x + 40 + 100 * scale, box.y + 20 + 50 * scale, { steps: 5 })
    await page.mouse.up()
    await expect.poll(() => changed('move.pptx'), { timeout: 20_000 }).toEqual(['ppt/slides/slide1.xml'])
    await expect
      .poll(async () => frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2'), { timeout: 20_000 })
      .not.toEqual([457_200, 457_200, 8_229_600, 1_143_000])
    const [x, y, cx, cy] = frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2')
    // 100 × 50 slide pixels is 952 500 × 476 250 EMU; the mouse lands on whole screen pixels.
    expect(Math.abs((x ?? 0) - (457_200 + 952_500))).toBeLessThan(20_000)
    expect(Math.abs((y ?? 0) - (457_200 + 476_250))).toBeLessThan(20_000)
    expect([cx, cy]).toEqual([8_229_600, 1_143_000])

    // The bottom handle makes it lower (the right-hand ones are off the slide now); the position stays.
    const handle = page.locator('.slide-shape[data-selected] .slide-handle[data-handle="s"]')
    // The deck is drawn again after the move's save; a drag that starts on the handle being replaced
    // is lost (nothing is written — see docs/known-gaps.md "Slides"), so the drag is tried until the
    // saved frame shows it, at most three times.
    const height = async () => frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2')[3] ?? 0
    for (let attempt = 0; attempt < 3 && (await height()) >= 1_143_000 - 300_000; attempt++) {
      await expect.poll(() => handle.count(), { timeout: 10_000 }).toBe(1)
      const grip = await handle.boundingBox()
      if (!grip) throw new Error('no handle')
      await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2)
      await page.mouse.down()
      await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2 - 40 * scale, { steps: 8 })
      await page.mouse.up()
      await expect
        .poll(height, { timeout: 8_000 })
        .toBeLessThan(1_143_000 - 300_000)
        .catch(() => undefined)
    }
    expect(await height()).toBeLessThan(1_143_000 - 300_000)
    const resized = frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2')
    expect(resized.slice(0, 3)).toEqual([x, y, cx])

    // Two nudges to the right, saved together once the keys rest.
    await titleBox.focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await expect
      .poll(async () => frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2')[0], { timeout: 20_000 })
      .toBe((resized[0] ?? 0) + 2 * 6 * 9525)
    expect(await changed('move.pptx')).toEqual(['ppt/slides/slide1.xml'])
    // Ctrl+Z outside a text field undoes the last move.
    await page.keyboard.press('Control+z')
    await expect
      .poll(async () => frameOf(await part('move.pptx', 'ppt/slides/slide1.xml'), '2')[0], { timeout: 20_000 })
      .toBe(resized[0])
    await close(page, watch)
  })

  test('slides are added, duplicated, deleted and reordered from the list; notes are edited; LibreOffice opens it', async () => {
    if (!originals.has('aptia-list.pptx')) return
    const name = 'aptia-list.pptx'
    const { page, watch } = await open(name)
    const before = await slideIds(name)
    const list = page.getByRole('navigation', { name: 'Slides' })
    const items = list.getByRole('button')
    expect(await items.count()).toBe(before.length)

    await page.getByRole('button', { name: 'Add slide' }).click()
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(before.length + 1)
    expect(await list.locator('[aria-current="true"]').getAttribute('data-slide')).toBe('2')
    await expect.poll(async () => (await slideIds(name)).length, { timeout: 20_000 }).toBe(before.length + 1)
    // The new slide's placeholders are empty: their boxes and a prompt show where to type.
    const empty = page.locator('.slide-shape[data-empty]')
    await expect.poll(() => empty.count(), { timeout: 20_000 }).toBeGreaterThan(0)
    expect(await empty.first().textContent()).toBe('Double-click to add text')
    await empty.first().dblclick()
    await page.keyboard.type('Agenda')
    await page.keyboard.press('Escape')
    await expect
      .poll(async () => page.getByTestId('slide-preview').textContent(), { timeout: 20_000 })
      .toContain('Agenda')
    await expect.poll(async () => (await slideIds(name)).length, { timeout: 20_000 }).toBe(before.length + 1)

    await page.getByRole('button', { name: 'Duplicate slide' }).click()
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(before.length + 2)
    expect(await list.locator('[aria-current="true"]').getAttribute('data-slide')).toBe('3')

    await expect.poll(async () => (await slideIds(name)).length, { timeout: 20_000 }).toBe(before.length + 2)
    const duplicated = await slideIds(name)
    // Keyboard: Alt+Down moves the current slide, Delete asks first.
    await list.locator('[aria-current="true"]').focus()
    await page.keyboard.press('Alt+ArrowDown')
    await expect.poll(() => list.locator('[aria-current="true"]').getAttribute('data-slide')).toBe('4')
    await expect.poll(async () => (await slideIds(name))[3], { timeout: 20_000 }).toBe(duplicated[2])
    const moved = await slideIds(name)
    expect(moved[2]).toBe(duplicated[3])
    await list.locator('[aria-current="true"]').focus()
    await page.keyboard.press('Delete')
    const confirm = page.getByTestId('slide-delete-confirm')
    await expect.poll(() => confirm.count()).toBe(1)
    expect(await confirm.textContent()).toContain('Delete slide 4?')
    await page.screenshot({ path: join(ARTIFACTS, 'slides-delete-confirm.png') })
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(before.length + 1)
    await expect.poll(async () => (await slideIds(name)).length, { timeout: 20_000 }).toBe(before.length + 1)
    expect(await slideIds(name)).toEqual(moved.filter((_, i) => i !== 3))

    // Ctrl+Z brings the deleted slide back (a new save of the deck before the delete).
    await page
      .getByTestId('slide-preview')
      .click({ force: true })
      .catch(() => undefined)
    await list.locator('[aria-current="true"]').focus()
    await page.keyboard.press('Control+z')
    await expect.poll(async () => slideIds(name), { timeout: 20_000 }).toEqual(moved)

    // A slide dragged onto another's place in the list moves there.
    await list.locator('[data-slide="1"]').dragTo(list.locator('[data-slide="3"]'))
    await expect
      .poll(async () => slideIds(name), { timeout: 20_000 })
      .toEqual([moved[1], moved[2], moved[0], ...moved.slice(3)])
    expect(await list.locator('[aria-current="true"]').getAttribute('data-slide')).toBe('3')

    // Speaker notes of the current slide.
    await list.locator('[data-slide="1"]').click()
    const notes = page.getByRole('textbox', { name: 'Speaker notes of slide 1' })
    await notes.fill('Welcome everyone')
    await notes.blur()
    await expect
      .poll(
        async () => {
          const parts = await unzipParts(onDisk(name))
          return [...parts].some(
            ([path, bytes]) => path.startsWith('ppt/notesSlides/') && bytes.toString().includes('Welcome everyone'),
          )
        },
        { timeout: 20_000 },
      )
      .toBe(true)

    // The saves are the person's version in History (one editing session, spec 08), the original too.
    await page.getByRole('button', { name: 'File history' }).click()
    const versions = page.getByTestId('history-version')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
    expect(await page.getByTestId('history-list').textContent()).toContain('You edited')
    expect(await page.getByTestId('history-list').textContent()).toContain('Original')
    await page.screenshot({ path: join(ARTIFACTS, 'slides-list.png') })

    if (SOFFICE) expect(pdfPages(join(root, name))).toBe((await slideIds(name)).length)
    await close(page, watch)
  })
})
