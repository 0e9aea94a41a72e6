import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { unzipParts, zipParts } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import { patternPixel, png } from './support/image-fixtures'
import { writePdf, type PdfSpec } from './support/pdf-writer'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * Issue 26 in Review and in approvals: a turn publishes new versions of a Word report, a
 * spreadsheet, a deck and a paper (real corpus files, edited as Office itself stores them); the
 * approval card shows what changes inside each document, and Review (This turn) shows the changed
 * words, cells, slides and annotations — all computed by the engine from the recorded blobs.
 */
const CORPUS = join(__dirname, '..', '..', 'shared', 'corpus')

async function edited(path: string, part: string, from: string, to: string): Promise<Buffer> {
  const parts = await unzipParts(readFileSync(path))
  const xml = parts.get(part)?.toString('utf8')
  if (xml === undefined || !xml.includes(from)) throw new Error(`${path}: ${part} has no "${from}"`)
  parts.set(part, Buffer.from(xml.replace(from, to)))
  return Buffer.from(await zipParts(Object.fromEntries(parts)))
}

const PAPER: PdfSpec = {
  pages: [
    { texts: [{ x: 72, y: 720, size: 18, text: 'Results of the field study' }] },
    { texts: [{ x: 72, y: 720, size: 12, text: 'Figure 2 shows the measured values.' }] },
  ],
}
/** The same paper with a sticky note on page 2, whose sentence also changed. */
const ANNOTATED: PdfSpec = {
  pages: [
    PAPER.pages[0] ?? { texts: [] },
    {
      texts: [{ x: 72, y: 720, size: 12, text: 'Figure 2 shows the measured values in mm.' }],
      notes: [{ rect: [300, 700, 320, 720], text: 'Check the units of Figure 2' }],
    },
  ],
}

/** 80×60; the after side paints a 10×5 block red: exactly 50 pixels differ. */
const RED_BLOCK = (x: number, y: number) =>
  x >= 20 && x < 30 && y >= 30 && y < 35 ? ([255, 0, 0, 255] as const) : patternPixel(x, y)

const workspace = useWorkspace({
  name: 'review-documents',
  git: true,
  // Workspace scope: an image pair, an image resized, and a paper cut short.
  uncommitted: {
    'pic.png': png(80, 60, (x, y) => [...RED_BLOCK(x, y)]),
    'resized.png': png(60, 40, patternPixel),
    // Cut off after the header: no cross-reference table, no pages.
    'broken.pdf': writePdf(ANNOTATED).subarray(0, 400),
  },
  agent: { mode: 'ask' },
  files: async ({ project }) => {
    const { writeFileSync, mkdirSync, copyFileSync } = await import('node:fs')
    mkdirSync(join(project, 'incoming'), { recursive: true })
    copyFileSync(join(CORPUS, 'office/poi-60329-tables-hdrftr.docx'), join(project, 'report.docx'))
    copyFileSync(join(CORPUS, 'office/poi-54288-merged-styles.xlsx'), join(project, 'budget.xlsx'))
    copyFileSync(join(CORPUS, 'office/poi-aptia-slides-images.pptx'), join(project, 'deck.pptx'))
    writeFileSync(join(project, 'paper.pdf'), writePdf(PAPER))
    writeFileSync(join(project, 'pic.png'), png(80, 60, patternPixel))
    writeFileSync(join(project, 'resized.png'), png(80, 60, patternPixel))
    writeFileSync(join(project, 'broken.pdf'), writePdf(PAPER))
    writeFileSync(
      join(project, 'incoming/report.docx'),
      await edited(join(project, 'report.docx'), 'word/document.xml', '1.0 Dated 06/22/2015', '2.0 Dated 12/03/2026'),
    )
    writeFileSync(
      join(project, 'incoming/deck.pptx'),
      await edited(
        join(project, 'deck.pptx'),
        'ppt/slides/slide1.xml',
        'Senior Deputy President Acton',
        'Deputy President Acton and Commissioner Lee',
      ),
    )
    writeFileSync(join(project, 'incoming/paper.pdf'), writePdf(ANNOTATED))
  },
})
let host: RunningWebHost
let llm: FakeLlmServer
let project: string
beforeAll(() => {
  ;({ host, llm, project } = workspace)
})

const DOCUMENTS = ['report.docx', 'budget.xlsx', 'deck.pptx', 'paper.pdf'] as const
/** Published whole from `incoming/`; the spreadsheet is edited in place by `office_edit`. */
const PUBLISHED = ['report.docx', 'deck.pptx', 'paper.pdf'] as const

/**
 * One turn: the model reads the four documents, publishes the new report, deck and paper (one
 * `write` each), and sets a date in the spreadsheet plus a formula that depends on it.
 */
function scriptTurn(): void {
  llm.enqueue(
    // The agent reads a file before replacing it (spec 05).
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: DOCUMENTS.map((path, index) => ({
            id: `call_read_${index}`,
            name: 'read',
            input: { file_path: path },
          })),
        },
      ],
    },
    ...DOCUMENTS.map((path, index) => ({
      kind: 'stream' as const,
      steps: [
        {
          toolCalls: [
            path === 'budget.xlsx'
              ? {
                  id: `call_doc_${index}`,
                  name: 'office_edit',
                  input: {
                    path,
                    edits: [
                      { op: 'set_cells', range: 'C3', values: [[41300]] },
                      { op: 'set_cells', range: 'Z1', values: [['=C3+1']] },
                    ],
                  },
                }
              : { id: `call_doc_${index}`, name: 'write', input: { file_path: path, source_path: `incoming/${path}` } },
          ],
        },
      ],
    })),
    { kind: 'stream', steps: [{ text: 'Updated the report, the budget, the deck and the paper.' }] },
  )
}

async function openReviewRow(page: Page, path: string) {
  await page.locator(`[data-testid="review-file"][data-path="${path}"]`).click()
  await expect
    .poll(() => page.getByTestId('document-diff').or(page.getByTestId('document-unreadable')).count(), {
      timeout: 20_000,
    })
    .toBe(1)
}

test('a turn changes a DOCX, XLSX, PPTX and PDF: approvals and Review show the words, cells, slides and notes', async () => {
  scriptTurn()
  const originals = new Map(DOCUMENTS.map((path) => [path, readFileSync(join(project, path))]))
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Update the documents from incoming/')
  await page.getByTestId('composer-input').press('Enter')

  // Each approval shows the change inside the document, not "Binary file: n → m bytes".
  const approval = page.getByRole('group', { name: 'Approval' })
  for (const path of DOCUMENTS) {
    await expect.poll(() => approval.count(), { timeout: 20_000 }).toBe(1)
    const inside = approval.getByRole('region', { name: `Changes inside ${path}` })
    await expect.poll(() => inside.count(), { timeout: 10_000 }).toBe(1)
    expect(await approval.innerText()).not.toContain('Binary file')
    if (path === 'report.docx') {
      expect((await inside.locator('ins').allInnerTexts()).join(' ')).toContain('2026')
      expect((await inside.locator('del').allInnerTexts()).join(' ')).toContain('2015')
      await page.screenshot({ path: join(ARTIFACTS, 'review-documents-approval.png') })
    }
    await approval.getByRole('button', { name: 'Approve' }).click()
    await expect.poll(() => approval.count(), { timeout: 20_000 }).toBe(0)
  }
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 20_000 })
    .toContain('Updated the report, the budget, the deck and the paper.')

  await page.getByTestId('turn-review').last().click()
  const rows = page.getByTestId('review-file')
  await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(4)
  // Rows count what changed inside: paragraphs, cells, slides, notes (in words for a screen reader).
  const row = (path: string) => page.locator(`[data-testid="review-file"][data-path="${path}"]`)
  await expect.poll(() => row('report.docx').getByTestId('review-doc-counts').innerText()).toContain('¶')
  expect(await row('report.docx').getAttribute('aria-label')).toBeNull()
  expect(await row('report.docx').innerText()).toMatch(/paragraphs? changed/)
  expect(await row('budget.xlsx').getByTestId('review-doc-counts').innerText()).toContain('2 cells')
  expect(await row('deck.pptx').getByTestId('review-doc-counts').innerText()).toContain('~1 slide')
  expect(await row('paper.pdf').getByTestId('review-doc-counts').innerText()).toContain('+1 note')

  await openReviewRow(page, 'report.docx')
  const docx = page.getByRole('region', { name: 'Changes inside report.docx' })
  // Word-level: the new date is inserted and the old one struck through, in the same paragraph.
  const redline = docx.getByTestId('docx-entry').filter({ has: page.locator('ins', { hasText: '2026' }) })
  await expect.poll(() => redline.count()).toBe(1)
  expect((await redline.locator('del').allInnerTexts()).join(' ')).toContain('2015')
  await page.screenshot({ path: join(ARTIFACTS, 'review-documents-docx.png') })

  await openReviewRow(page, 'budget.xlsx')
  const cell = page.getByTestId('xlsx-cell').filter({ has: page.getByRole('rowheader', { name: 'C3' }) })
  await expect.poll(() => cell.count()).toBe(1)
  expect(await cell.locator('td').allInnerTexts()).toHaveLength(2)
  // The new formula cell: empty before, its computed value with the formula under it after.
  const formula = page.getByTestId('xlsx-cell').filter({ has: page.getByRole('rowheader', { name: 'Z1' }) })
  expect(await formula.locator('td').first().innerText()).toBe('(empty)')
  expect(await formula.locator('td').last().innerText()).toMatch(/^41301\s*=C3\+1$/)
  await page.screenshot({ path: join(ARTIFACTS, 'review-documents-xlsx.png') })

  await openReviewRow(page, 'deck.pptx')
  const slide = page.getByRole('region', { name: 'Slide 1' })
  await expect.poll(() => slide.count()).toBe(1)
  expect(await slide.locator('ins').allInnerTexts()).toEqual(
    expect.arrayContaining([expect.stringContaining('Commissioner')]),
  )
  expect(await slide.locator('del').allInnerTexts()).toEqual(
    expect.arrayContaining([expect.stringContaining('Senior')]),
  )

  await openReviewRow(page, 'paper.pdf')
  const note = page.getByTestId('pdf-annotation')
  await expect.poll(() => note.count()).toBe(1)
  expect(await note.getAttribute('data-change')).toBe('added')
  expect(await note.innerText()).toContain('Check the units of Figure 2')
  expect(await note.innerText()).toContain('Sticky note')
  // Page 2's drawing changed too: before and after are shown side by side at that page.
  const changedPages = page.getByTestId('review-changed-pages')
  expect(await changedPages.getByRole('button', { name: 'Page 2' }).getAttribute('aria-pressed')).toBe('true')
  for (const side of ['before', 'after'])
    await expect
      .poll(
        () => changedPages.getByTestId(`review-preview-${side}`).getByRole('textbox', { name: 'Page' }).inputValue(),
        {
          timeout: 20_000,
        },
      )
      .toBe('2')
  await page.screenshot({ path: join(ARTIFACTS, 'review-documents-pdf.png') })
  // "Show in reader" opens the paper in its tab at the note's page.
  await note.getByRole('button', { name: 'Show the Sticky note on page 2 in the reader' }).click()
  const reader = page.getByTestId('pdf-reader')
  await expect.poll(() => reader.count(), { timeout: 20_000 }).toBe(1)
  const pageBox = reader.getByRole('textbox', { name: 'Page', exact: true })
  await expect.poll(() => pageBox.inputValue(), { timeout: 20_000 }).toBe('2')
  // The reader is kept while Review is shown again: asked once more, it moves from where it was left.
  await pageBox.fill('1')
  await pageBox.press('Enter')
  await expect.poll(() => pageBox.inputValue(), { timeout: 20_000 }).toBe('1')
  await page.getByRole('tab', { name: /Review/ }).click()
  await openReviewRow(page, 'paper.pdf')
  await page.getByRole('button', { name: 'Show the Sticky note on page 2 in the reader' }).click()
  await expect.poll(() => pageBox.inputValue(), { timeout: 20_000 }).toBe('2')

  // The files on disk are the new versions, byte for byte.
  for (const path of PUBLISHED)
    expect(readFileSync(join(project, path)).equals(readFileSync(join(project, 'incoming', path)))).toBe(true)

  // Undo of the turn puts every document back byte for byte.
  await page.getByTestId('turn-card').last().getByRole('button', { name: 'Undo', exact: true }).click()
  await page.getByRole('button', { name: 'Undo 4 file(s)' }).click()
  for (const path of DOCUMENTS)
    await expect
      .poll(() => readFileSync(join(project, path)).equals(originals.get(path) ?? Buffer.alloc(0)), { timeout: 20_000 })
      .toBe(true)
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})

test('Workspace review: a pixel-difference mask by keyboard, sizes that differ, and a document it cannot read inside', async () => {
  const page = await workspace.newPage({ viewport: { width: 1024, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await page.getByRole('button', { name: 'Open Review' }).click()
  await page.getByTestId('review-scope-workspace').click()
  const row = (path: string) => page.locator(`[data-testid="review-file"][data-path="${path}"]`)
  await expect.poll(() => row('pic.png').count(), { timeout: 20_000 }).toBe(1)

  await row('pic.png').click()
  const difference = page.getByRole('radio', { name: 'Difference' })
  await expect.poll(() => difference.count(), { timeout: 20_000 }).toBe(1)
  await difference.focus()
  await page.keyboard.press('Space')
  expect(await difference.getAttribute('aria-checked')).toBe('true')
  const mask = page.getByRole('img', { name: 'Pixels that differ between before and after of pic.png' })
  await expect.poll(() => mask.count(), { timeout: 15_000 }).toBe(1)
  expect(await mask.getAttribute('data-differing')).toBe('50')
  expect(await page.getByTestId('review-difference').innerText()).toContain('50 of 4800 pixels differ.')
  // A changed pixel is drawn in full colour; an unchanged one dimmed, never the same as the mark.
  const [changed, same] = await mask.evaluate((canvas) => {
    const context = (canvas as HTMLCanvasElement).getContext('2d')
    const at = (x: number, y: number) => Array.from(context?.getImageData(x, y, 1, 1).data ?? [])
    return [at(25, 32), at(5, 5)]
  })
  expect(changed).toEqual([255, 0, 200, 255])
  expect(same).not.toEqual([255, 0, 200, 255])
  await page.screenshot({ path: join(ARTIFACTS, 'review-documents-difference.png') })

  await row('resized.png').click()
  await page.getByRole('radio', { name: 'Difference' }).click()
  await expect
    .poll(() => page.getByTestId('review-difference').innerText(), { timeout: 15_000 })
    .toContain('The sizes differ (80×60 → 60×40)')

  // Damaged: the reason in words, and the pages preview in its place.
  await row('broken.pdf').click()
  const unreadable = page.getByTestId('document-unreadable')
  await expect.poll(() => unreadable.count(), { timeout: 20_000 }).toBe(1)
  expect(await unreadable.getAttribute('data-reason')).toBe('damaged')
  expect(await unreadable.innerText()).toContain('This document is damaged')
  await expect.poll(() => page.getByTestId('review-preview-after').count()).toBe(1)
  expect(watch.consoleErrors).toEqual([])
})
