import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { longPdf, PAPER, paperPdf } from '../e2e/support/pdf-fixtures'
import { writePdf } from '../e2e/support/pdf-writer'
import { detectLibreOffice } from '../src/main/core/office/libreoffice/detect'
import { annotatePdf } from '../src/main/core/documents/pdf-annotate'
import { diffPdf, PdfDiffError } from '../src/main/core/documents/pdf-diff'
import { loadPdf, PdfBudget, PdfBudgetExceeded } from '../src/main/core/documents/pdf-load'
import { readPdfView } from '../src/main/core/documents/pdf-view'
import {
  DOCUMENT_READ_MAX_CHARS,
  type DocumentEditOutcome,
  type DocumentReadOutcome,
} from '../src/shared/office/document-edits'
import { unzipParts } from './support/office-fixtures'
import { tempDir } from './support/temp'

/**
 * The agent's PDF tools in the engine (issue 26): the read view, `pdf_annotate` and Review's PDF
 * diff, on real corpus files and on generated ones. Saved files are re-read by pdf.js (through the
 * read view) and by qpdf, an independent decoder.
 */

const CORPUS = '/work/shared/corpus/pdf'
const corpus = (name: string) => new Uint8Array(readFileSync(join(CORPUS, name)))

const libreOffice = await detectLibreOffice()
if (libreOffice.kind === 'missing') console.warn(`pdf-tools: the LibreOffice check is skipped — ${libreOffice.reason}`)

const qpdfAvailable = spawnSync('qpdf', ['--version'], { stdio: 'ignore' }).status === 0
if (!qpdfAvailable) console.warn('pdf-tools: qpdf is not installed (Debian package qpdf): the qpdf checks are skipped')

/** qpdf --check: 0 = clean, 3 = warnings only, 2 = errors. */
function qpdfCheck(bytes: Uint8Array): { status: number | null; output: string } {
  const dir = tempDir('pdf-tools-')
  const file = join(dir, 'checked.pdf')
  writeFileSync(file, bytes)
  const run = spawnSync('qpdf', ['--check', file], { encoding: 'utf8', timeout: 20_000 })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

/**
 * The annotations qpdf finds in the file, every incremental update applied (pdf.js not involved).
 * Like e2e/support/pdf-page.ts's `annotationsOnDisk`, which cannot be imported here: that module
 * also drives a browser page and needs the DOM types.
 */
function onDisk(bytes: Uint8Array): Array<{ subtype: string; contents: string | null }> {
  const dir = tempDir('pdf-tools-')
  const file = join(dir, 'saved.pdf')
  writeFileSync(file, bytes)
  // qpdf exits 3 on warnings and still prints the JSON.
  const run = spawnSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 256 << 20 })
  const json = JSON.parse(run.stdout) as { qpdf: [unknown, Record<string, { value?: unknown }>] }
  const found: Array<{ subtype: string; contents: string | null }> = []
  for (const object of Object.values(json.qpdf[1])) {
    const value = object.value as Record<string, unknown> | undefined
    if (!value || typeof value !== 'object' || value['/Type'] !== '/Annot' || typeof value['/Subtype'] !== 'string')
      continue
    const contents = value['/Contents']
    found.push({
      subtype: value['/Subtype'].slice(1),
      contents: typeof contents === 'string' ? contents.replace(/^u:/, '') : null,
    })
  }
  return found
}

function viewText(outcome: DocumentReadOutcome): string {
  if (outcome.kind !== 'ok') throw new Error(`read refused: ${outcome.reason}: ${outcome.message}`)
  return outcome.text
}

function saved(outcome: DocumentEditOutcome): { bytes: Uint8Array; summary: string[] } {
  if (outcome.kind !== 'ok') throw new Error(`annotate refused: ${outcome.reason}: ${outcome.message}`)
  return outcome
}

const isPrefix = (prefix: Uint8Array, whole: Uint8Array) =>
  whole.length > prefix.length && Buffer.from(whole.subarray(0, prefix.length)).equals(Buffer.from(prefix))

/** A three-page report; `secondPage` changes what page 2 says, `pageCount` keeps the first pages only. */
function reportPdf(secondPage = 'The second page lists the results.', pageCount = 3): Buffer {
  return writePdf({
    title: 'Quarterly report',
    pages: [
      {
        texts: [
          { x: 72, y: 760, size: 18, text: 'Quarterly report' },
          { x: 72, y: 720, size: 11, text: 'Revenue grew by twelve percent in the quarter.' },
          { x: 72, y: 704, size: 11, text: 'Costs stayed flat while revenue grew again.' },
        ],
      },
      { texts: [{ x: 72, y: 760, size: 11, text: secondPage }] },
      { texts: [{ x: 72, y: 760, size: 11, text: 'Appendix: the raw numbers.' }] },
    ].slice(0, pageCount),
  })
}

describe('read view of a PDF', () => {
  test('shows the page text and the existing annotations with their ids, colours and quoted text', async () => {
    const text = viewText(await readPdfView(corpus('pdfjs-comments.pdf'), {}))
    expect(text.split('\n')[0]).toBe('PDF: 14 pages')
    expect(text).toContain('--- page 1 ---\nTrace-based Just-in-Time Type Specialization for Dynamic')
    expect(text).toContain(
      'page 1, highlight 612R (#ffff99): "Trace-based Just-in-Time" — note: Lorem ipsum dolor sit amet',
    )
    expect(text).toContain('page 1, stamp 713R — note: Image with a comment')
    // Popups repeat their parent's text and are not listed.
    expect(text).not.toMatch(/, popup /)
  })

  test('joins layout lines into paragraphs, spells out soft hyphens and split words, keeps CJK together', async () => {
    const text = viewText(await readPdfView(paperPdf(), { limit: 6 }))
    expect(text).toContain(`--- page 1 ---\n${PAPER.title}\n${PAPER.copied}\n`)
    expect(text).toContain(PAPER.cjkCopied)
    expect(text.split('\n')[0]).toBe(`PDF: 6 pages, title "${PAPER.title}"`)
    const chinese = viewText(await readPdfView(corpus('pdfjs-issue12823-chinese.pdf'), {}))
    expect(chinese).toContain('描述团队的共同目标，有利于团队成员理解目标并朝着目标努力。')
    const rotated = viewText(await readPdfView(corpus('pdfjs-rotation.pdf'), {}))
    expect(rotated).toContain('--- page 2 ---\nThis is my second page. It will have a landscape layout.')
  })

  test('pages through a 2 000-page PDF: 20 pages by default, then on from an offset', async () => {
    const long = longPdf(2_000)
    const first = viewText(await readPdfView(long, {}))
    expect(first).toContain('--- page 20 ---')
    expect(first).not.toContain('--- page 21 ---')
    expect(first).toContain('[pages 21–2000 not shown; read on with offset 21]')
    const tail = viewText(await readPdfView(long, { offset: 1_995, limit: 50 }))
    expect(tail).toContain('--- page 1995 ---\nPage 1995')
    expect(tail).toContain('--- page 2000 ---')
    expect(tail).not.toContain('not shown')
    const past = viewText(await readPdfView(long, { offset: 2_001 }))
    expect(past).toContain('offset 2001 is past the last page, 2000')
  })

  test('stops at the output bound between pages and says where to read on', async () => {
    const line = 'The quick brown fox jumps over the lazy dog while the report keeps going on and on.'
    const dense = writePdf({
      pages: Array.from({ length: 30 }, (_, p) => ({
        texts: Array.from({ length: 45 }, (_, i) => ({
          x: 40,
          y: 800 - i * 17,
          size: 9,
          text: `${p + 1}.${i + 1} ${line}`,
        })),
      })),
    })
    const first = viewText(await readPdfView(dense, {}))
    expect(first.length).toBeLessThanOrEqual(DOCUMENT_READ_MAX_CHARS)
    const next = /\[output limit of 60000 characters reached; read on with offset (\d+)\]$/u.exec(first)?.[1]
    expect(next).toBeDefined()
    expect(first).toContain(`--- page ${Number(next) - 1} ---`)
    expect(first).not.toContain(`--- page ${next} ---`)
    const more = viewText(await readPdfView(dense, { offset: Number(next) }))
    expect(more).toContain(`--- page ${next} ---\n${next}.1 The quick brown fox`)
  })

  test('refuses an encrypted PDF as encrypted and a damaged one as damaged', async () => {
    for (const bytes of [corpus('pdfjs-issue3371-encrypted.pdf'), paperPdf({ userPassword: 'secret' })]) {
      expect(await readPdfView(bytes, {})).toMatchObject({ kind: 'refused', reason: 'encrypted', edit_index: null })
    }
    expect(await readPdfView(corpus('pdfjs-bug1020226-truncated.pdf'), {})).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
    })
    expect(await readPdfView(new TextEncoder().encode('not a pdf at all'), {})).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
    })
  })
})

describe('pdf_annotate', () => {
  test('highlight, free-text note and sticky note: saved as an incremental update that pdf.js and qpdf reopen', async () => {
    const original = reportPdf()
    const before = Buffer.from(original)
    const result = saved(
      await annotatePdf(original, [
        { op: 'highlight', page: 1, text: 'twelve  percent', color: '#ff0000', note: 'Check this figure' },
        { op: 'note', page: 1, text: 'Source: finance team', near_text: 'Costs stayed flat' },
        { op: 'note', page: 2, text: 'Add the table here', style: 'sticky', at: { x: 300, y: 100 } },
      ]),
    )
    expect(Buffer.from(original).equals(before)).toBe(true)
    expect(isPrefix(original, result.bytes)).toBe(true)
    expect(result.summary).toHaveLength(3)
    expect(result.summary[0]).toMatch(/^page 1: highlighted "twelve percent" \(\d+R\) with a note$/)
    expect(result.summary[1]).toMatch(
      /^page 1: added a free-text note "Source: finance team" next to "Costs stayed flat" \(\d+R\)$/,
    )
    expect(result.summary[2]).toMatch(/^page 2: added a sticky note "Add the table here" \(\d+R\)$/)

    const view = viewText(await readPdfView(result.bytes, {}))
    expect(view).toMatch(/page 1, highlight \d+R \(#ff0000\): "twelve percent" — note: Check this figure/)
    expect(view).toMatch(/page 1, freetext \d+R \(#000000\) — text: Source: finance team/)
    expect(view).toMatch(/page 2, text \d+R \(#ffd400\) — note: Add the table here/)

    if (!qpdfAvailable) return
    expect(qpdfCheck(result.bytes)).toMatchObject({ status: 0 })
    const annotations = onDisk(result.bytes)
    expect(annotations).toEqual(
      expect.arrayContaining([
        { subtype: 'Highlight', contents: 'Check this figure' },
        { subtype: 'FreeText', contents: 'Source: finance team' },
        { subtype: 'Text', contents: 'Add the table here' },
      ]),
    )
  })

  test.runIf(libreOffice.kind === 'found')(
    'LibreOffice opens the annotated PDF, pages and free text included',
    async () => {
      if (libreOffice.kind !== 'found') return
      const result = saved(
        await annotatePdf(reportPdf(), [
          { op: 'highlight', page: 1, text: 'Revenue grew' },
          { op: 'note', page: 2, text: 'Seen by LibreOffice', at: { x: 72, y: 200 } },
          { op: 'note', page: 3, text: 'Sticky', style: 'sticky' },
        ]),
      )
      const dir = tempDir('pdf-tools-lo-')
      const file = join(dir, 'annotated.pdf')
      writeFileSync(file, result.bytes)
      const run = spawnSync(
        libreOffice.install.soffice,
        [
          `-env:UserInstallation=file://${join(dir, 'profile')}`,
          '--headless',
          '--convert-to',
          'odg',
          '--outdir',
          dir,
          file,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      )
      expect(run.status, run.stderr).toBe(0)
      const content =
        (await unzipParts(readFileSync(join(dir, 'annotated.odg')))).get('content.xml')?.toString('utf8') ?? ''
      expect(content.match(/<draw:page /gu)?.length).toBe(3)
      expect(content).toContain('Seen by LibreOffice')
    },
  )

  test('free-text notes on two pages in one call save without an unhandled rejection from pdf.js', async () => {
    const unhandled: unknown[] = []
    const collect = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', collect)
    try {
      const result = saved(
        await annotatePdf(reportPdf(), [
          { op: 'note', page: 1, text: 'First page note' },
          { op: 'note', page: 2, text: 'Second page note' },
          { op: 'note', page: 3, text: 'Third page note' },
        ]),
      )
      // pdf.js's repeated font arrives after the save resolved: let its callbacks run.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(unhandled.map(String)).toEqual([])
      const view = viewText(await readPdfView(result.bytes, {}))
      expect(view).toMatch(/page 3, freetext \d+R \(#000000\) — text: Third page note/)
    } finally {
      process.off('unhandledRejection', collect)
    }
  })

  test('a highlight of text running over a line break covers both lines', async () => {
    const original = reportPdf()
    const result = saved(
      await annotatePdf(original, [{ op: 'highlight', page: 1, text: 'in the quarter. Costs stayed' }]),
    )
    const diff = await diffPdf(original, result.bytes)
    const highlight = diff.annotations[0]?.after
    expect(highlight).toMatchObject({ type: 'highlight', quoted: 'in the quarter. Costs stayed' })
    // The two lines' baselines are 16 pt apart: the highlight spans both.
    const [, y1 = 0, , y2 = 0] = highlight?.rect ?? []
    expect(y2 - y1).toBeGreaterThan(16)
  })

  test('places a note given in points from the top-left corner of a rotated page inside the page', async () => {
    const rotated = corpus('pdfjs-rotation.pdf')
    const result = saved(
      await annotatePdf(rotated, [
        { op: 'note', page: 2, text: 'Landscape', at: { x: 40, y: 40 } },
        { op: 'highlight', page: 2, text: 'landscape layout' },
      ]),
    )
    const diff = await diffPdf(rotated, result.bytes)
    expect(diff.annotations.map((c) => [c.change, c.after?.type, c.after?.page])).toEqual(
      expect.arrayContaining([
        ['added', 'freetext', 2],
        ['added', 'highlight', 2],
      ]),
    )
    expect(diff.annotations.find((c) => c.after?.type === 'highlight')?.after?.quoted).toBe('landscape layout')
    // Page 2 is turned 90° clockwise: the top-left corner as shown is the PDF origin, and the box's
    // width as shown runs up the PDF's y axis.
    const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] =
      diff.annotations.find((c) => c.after?.type === 'freetext')?.after?.rect ?? []
    expect([x1, y1]).toEqual([40, 40])
    expect(y2 - y1).toBeGreaterThan(x2 - x1)
    if (qpdfAvailable) expect(qpdfCheck(result.bytes).status).toBe(0)
  })

  test('a sticky note in a PDF with cross-reference streams: the update adds no qpdf warning and reads back', async () => {
    const comments = corpus('pdfjs-comments.pdf')
    const result = saved(
      await annotatePdf(comments, [
        { op: 'note', page: 3, text: 'Relire ce passage — 再读一遍', style: 'sticky', near_text: 'trace' },
      ]),
    )
    expect(isPrefix(comments, result.bytes)).toBe(true)
    const id = /\((\d+R)\)$/u.exec(result.summary[0] ?? '')?.[1]
    const view = viewText(await readPdfView(result.bytes, { offset: 3, limit: 1 }))
    expect(view).toContain(`page 3, text ${id} (#ffd400) — note: Relire ce passage — 再读一遍`)
    if (!qpdfAvailable) return
    const warnings = (bytes: Uint8Array) =>
      qpdfCheck(bytes)
        .output.split('\n')
        .filter((line) => line.startsWith('WARNING'))
        .map((line) => line.replace(/^WARNING: \S+/u, 'WARNING:'))
    expect(warnings(result.bytes)).toEqual(warnings(comments))
    expect(onDisk(result.bytes)).toContainEqual({ subtype: 'Text', contents: 'Relire ce passage — 再读一遍' })
  })

  test('removes an existing annotation by the id the read view shows, with its popup', async () => {
    const comments = corpus('pdfjs-comments.pdf')
    const result = saved(await annotatePdf(comments, [{ op: 'remove', id: '612R' }]))
    expect(result.summary).toEqual(['page 1: removed highlight 612R'])
    expect(isPrefix(comments, result.bytes)).toBe(true)
    const view = viewText(await readPdfView(result.bytes, { limit: 1 }))
    expect(view).not.toContain('612R')
    expect(view).toContain('page 1, highlight 613R')
    if (qpdfAvailable) {
      // The corpus file already draws a qpdf warning; the save must add no error.
      expect(qpdfCheck(result.bytes).status).not.toBe(2)
      expect(onDisk(result.bytes).filter((a) => a.contents?.startsWith('Lorem ipsum'))).toEqual([])
    }
  })

  test('refuses precisely, with the index of the first refused edit, and saves nothing', async () => {
    const original = reportPdf()
    const copy = Buffer.from(original)
    const missing = await annotatePdf(original, [
      { op: 'highlight', page: 1, text: 'Revenue' },
      { op: 'highlight', page: 1, text: 'profit margin' },
    ])
    expect(missing).toMatchObject({ kind: 'refused', reason: 'no-text-found', edit_index: 1 })
    expect(missing.kind === 'refused' && missing.message).toContain('"profit margin" is not on page 1')
    expect(missing.kind === 'refused' && missing.message).toContain('Quarterly report')

    const third = await annotatePdf(original, [{ op: 'highlight', page: 1, text: 'grew', occurrence: 3 }])
    expect(third).toMatchObject({ kind: 'refused', reason: 'no-text-found', edit_index: 0 })
    expect(third.kind === 'refused' && third.message).toContain('"grew" occurs 2 times on page 1, not 3')

    expect(
      await annotatePdf(original, [
        { op: 'highlight', page: 1, text: 'Revenue' },
        { op: 'note', page: 0, text: 'x' },
      ]),
    ).toMatchObject({
      kind: 'refused',
      reason: 'missing-anchor',
      edit_index: 1,
    })
    expect(await annotatePdf(original, [{ op: 'note', page: 9, text: 'x' }])).toMatchObject({
      kind: 'refused',
      reason: 'missing-anchor',
      edit_index: 0,
    })
    expect(
      await annotatePdf(original, [
        { op: 'note', page: 1, text: 'fine' },
        { op: 'remove', id: '999R' },
      ]),
    ).toMatchObject({ kind: 'refused', reason: 'no-such-annotation', edit_index: 1 })
    expect(await annotatePdf(corpus('pdfjs-issue3371-encrypted.pdf'), [{ op: 'remove', id: '1R' }])).toMatchObject({
      kind: 'refused',
      reason: 'encrypted',
    })
    expect(await annotatePdf(corpus('pdfjs-bug1020226-truncated.pdf'), [{ op: 'remove', id: '1R' }])).toMatchObject({
      kind: 'refused',
      reason: 'damaged',
    })
    expect(Buffer.from(original).equals(copy)).toBe(true)
  })

  test('a PDF encrypted with an empty user password: highlights and free text are saved, a sticky note is refused', async () => {
    const encrypted = paperPdf({ userPassword: '' })
    const result = saved(
      await annotatePdf(encrypted, [
        { op: 'highlight', page: 1, text: 'Lattice methods', note: 'Définition' },
        { op: 'note', page: 1, text: 'Free text' },
      ]),
    )
    const view = viewText(await readPdfView(result.bytes, { limit: 1 }))
    expect(view).toMatch(/page 1, highlight \d+R \(#ffff98\): "Lattice methods" — note: Définition/)
    if (qpdfAvailable) expect(qpdfCheck(result.bytes).status).toBe(0)
    expect(
      await annotatePdf(encrypted, [
        { op: 'highlight', page: 1, text: 'Lattice methods' },
        { op: 'note', page: 1, text: 'x', style: 'sticky' },
      ]),
    ).toMatchObject({ kind: 'refused', reason: 'encrypted', edit_index: 1 })
  })

  test('an annotation written inline in the page (no object of its own) is named by page and place, and not removable', async () => {
    const pdf = writePdf({
      pages: [
        {
          texts: [{ x: 72, y: 760, size: 11, text: 'Inline note below.' }],
          notes: [{ rect: [72, 700, 92, 720], text: 'Inline' }],
        },
      ],
    })
    const view = viewText(await readPdfView(pdf, {}))
    expect(view).toContain('page 1, text p1.a1 — note: Inline')
    expect(await annotatePdf(pdf, [{ op: 'remove', id: 'p1.a1' }])).toMatchObject({
      kind: 'refused',
      reason: 'unsupported-content',
      edit_index: 0,
    })
  })
})

describe('PDF diff', () => {
  test('lists the added highlight and notes with page, colour and contents, and no page as changed', async () => {
    const original = reportPdf()
    const result = saved(
      await annotatePdf(original, [
        { op: 'highlight', page: 1, text: 'Costs stayed flat', color: '#53ffbc', note: 'Good news' },
        { op: 'note', page: 3, text: 'Numbers are from March', style: 'sticky' },
      ]),
    )
    const diff = await diffPdf(original, result.bytes)
    expect(diff.counts).toEqual({ added: 2, removed: 0, changed: 0, pages_changed: 0 })
    expect(diff.pages_changed).toEqual([])
    expect(diff.page_count).toEqual({ before: 3, after: 3 })
    expect(diff.annotations).toEqual([
      {
        change: 'added',
        before: null,
        after: expect.objectContaining({
          page: 1,
          type: 'highlight',
          color: '#53ffbc',
          contents: 'Good news',
          quoted: 'Costs stayed flat',
        }),
      },
      {
        change: 'added',
        before: null,
        after: expect.objectContaining({ page: 3, type: 'text', color: '#ffd400', contents: 'Numbers are from March' }),
      },
    ])
  })

  test('lists a removed annotation, and a null side as all added or all removed', async () => {
    const comments = corpus('pdfjs-comments.pdf')
    const result = saved(await annotatePdf(comments, [{ op: 'remove', id: '613R' }]))
    const diff = await diffPdf(comments, result.bytes)
    expect(diff.counts).toMatchObject({ added: 0, removed: 1, changed: 0 })
    expect(diff.annotations[0]).toMatchObject({
      change: 'removed',
      before: { id: '613R', page: 1, type: 'highlight', color: '#ff809e' },
    })

    const added = await diffPdf(null, comments)
    expect(added.counts.removed).toBe(0)
    expect(added.counts.added).toBeGreaterThan(10)
    expect(added.page_count).toEqual({ before: 0, after: 14 })
    const removed = await diffPdf(comments, null)
    expect(removed.counts).toMatchObject({ added: 0, removed: added.counts.added })
  })

  test('an annotation without an id is matched by page, type and place: a new text is a change', async () => {
    const withNote = (text: string) =>
      writePdf({
        pages: [{ texts: [{ x: 72, y: 760, size: 11, text: 'Body' }], notes: [{ rect: [72, 700, 92, 720], text }] }],
      })
    const diff = await diffPdf(withNote('First thought'), withNote('Second thought'))
    expect(diff.counts).toEqual({ added: 0, removed: 0, changed: 1, pages_changed: 0 })
    expect(diff.annotations).toEqual([
      {
        change: 'changed',
        before: expect.objectContaining({ id: 'p1.a1', type: 'text', contents: 'First thought' }),
        after: expect.objectContaining({ id: 'p1.a1', type: 'text', contents: 'Second thought' }),
      },
    ])
  })

  test('a content change on page 2 shows in pages_changed, and a page added at the end too', async () => {
    const diff = await diffPdf(reportPdf(), reportPdf('The second page lists the corrected results.'))
    expect(diff.pages_changed).toEqual([2])
    expect(diff.counts.pages_changed).toBe(1)
    const same = await diffPdf(reportPdf(), reportPdf())
    expect(same.pages_changed).toEqual([])
    const longer = await diffPdf(reportPdf(undefined, 2), reportPdf())
    expect(longer.pages_changed).toEqual([3])
    expect(longer.page_count).toEqual({ before: 2, after: 3 })
  })

  test('refuses an unreadable side with a reason Review can show', async () => {
    const error = await diffPdf(reportPdf(), corpus('pdfjs-issue3371-encrypted.pdf')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PdfDiffError)
    expect(error).toMatchObject({ reason: 'encrypted', side: 'after' })
  })
})

describe('the time budget of a PDF', () => {
  test('a pdf.js call that never settles ends with the budget, and loading past it is refused as a timeout', async () => {
    const budget = new PdfBudget(50)
    await expect(budget.run(new Promise<never>(() => undefined))).rejects.toBeInstanceOf(PdfBudgetExceeded)
    await expect(loadPdf(reportPdf(), budget)).resolves.toMatchObject({
      kind: 'refused',
      reason: 'too-large',
      timedOut: true,
    })
  })
})
