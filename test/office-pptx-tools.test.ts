import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { DOCUMENT_READ_MAX_CHARS, type DocumentEdit } from '../src/shared/office/document-edits'
import { diffPptx } from '../src/shared/office/pptx-diff'
import { editPptx } from '../src/shared/office/pptx-edit'
import { readPptxView } from '../src/shared/office/pptx-view'
import { changedParts, corpusFile, makeDocx, makePptx, unzipParts, zipParts } from './support/office-fixtures'
import { deflatedRepeat, MiB, zip, type ZipPart } from './support/office-bombs'
import { tempDir } from './support/temp'

const DECK = 'poi-aptia-slides-images.pptx'
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: the LibreOffice reopen checks — ${detection.reason}`)

async function view(bytes: Uint8Array, request = {}): Promise<string> {
  const outcome = await readPptxView(bytes, request)
  if (outcome.kind !== 'ok') throw new Error(`read refused: ${outcome.reason} ${outcome.message}`)
  return outcome.text
}

async function edited(bytes: Uint8Array, edits: DocumentEdit[]) {
  const outcome = await editPptx(bytes, edits)
  if (outcome.kind !== 'ok')
    throw new Error(`edit refused: ${outcome.reason} ${outcome.message} (edit ${outcome.edit_index})`)
  return outcome
}

/** Slide anchor lines (`[s3] slide 3 …`) of a view, for the order. */
function slideHeadings(text: string): string[] {
  return text.split('\n').filter((line) => /^\[s\d+\] slide/.test(line))
}

/**
 * The package's own consistency, as a reader would check it: every internal relationship target
 * exists, every override names an existing part, every part has a content type, and the slide
 * list has unique ids and relationship ids that resolve to slides.
 */
async function expectConsistentPackage(bytes: Uint8Array): Promise<void> {
  const parts = await unzipParts(bytes)
  const problems: string[] = []
  const types = parts.get('[Content_Types].xml')?.toString('utf8') ?? ''
  const overrides = [...types.matchAll(/<Override[^>]*PartName="([^"]+)"/g)].map((m) => (m[1] ?? '').slice(1))
  const defaults = [...types.matchAll(/<Default[^>]*Extension="([^"]+)"/g)].map((m) => (m[1] ?? '').toLowerCase())
  for (const name of overrides) if (!parts.has(name)) problems.push(`override for missing part ${name}`)
  for (const name of parts.keys()) {
    if (name === '[Content_Types].xml') continue
    const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase()
    if (!overrides.includes(name) && !defaults.includes(extension)) problems.push(`no content type for ${name}`)
  }
  for (const [name, content] of parts) {
    const match = /^(.*?)_rels\/([^/]+)\.rels$/.exec(name)
    if (!match) continue
    const owner = `${match[1]}${match[2]}`
    if (name !== '_rels/.rels' && !parts.has(owner)) problems.push(`relationships of missing part ${owner}`)
    const folder = (match[1] ?? '').split('/').filter(Boolean)
    const ids = new Set<string>()
    for (const rel of content.toString('utf8').matchAll(/<Relationship ([^>]*)\/?>/g)) {
      const attributes = rel[1] ?? ''
      const id = /Id="([^"]+)"/.exec(attributes)?.[1] ?? ''
      if (ids.has(id)) problems.push(`${name}: duplicate id ${id}`)
      ids.add(id)
      if (attributes.includes('TargetMode="External"')) continue
      const target = /Target="([^"]+)"/.exec(attributes)?.[1] ?? ''
      const segments = target.startsWith('/') ? [] : [...folder]
      for (const segment of target.split('/')) {
        if (segment === '..') segments.pop()
        else if (segment !== '' && segment !== '.') segments.push(segment)
      }
      if (!parts.has(segments.join('/'))) problems.push(`${name}: ${id} points at missing ${segments.join('/')}`)
    }
  }
  const presentation = parts.get('ppt/presentation.xml')?.toString('utf8') ?? ''
  const presentationRels = parts.get('ppt/_rels/presentation.xml.rels')?.toString('utf8') ?? ''
  const slideIds = [...presentation.matchAll(/<p:sldId id="(\d+)" r:id="([^"]+)"/g)]
  if (new Set(slideIds.map((m) => m[1])).size !== slideIds.length) problems.push('duplicate slide ids')
  for (const [, id, rid] of slideIds) {
    if (Number(id) < 256) problems.push(`slide id ${id} below 256`)
    if (!new RegExp(`Id="${rid}" Type="${REL}/slide"`).test(presentationRels))
      problems.push(`sldId ${id}: ${rid} is not a slide relationship`)
  }
  expect(problems).toEqual([])
}

/** Converts decks to PDF in one LibreOffice call; page counts by file name. */
function libreOfficePages(files: Record<string, Uint8Array>): Map<string, number> | undefined {
  if (detection.kind !== 'found') return undefined
  const dir = tempDir('retrace-pptx-lo-')
  const paths = Object.entries(files).map(([name, bytes]) => {
    const path = join(dir, name)
    writeFileSync(path, bytes)
    return path
  })
  execFileSync(
    detection.install.soffice,
    [
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      join(dir, 'out'),
      ...paths,
    ],
    { stdio: 'ignore', timeout: 180_000 },
  )
  const pages = new Map<string, number>()
  for (const name of readdirSync(join(dir, 'out'))) {
    const pdf = readFileSync(join(dir, 'out', name)).toString('latin1')
    pages.set(name.replace(/\.pdf$/, ''), pdf.match(/\/Type\s*\/Page[^s]/g)?.length ?? 0)
  }
  return pages
}

describe('read of a presentation', () => {
  test('the real deck: slides in order with layouts, shape and table-cell anchors, placeholders, notes and pictures', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const text = await view(deck)
    expect(text).toMatch(/^PPTX presentation: 9 slides; showing slides 1–9\./)
    expect(slideHeadings(text)).toEqual([
      '[s1] slide 1 — layout "Title Slide"',
      '[s2] slide 2 — layout "Title and Content"',
      '[s3] slide 3 — layout "Title and Content"',
      '[s4] slide 4 — layout "Title and Content"',
      '[s5] slide 5 — layout "Title and Content"',
      '[s6] slide 6 — layout "Title and Content"',
      '[s7] slide 7 — layout "Title and Content"',
      '[s8] slide 8 — layout "Title and Content"',
      '[s9] slide 9 — layout "Title Slide"',
    ])
    expect(text).toContain('[s2.sh3] (ctrTitle) Award modernisation overview\n')
    expect(text).toContain('[s2.sh2] (obj)\n  2008-09 — Award modernisation\n')
    // A soft line break is shown as <br>, a table cell by row and column, notes read-only.
    expect(text).toContain('[s1.sh4]\n  Role of the Fair Work Commission<br>in the 4 yearly review of modern awards\n')
    expect(text).toContain('[s5.sh8.r2.c2] 1C\n')
    expect(text).toContain('(notes) Stage 3 and 4 timetable yet to be finalised.')
    expect(text).toContain('[s9.sh2] (title, empty)\n')
    expect(text).toContain('[s9.sh1026] picture "Picture 2" (no text)')
  })

  test('offset and limit page by slides and the view says how to read on', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const text = await view(deck, { offset: 3, limit: 2 })
    expect(slideHeadings(text).map((line) => line.slice(0, 4))).toEqual(['[s3]', '[s4]'])
    expect(text).toContain('showing slides 3–4')
    expect(text).toContain('Slides 5–9 are not shown; read on with offset=5.')
    expect(await view(deck, { offset: 12 })).toContain('offset 12 is past the last slide')
  })

  test('the view is bounded: it stops at a slide boundary and says where to read on', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const long = 'A long bullet about the award review. '.repeat(100)
    const grown = await edited(
      deck,
      Array.from({ length: 20 }, (): DocumentEdit => ({ op: 'add_slide', after: 9, title: 'More', body: long })),
    )
    const text = await view(grown.bytes)
    expect(text.length).toBeLessThanOrEqual(DOCUMENT_READ_MAX_CHARS)
    const shown = slideHeadings(text).length
    expect(shown).toBeGreaterThan(9)
    expect(shown).toBeLessThan(29)
    expect(text).toContain(
      `The view is bounded. Slides ${shown + 1}–29 are not shown; read on with offset=${shown + 1}.`,
    )
    expect(await view(grown.bytes, { offset: shown + 1 })).toContain(`[s${shown + 1}] slide ${shown + 1}`)
  })

  test('a slide part that inflates past the bounds is refused as too large, for read and edit', async () => {
    const parts = await unzipParts(await makePptx())
    const bomb = await deflatedRepeat(Buffer.from('<a:p/>'.repeat(1024)), 64 * MiB)
    const deck = zip(
      [...parts].map(([name, content]): ZipPart =>
        name === 'ppt/slides/slide1.xml' ? { name, deflated: bomb } : { name, stored: content.toString('utf8') },
      ),
    )
    expect(await readPptxView(deck, {})).toMatchObject({ kind: 'refused', reason: 'too-large' })
    expect(await editPptx(deck, [{ op: 'replace_text', anchor: 's1.sh2', text: 'x' }])).toMatchObject({
      kind: 'refused',
      reason: 'too-large',
      edit_index: 0,
    })
  })

  test('a shape inside markup-compatibility alternatives is listed once, from its first choice', async () => {
    const parts = await unzipParts(await makePptx())
    const files: Record<string, string | Uint8Array> = Object.fromEntries(parts)
    const shape = (text: string) =>
      `<p:sp><p:nvSpPr><p:cNvPr id="7" name="Equation"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`
    files['ppt/slides/slide2.xml'] = (parts.get('ppt/slides/slide2.xml')?.toString('utf8') ?? '').replace(
      '</p:spTree>',
      `<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main"><mc:Choice Requires="a14">${shape('E = mc²')}</mc:Choice><mc:Fallback>${shape('picture of E = mc²')}</mc:Fallback></mc:AlternateContent></p:spTree>`,
    )
    const text = await view(await zipParts(files))
    expect(text.match(/\[s2\.sh7\].*/g)).toEqual(['[s2.sh7] E = mc²'])
  })

  test('a hidden slide is marked', async () => {
    const parts = await unzipParts(await makePptx())
    const files: Record<string, string | Uint8Array> = Object.fromEntries(parts)
    files['ppt/slides/slide2.xml'] = (parts.get('ppt/slides/slide2.xml')?.toString('utf8') ?? '').replace(
      '<p:sld ',
      '<p:sld show="0" ',
    )
    expect(slideHeadings(await view(await zipParts(files)))).toEqual([
      '[s1] slide 1 — layout "Blank"',
      '[s2] slide 2 — layout "Blank" (hidden)',
    ])
  })

  test('refusals: an encrypted (OLE) file, a damaged file, a Word document', async () => {
    const ole = new Uint8Array(4096)
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])
    expect(await readPptxView(ole, {})).toMatchObject({ kind: 'refused', reason: 'encrypted' })
    const damaged = new TextEncoder().encode('PK\u0003\u0004 not really a zip')
    expect(await readPptxView(damaged, {})).toMatchObject({ kind: 'refused', reason: 'damaged' })
    const docx = await makeDocx('<w:p><w:r><w:t>Hello</w:t></w:r></w:p>')
    expect(await readPptxView(docx, {})).toMatchObject({ kind: 'refused', reason: 'wrong-format' })
    expect(await editPptx(ole, [{ op: 'delete_slide', slide: 1 }])).toMatchObject({
      kind: 'refused',
      reason: 'encrypted',
    })
  })
})

describe('office_edit of a presentation', () => {
  test('replace_text keeps the formatting of the text that stays and changes only that slide part', async () => {
    const deck = await makePptx()
    const result = await edited(deck, [
      { op: 'replace_text', anchor: 's1.sh3', text: 'Revenue grew 15% this year\nCosts<br>stayed low' },
    ])
    expect(result.summary).toEqual(['s1.sh3: text replaced (2 paragraphs)'])
    expect(await changedParts(deck, result.bytes)).toEqual(['ppt/slides/slide1.xml'])
    const slide = (await unzipParts(result.bytes)).get('ppt/slides/slide1.xml')?.toString('utf8') ?? ''
    // The bold run keeps its properties with its new text; the break stays a break.
    expect(slide).toContain('<a:r><a:rPr lang="en-US" b="1"/><a:t>15%</a:t></a:r>')
    expect(slide).toContain('<a:t>Costs</a:t></a:r><a:br><a:rPr lang="en-US"/></a:br>')
    expect(await view(result.bytes)).toContain('[s1.sh3]\n  Revenue grew 15% this year\n  Costs<br>stayed low\n')
  })

  test('a table cell is edited by its anchor', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const result = await edited(deck, [{ op: 'replace_text', anchor: 's5.sh8.r2.c2', text: '2A' }])
    expect(await changedParts(deck, result.bytes)).toEqual(['ppt/slides/slide5.xml'])
    expect(await view(result.bytes, { offset: 5, limit: 1 })).toContain('[s5.sh8.r2.c2] 2A\n')
  })

  test('add, duplicate, delete and move slides of the real deck: new order, consistent package, untouched parts byte-identical, LibreOffice reopens it', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const result = await edited(deck, [
      { op: 'replace_text', anchor: 's2.sh3', text: 'Award modernisation at a glance' },
      { op: 'add_slide', after: 2, title: 'Timeline', body: 'Stage 1\nStage 2<br>and 3' },
      { op: 'duplicate_slide', slide: 4 },
      { op: 'delete_slide', slide: 8 },
      { op: 'move_slide', slide: 9, to: 1 },
    ])
    expect(result.summary).toEqual([
      's2.sh3: text replaced (1 paragraph)',
      'added slide 4 (layout "Title and Content")',
      'slide 4 duplicated: the copy is slide 7',
      'slide 8 deleted',
      'slide 9 moved to position 1',
    ])
    const text = await view(result.bytes)
    expect(text).toMatch(/^PPTX presentation: 10 slides/)
    const titles = text
      .split('\n')
      .filter((line) => /^\[s\d+\.sh\d+\] \((ctrTitle|title)/.test(line))
      .map((line) => line.replace(/^\[(s\d+)\.sh\d+\] \(\w+(, empty)?\) ?/, '$1 '))
    expect(titles).toEqual([
      's1 ',
      's3 Award modernisation at a glance',
      's4 Timeline',
      's5 Common issues',
      's6 Award stage<br>',
      's7 Award stage<br>',
      's8 APTIA awards',
      's9 Steps in award stage',
      's10 Technical and drafting changes in exposure drafts',
    ])
    expect(text).toContain('[s4.sh3] (obj)\n  Stage 1\n  Stage 2<br>and 3\n')
    // The copy of slide 4 has its own copy of the speaker notes.
    expect(text.split('(notes) Stage 3 and 4 timetable yet to be finalised.').length - 1).toBe(2)

    const before = await unzipParts(deck)
    const after = await unzipParts(result.bytes)
    expect((await changedParts(deck, result.bytes)).sort()).toEqual(
      [
        '[Content_Types].xml',
        'docProps/app.xml',
        'ppt/_rels/presentation.xml.rels',
        'ppt/presentation.xml',
        'ppt/slides/slide2.xml',
        // Slide 8 (no notes, no pictures) goes with its relationships.
        'ppt/slides/slide8.xml',
        'ppt/slides/_rels/slide8.xml.rels',
        // The new slide, the copy of slide 4 and the copy of its notes.
        'ppt/slides/slide10.xml',
        'ppt/slides/_rels/slide10.xml.rels',
        'ppt/slides/slide11.xml',
        'ppt/slides/_rels/slide11.xml.rels',
        'ppt/notesSlides/notesSlide4.xml',
        'ppt/notesSlides/_rels/notesSlide4.xml.rels',
      ].sort(),
    )
    expect(after.has('ppt/slides/slide8.xml')).toBe(false)
    for (const [name, bytes] of after)
      if (before.has(name) && !(await changedParts(deck, result.bytes)).includes(name))
        expect(bytes.equals(before.get(name) as Buffer)).toBe(true)
    expect(after.get('docProps/app.xml')?.toString('utf8')).toContain('<Slides>10</Slides>')
    await expectConsistentPackage(result.bytes)

    const pages = libreOfficePages({ 'original.pptx': deck, 'edited.pptx': result.bytes })
    if (pages) {
      expect(pages.get('original')).toBe(9)
      expect(pages.get('edited')).toBe(10)
    }
  }, 200_000)

  test('deleting slides removes their notes and the pictures only they used, keeps shared ones, and leaves no dangling relationship', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const result = await edited(deck, [
      { op: 'delete_slide', slide: 7 },
      { op: 'delete_slide', slide: 9 },
    ])
    const after = await unzipParts(result.bytes)
    expect(after.has('ppt/slides/slide7.xml')).toBe(false)
    expect(after.has('ppt/notesSlides/notesSlide3.xml')).toBe(false)
    expect(after.has('ppt/notesSlides/_rels/notesSlide3.xml.rels')).toBe(false)
    // image2.jpeg is also on the layouts, image5.png was slide 9's alone.
    expect(after.has('ppt/media/image2.jpeg')).toBe(true)
    expect(after.has('ppt/media/image5.png')).toBe(false)
    expect(after.has('ppt/slideLayouts/slideLayout2.xml')).toBe(true)
    await expectConsistentPackage(result.bytes)
    expect(slideHeadings(await view(result.bytes))).toHaveLength(7)
  })

  test('the small deck: add a first slide, move and duplicate, then read shows the new order', async () => {
    const deck = await makePptx()
    const result = await edited(deck, [
      { op: 'duplicate_slide', slide: 2 },
      { op: 'move_slide', slide: 1, to: 3 },
      { op: 'add_slide', after: 0 },
    ])
    const text = await view(result.bytes)
    expect(slideHeadings(text)).toHaveLength(4)
    expect(text.match(/^\[s\d\.sh2\] .*$/gm)).toEqual([
      '[s2.sh2] Second slide',
      '[s3.sh2] Second slide',
      '[s4.sh2] Quarterly review',
    ])
    // The copy shares the picture rather than copying it.
    const parts = await unzipParts(result.bytes)
    expect(parts.get('ppt/slides/_rels/slide3.xml.rels')?.toString('utf8')).toContain('Target="../media/image1.png"')
    expect([...parts.keys()].filter((name) => name.startsWith('ppt/media/'))).toEqual(['ppt/media/image1.png'])
    await expectConsistentPackage(result.bytes)
  })
})

describe('sections', () => {
  test('PowerPoint sections follow the new order: deleted ids leave, new and moved slides join the section they land in', async () => {
    const parts = await unzipParts(await makePptx())
    const files: Record<string, string | Uint8Array> = Object.fromEntries(parts)
    const sections =
      '<p:extLst><p:ext uri="{521415D9-36F7-43E2-AB2F-B90AF26B5E84}"><p14:sectionLst xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main">' +
      '<p14:section name="Intro" id="{A0000000-0000-0000-0000-000000000001}"><p14:sldIdLst><p14:sldId id="256"/></p14:sldIdLst></p14:section>' +
      '<p14:section name="Details" id="{A0000000-0000-0000-0000-000000000002}"><p14:sldIdLst><p14:sldId id="257"/></p14:sldIdLst></p14:section>' +
      '</p14:sectionLst></p:ext></p:extLst>'
    files['ppt/presentation.xml'] = (parts.get('ppt/presentation.xml')?.toString('utf8') ?? '').replace(
      '</p:presentation>',
      `${sections}</p:presentation>`,
    )
    const deck = await zipParts(files)
    const sectionIds = async (bytes: Uint8Array) => {
      const xml = (await unzipParts(bytes)).get('ppt/presentation.xml')?.toString('utf8') ?? ''
      return [...xml.matchAll(/<p14:section name="(\w+)"[^>]*><p14:sldIdLst>(.*?)<\/p14:sldIdLst>/g)].map(
        (m) => `${m[1]}: ${[...(m[2] ?? '').matchAll(/id="(\d+)"/g)].map((id) => id[1]).join(' ')}`,
      )
    }
    const added = await edited(deck, [
      { op: 'add_slide', after: 1 },
      { op: 'duplicate_slide', slide: 2 },
    ])
    expect(await sectionIds(added.bytes)).toEqual(['Intro: 256 258', 'Details: 257 259'])
    const moved = await edited(deck, [{ op: 'move_slide', slide: 2, to: 1 }])
    expect(await sectionIds(moved.bytes)).toEqual(['Intro: 257 256', 'Details: '])
    const deleted = await edited(deck, [{ op: 'delete_slide', slide: 1 }])
    expect(await sectionIds(deleted.bytes)).toEqual(['Intro: ', 'Details: 257'])
    await expectConsistentPackage(added.bytes)
  })
})

describe('refusals change nothing', () => {
  test('a bad anchor, a missing slide, a DOCX or XLSX operation, and a failing edit after good ones', async () => {
    const deck = await makePptx()
    const cases: Array<[DocumentEdit[], string, number]> = [
      [[{ op: 'replace_text', anchor: 'p12', text: 'x' }], 'missing-anchor', 0],
      [[{ op: 'replace_text', anchor: 's1.sh99', text: 'x' }], 'missing-anchor', 0],
      [[{ op: 'replace_text', anchor: 's3.sh2', text: 'x' }], 'no-such-slide', 0],
      [[{ op: 'set_cells', range: 'A1', values: [[1]] }], 'wrong-format', 0],
      [[{ op: 'insert_paragraph', after: 'p1', text: 'x' }], 'wrong-format', 0],
      [[{ op: 'add_slide', after: 5 }], 'no-such-slide', 0],
      [[{ op: 'move_slide', slide: 1, to: 3 }], 'no-such-slide', 0],
      [
        [
          { op: 'replace_text', anchor: 's1.sh2', text: 'Changed' },
          { op: 'delete_slide', slide: 2 },
          { op: 'duplicate_slide', slide: 2 },
        ],
        'no-such-slide',
        2,
      ],
      // The blank layout has no title placeholder to put a title in.
      [[{ op: 'add_slide', after: 1, title: 'New' }], 'unsupported-content', 0],
    ]
    for (const [edits, reason, index] of cases) {
      const outcome = await editPptx(deck, edits)
      expect(outcome, JSON.stringify(edits)).toMatchObject({ kind: 'refused', reason, edit_index: index })
      expect(outcome.kind === 'refused' && outcome.message.length > 10).toBe(true)
    }
  })

  test('a cell covered by a merge is not listed and is refused as merged-cell', async () => {
    const parts = await unzipParts(await makePptx())
    const files: Record<string, string | Uint8Array> = Object.fromEntries(parts)
    const cell = (text: string, attributes = '') =>
      `<a:tc${attributes}><a:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r></a:p></a:txBody><a:tcPr/></a:tc>`
    const table = `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="Table 4"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/><a:ext cx="6096000" cy="741680"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid><a:gridCol w="3048000"/><a:gridCol w="3048000"/></a:tblGrid><a:tr h="370840">${cell('Merged heading', ' gridSpan="2"')}${cell('', ' hMerge="1"')}</a:tr><a:tr h="370840">${cell('Left')}${cell('Right')}</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
    files['ppt/slides/slide2.xml'] = (parts.get('ppt/slides/slide2.xml')?.toString('utf8') ?? '').replace(
      '</p:spTree>',
      `${table}</p:spTree>`,
    )
    const deck = await zipParts(files)
    const text = await view(deck)
    expect(text).toContain('[s2.sh5.r1.c1] Merged heading\n[s2.sh5.r2.c1] Left\n[s2.sh5.r2.c2] Right\n')
    expect(text).not.toContain('[s2.sh5.r1.c2]')
    expect(await editPptx(deck, [{ op: 'replace_text', anchor: 's2.sh5.r1.c2', text: 'x' }])).toMatchObject({
      kind: 'refused',
      reason: 'merged-cell',
      edit_index: 0,
    })
    const result = await edited(deck, [{ op: 'replace_text', anchor: 's2.sh5.r2.c2', text: 'Right side' }])
    expect(await view(result.bytes)).toContain('[s2.sh5.r2.c2] Right side\n')
    const diff = await diffPptx(deck, result.bytes)
    expect(diff.slides[0]?.shapes).toEqual([
      {
        shape: 'sh5.r2.c2',
        name: 'Table 4',
        change: 'changed',
        segments: [
          { kind: 'same', text: 'Right' },
          { kind: 'added', text: ' side' },
        ],
      },
    ])
  })

  test('a slide with a chart is not duplicated, and a slide another slide links to is not deleted', async () => {
    const parts = await unzipParts(await makePptx())
    const files: Record<string, string | Uint8Array> = Object.fromEntries(parts)
    files['ppt/slides/_rels/slide2.xml.rels'] = (
      parts.get('ppt/slides/_rels/slide2.xml.rels')?.toString('utf8') ?? ''
    ).replace(
      '</Relationships>',
      `<Relationship Id="rId9" Type="${REL}/chart" Target="../charts/chart1.xml"/></Relationships>`,
    )
    files['ppt/charts/chart1.xml'] = '<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"/>'
    files['ppt/slides/_rels/slide1.xml.rels'] = (
      parts.get('ppt/slides/_rels/slide1.xml.rels')?.toString('utf8') ?? ''
    ).replace('</Relationships>', `<Relationship Id="rId7" Type="${REL}/slide" Target="slide2.xml"/></Relationships>`)
    const deck = await zipParts(files)
    expect(await editPptx(deck, [{ op: 'duplicate_slide', slide: 2 }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
      edit_index: 0,
      message: expect.stringContaining('chart'),
    })
    expect(await editPptx(deck, [{ op: 'delete_slide', slide: 2 }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
      edit_index: 0,
      message: expect.stringContaining('slide 1 links to it'),
    })
    // Deleting the linking slide too leaves nothing dangling.
    const both = await edited(deck, [
      { op: 'delete_slide', slide: 1 },
      { op: 'delete_slide', slide: 2 },
    ])
    await expectConsistentPackage(both.bytes)
    expect(await view(both.bytes)).toContain('PPTX presentation: no slides.')
    // An empty deck takes a new slide on its master's first layout.
    const again = await edited(both.bytes, [{ op: 'add_slide', after: 0 }])
    await expectConsistentPackage(again.bytes)
    expect(slideHeadings(await view(again.bytes))).toEqual(['[s1] slide 1 — layout "Blank"'])
  })
})

describe('the slide diff', () => {
  test('the diff of the original and the edited real deck: slides added, removed, moved and changed words', async () => {
    const deck = corpusFile(DECK)
    if (!deck) return
    const result = await edited(deck, [
      { op: 'replace_text', anchor: 's2.sh3', text: 'Award modernisation at a glance' },
      { op: 'add_slide', after: 2, title: 'Timeline', body: 'Stage 1' },
      { op: 'delete_slide', slide: 8 },
      { op: 'move_slide', slide: 9, to: 1 },
    ])
    const diff = await diffPptx(deck, result.bytes)
    expect(diff.counts).toEqual({ slides_added: 1, slides_removed: 1, slides_changed: 1, slides_moved: 1 })
    expect(diff.slides.map((s) => [s.change, s.before_index, s.after_index, s.title])).toEqual([
      ['moved', 9, 1, ''],
      ['changed', 2, 3, 'Award modernisation at a glance'],
      ['added', null, 4, 'Timeline'],
      ['removed', 8, null, 'Group 1A & 1B awards decision'],
    ])
    const changed = diff.slides[1]?.shapes ?? []
    expect(changed).toEqual([
      {
        shape: 'sh3',
        name: 'Title 2',
        change: 'changed',
        segments: [
          { kind: 'same', text: 'Award modernisation ' },
          { kind: 'removed', text: 'overview' },
          { kind: 'added', text: 'at a glance' },
        ],
      },
    ])
    expect(diff.slides[2]?.shapes.map((s) => [s.change, s.segments])).toEqual([
      ['added', [{ kind: 'added', text: 'Timeline' }]],
      ['added', [{ kind: 'added', text: 'Stage 1' }]],
    ])
    // A picture that goes is listed with no text.
    const withoutPicture = await diffPptx(deck, (await edited(deck, [{ op: 'delete_slide', slide: 9 }])).bytes)
    expect(withoutPicture.slides[0]?.shapes).toContainEqual({
      shape: 'sh1026',
      name: 'Picture 2',
      change: 'removed',
      segments: [],
    })
  })

  test('a new slide at the front moves nothing; absent sides are all added or all removed', async () => {
    const deck = await makePptx()
    const result = await edited(deck, [
      { op: 'add_slide', after: 0 },
      { op: 'duplicate_slide', slide: 2 },
    ])
    const diff = await diffPptx(deck, result.bytes)
    expect(diff.counts).toEqual({ slides_added: 2, slides_removed: 0, slides_changed: 0, slides_moved: 0 })
    expect(diff.slides.map((s) => [s.change, s.after_index])).toEqual([
      ['added', 1],
      ['added', 4],
    ])
    expect((await diffPptx(null, deck)).counts).toEqual({
      slides_added: 2,
      slides_removed: 0,
      slides_changed: 0,
      slides_moved: 0,
    })
    expect((await diffPptx(deck, null)).counts).toEqual({
      slides_added: 0,
      slides_removed: 2,
      slides_changed: 0,
      slides_moved: 0,
    })
    expect((await diffPptx(deck, deck)).slides).toEqual([])
    // A removed slide lists its text as removed.
    const removed = await diffPptx(deck, (await edited(deck, [{ op: 'delete_slide', slide: 2 }])).bytes)
    expect(removed.slides).toEqual([
      {
        before_index: 2,
        after_index: null,
        change: 'removed',
        title: '',
        shapes: [
          { shape: 'sh2', name: 'Note', change: 'removed', segments: [{ kind: 'removed', text: 'Second slide' }] },
        ],
      },
    ])
  })
})
