import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { changedParts, corpusFile, makePptx, unzipParts } from './support/office-fixtures'
import { LINE_BREAK, readShapeFrames, setShapeFrame } from '../src/shared/office/pptx'
import { editPptx } from '../src/shared/office/pptx-edit'
import { editSlideNotes, readSlideNotes } from '../src/shared/office/pptx-notes'

/**
 * What the slide editor writes (issue 27 item 2): a shape's frame in its slide part only, speaker
 * notes in the notes slide (or a new one on the notes master), and a deck after a run of slide
 * operations that LibreOffice opens with one page per slide.
 */

const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((path) => existsSync(path))
const DECK = 'poi-aptia-slides-images.pptx'

const slidePart = async (bytes: Uint8Array, name: string) => (await unzipParts(bytes)).get(name)?.toString() ?? ''

describe('shape frames', () => {
  test('reads each shape on the slide in EMU with the deck size', async () => {
    const frames = await readShapeFrames(await makePptx(), 1)
    expect(frames.width).toBe(9_144_000)
    expect(frames.height).toBe(6_858_000)
    expect(frames.shapes.map((s) => [s.id, s.name, s.kind, s.x, s.y, s.cx, s.cy])).toEqual([
      ['2', 'Title', 'text', 457_200, 457_200, 8_229_600, 1_143_000],
      ['3', 'Body', 'text', 457_200, 2_286_000, 8_229_600, 1_143_000],
    ])
  })

  test('moving and resizing rewrites a:off/a:ext of that shape in that slide part only', async () => {
    const before = await makePptx()
    const outcome = await setShapeFrame(before, { slide: 1, shapeId: '3', x: 100, y: 200.4, cx: 3000, cy: 4000 })
    expect(outcome.kind).toBe('ok')
    if (outcome.kind !== 'ok') return
    expect(await changedParts(before, outcome.bytes)).toEqual(['ppt/slides/slide1.xml'])
    const xml = await slidePart(outcome.bytes, 'ppt/slides/slide1.xml')
    expect(xml).toContain('<a:xfrm><a:off x="100" y="200"/><a:ext cx="3000" cy="4000"/></a:xfrm>')
    // The title's frame is as it was.
    expect(xml).toContain('<a:off x="457200" y="457200"/><a:ext cx="8229600" cy="1143000"/>')
    expect((await readShapeFrames(outcome.bytes, 1)).shapes[1]).toMatchObject({ x: 100, y: 200, cx: 3000, cy: 4000 })
  })

  test('a placeholder placed by its layout gets its own a:xfrm where it is dropped', async () => {
    const before = corpusFile(DECK)
    if (!before) return
    const frames = await readShapeFrames(before, 2)
    const xml = await slidePart(before, 'ppt/slides/slide2.xml')
    // A shape whose frame comes from the layout: no a:xfrm in its own p:spPr.
    const inherited = frames.shapes.find((shape) => {
      const at = xml.indexOf(`id="${shape.id}"`)
      const end = xml.indexOf('</p:spPr>', at)
      return at >= 0 && !xml.slice(at, end).includes('a:xfrm')
    })
    expect(inherited, 'slide 2 of the corpus deck has a placeholder without its own frame').toBeDefined()
    if (!inherited) return
    const outcome = await setShapeFrame(before, {
      slide: 2,
      shapeId: inherited.id,
      x: inherited.x + 91_440,
      y: inherited.y,
      cx: inherited.cx,
      cy: inherited.cy,
    })
    if (outcome.kind !== 'ok') throw new Error(outcome.message)
    expect(await changedParts(before, outcome.bytes)).toEqual(['ppt/slides/slide2.xml'])
    const moved = (await readShapeFrames(outcome.bytes, 2)).shapes.find((s) => s.id === inherited.id)
    expect(moved).toMatchObject({ x: inherited.x + 91_440, y: inherited.y, cx: inherited.cx, cy: inherited.cy })
  })

  test('refuses a frame that is not finite or has no size, and a shape that is not there', async () => {
    const bytes = await makePptx()
    for (const frame of [
      { x: Number.NaN, y: 0, cx: 1, cy: 1 },
      { x: 0, y: 0, cx: 0, cy: 10 },
      { x: 1e20, y: 0, cx: 10, cy: 10 },
    ]) {
      expect(await setShapeFrame(bytes, { slide: 1, shapeId: '2', ...frame })).toMatchObject({
        kind: 'refused',
        reason: 'bad-frame',
      })
    }
    expect(await setShapeFrame(bytes, { slide: 1, shapeId: '99', x: 0, y: 0, cx: 1, cy: 1 })).toMatchObject({
      kind: 'refused',
      reason: 'no-such-shape',
    })
    expect(await setShapeFrame(bytes, { slide: 9, shapeId: '2', x: 0, y: 0, cx: 1, cy: 1 })).toMatchObject({
      kind: 'refused',
      reason: 'no-such-slide',
    })
  })
})

describe('speaker notes', () => {
  test('an existing notes slide changes only its body text, formatting of kept text as written', async () => {
    const before = corpusFile(DECK)
    if (!before) return
    const notes = await readSlideNotes(before)
    const withNotes = notes.find((n) => n.paragraphs.some((p) => p.trim() !== ''))
    expect(withNotes).toBeDefined()
    if (!withNotes) return
    const paragraphs = [...withNotes.paragraphs, `Ask about the budget${LINE_BREAK}then close`]
    const outcome = await editSlideNotes(before, { slide: withNotes.slide, paragraphs })
    if (outcome.kind !== 'ok') throw new Error(outcome.message)
    expect(outcome.changedParts).toHaveLength(1)
    expect(await changedParts(before, outcome.bytes)).toEqual(outcome.changedParts)
    expect((await readSlideNotes(outcome.bytes))[withNotes.slide - 1]?.paragraphs).toEqual(paragraphs)
  })

  test('a slide without notes gets a notes slide on the notes master; without a master it is refused', async () => {
    const before = corpusFile(DECK)
    if (!before) return
    const bare = (await readSlideNotes(before)).find((n) => n.paragraphs.length === 0)
    expect(bare).toBeDefined()
    if (!bare) return
    const outcome = await editSlideNotes(before, { slide: bare.slide, paragraphs: ['First note'] })
    if (outcome.kind !== 'ok') throw new Error(outcome.message)
    expect((await readSlideNotes(outcome.bytes))[bare.slide - 1]?.paragraphs).toEqual(['First note'])
    const changed = await changedParts(before, outcome.bytes)
    expect(changed.sort()).toEqual(outcome.changedParts.sort())
    expect(changed).toContain('[Content_Types].xml')
    expect(await slidePart(outcome.bytes, '[Content_Types].xml')).toContain('notesSlide+xml')

    const plain = await makePptx()
    expect(await editSlideNotes(plain, { slide: 1, paragraphs: ['x'] })).toMatchObject({
      kind: 'refused',
      reason: 'no-notes-master',
    })
    // Nothing typed: nothing written, even without a master.
    expect(await editSlideNotes(plain, { slide: 1, paragraphs: [''] })).toMatchObject({ kind: 'ok', changedParts: [] })
  })
})

describe('LibreOffice opens what the slide editor saved', () => {
  test.runIf(SOFFICE !== undefined)(
    'after add, duplicate, delete, move, a frame and notes the PDF has one page per slide',
    async () => {
      const original = corpusFile(DECK)
      if (!original) return
      const slidesBefore = (await readSlideNotes(original)).length
      let bytes: Uint8Array = original
      for (const edits of [
        [{ op: 'add_slide', after: 1, title: 'Added on the slide list' }],
        [{ op: 'duplicate_slide', slide: 2 }],
        [{ op: 'delete_slide', slide: 4 }],
        [{ op: 'move_slide', slide: 1, to: 3 }],
      ] as const) {
        const outcome = await editPptx(bytes, edits)
        if (outcome.kind !== 'ok') throw new Error(outcome.message)
        bytes = outcome.bytes
      }
      const framed = await setShapeFrame(bytes, {
        slide: 1,
        shapeId: (await readShapeFrames(bytes, 1)).shapes[0]?.id ?? '',
        x: 0,
        y: 0,
        cx: 914_400,
        cy: 914_400,
      })
      if (framed.kind !== 'ok') throw new Error(framed.message)
      const noted = await editSlideNotes(framed.bytes, { slide: 2, paragraphs: ['Speaker notes'] })
      if (noted.kind !== 'ok') throw new Error(noted.message)
      const dir = mkdtempSync(join(tmpdir(), 'retrace-slides-lo-'))
      writeFileSync(join(dir, 'deck.pptx'), noted.bytes)
      execFileSync(
        SOFFICE ?? 'soffice',
        [
          `-env:UserInstallation=file://${join(dir, 'profile')}`,
          '--headless',
          '--convert-to',
          'pdf',
          '--outdir',
          dir,
          join(dir, 'deck.pptx'),
        ],
        { stdio: 'ignore', timeout: 120_000 },
      )
      const pdf = readdirSync(dir).find((name) => name.endsWith('.pdf'))
      expect(pdf).toBeDefined()
      const pages =
        readFileSync(join(dir, pdf ?? ''))
          .toString('latin1')
          .match(/\/Type\s*\/Page[^s]/g)?.length ?? 0
      expect(pages).toBe(slidesBefore + 1)
      expect((await readSlideNotes(noted.bytes)).length).toBe(slidesBefore + 1)
    },
    150_000,
  )
  test.skipIf(SOFFICE !== undefined)('skipped: LibreOffice (soffice) is not installed', () => {
    console.log('skipped: LibreOffice (soffice) is not installed, so the reopen check does not run')
  })
})
