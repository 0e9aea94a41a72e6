import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { makeXlsx } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * Issue 26 end to end, as a person meets it: a scripted model (the loopback fake) reads a Word
 * report, a workbook, a deck and a paper with `read`, changes them with the document tools
 * (`office_edit`, `pdf_annotate`) — never as opaque bytes — and Review shows the changed words,
 * cells, slides and annotations; Undo puts every original byte back.
 */
const CORPUS = join(__dirname, '..', '..', 'shared', 'corpus')
const DOCUMENTS = ['report.docx', 'budget.xlsx', 'deck.pptx', 'paper.pdf'] as const

const workspace = useWorkspace({
  name: 'document-agent',
  git: true,
  agent: { mode: 'auto' },
  files: async ({ project }) => {
    copyFileSync(join(CORPUS, 'office/poi-60329-tables-hdrftr.docx'), join(project, 'report.docx'))
    writeFileSync(join(project, 'budget.xlsx'), await makeXlsx())
    copyFileSync(join(CORPUS, 'office/poi-aptia-slides-images.pptx'), join(project, 'deck.pptx'))
    copyFileSync(join(CORPUS, 'pdf/pdfjs-comments.pdf'), join(project, 'paper.pdf'))
  },
})
let host: RunningWebHost
let llm: FakeLlmServer
let project: string
beforeAll(() => {
  ;({ host, llm, project } = workspace)
})

const call = (id: string, name: string, input: unknown) => ({
  kind: 'stream' as const,
  steps: [{ toolCalls: [{ id, name, input }] }],
})

function scriptTurn(): void {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: DOCUMENTS.map((path, index) => ({
            id: `read_${index}`,
            name: 'read',
            input: { file_path: path },
          })),
        },
      ],
    },
    call('docx', 'office_edit', {
      path: 'report.docx',
      edits: [
        { op: 'replace_text', anchor: 't2.r1.c4', text: '2.0 Dated 12/03/2026' },
        { op: 'insert_paragraph', after: 't4.r1.c1', text: 'Secondary objectives follow the primary ones.' },
      ],
    }),
    call('xlsx', 'office_edit', {
      path: 'budget.xlsx',
      edits: [{ op: 'set_cells', sheet: 'Data', range: 'A1', values: [[15]] }],
    }),
    call('pptx', 'office_edit', {
      path: 'deck.pptx',
      edits: [
        { op: 'replace_text', anchor: 's2.sh3', text: 'Award modernisation at a glance' },
        { op: 'add_slide', after: 9, title: 'Next steps', body: 'Publish the decision' },
      ],
    }),
    call('pdf', 'pdf_annotate', {
      path: 'paper.pdf',
      annotations: [
        { op: 'highlight', page: 1, text: 'Dynamic languages such as JavaScript', color: '#ffd400' },
        { op: 'note', page: 1, text: 'Check the abstract against section 6', near_text: 'Abstract' },
      ],
    }),
    { kind: 'stream', steps: [{ text: 'Updated the report, the budget, the deck and the paper.' }] },
  )
}

async function openRow(page: Page, path: string) {
  await page.locator(`[data-testid="review-file"][data-path="${path}"]`).click()
  await expect
    .poll(() => page.getByRole('region', { name: `Changes inside ${path}` }).count(), { timeout: 20_000 })
    .toBe(1)
  return page.getByRole('region', { name: `Changes inside ${path}` })
}

test('the agent edits a report, a workbook, a deck and a paper with the document tools; Review shows what changed inside; Undo is byte-exact', async () => {
  scriptTurn()
  const originals = new Map(DOCUMENTS.map((path) => [path, readFileSync(join(project, path))]))
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Update the documents')
  await page.getByTestId('composer-input').press('Enter')
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 30_000 })
    .toContain('Updated the report, the budget, the deck and the paper.')

  // Every document tool call succeeded (a refusal would be an `error` part).
  for (const tool of ['office_edit', 'pdf_annotate']) {
    const parts = page.locator(`[data-testid="tool-part"][data-tool="${tool}"]`)
    for (const state of await parts.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-state'))))
      expect(state).toBe('completed')
  }
  for (const path of DOCUMENTS)
    expect(readFileSync(join(project, path)).equals(originals.get(path) as Buffer)).toBe(false)
  // The annotated paper is an incremental update that qpdf accepts: the original bytes are its prefix.
  const paper = readFileSync(join(project, 'paper.pdf'))
  expect(
    paper.subarray(0, (originals.get('paper.pdf') as Buffer).length).equals(originals.get('paper.pdf') as Buffer),
  ).toBe(true)
  if (spawnSync('qpdf', ['--version']).status === 0) {
    const check = spawnSync('qpdf', ['--check', join(project, 'paper.pdf')], { encoding: 'utf8' })
    expect([0, 3]).toContain(check.status) // 3: warnings only
  } else console.warn('document-agent: qpdf is not installed; the qpdf check is skipped')

  await page.getByTestId('turn-review').last().click()
  const row = (path: string) => page.locator(`[data-testid="review-file"][data-path="${path}"]`)
  await expect.poll(() => page.getByTestId('review-file').count(), { timeout: 20_000 }).toBe(4)
  // Documents have no line counts: the totals say how many files, not "+— −—".
  expect(await page.getByTestId('review-totals').innerText()).toBe('4 files')
  await expect
    .poll(() => row('report.docx').getByTestId('review-doc-counts').innerText(), { timeout: 20_000 })
    .toMatch(/¶/)
  await expect.poll(() => row('budget.xlsx').getByTestId('review-doc-counts').innerText()).toContain('3 cells')
  await expect.poll(() => row('deck.pptx').getByTestId('review-doc-counts').innerText()).toContain('+1 slide')
  await expect.poll(() => row('paper.pdf').getByTestId('review-doc-counts').innerText()).toContain('+2 notes')

  const docx = await openRow(page, 'report.docx')
  expect((await docx.locator('ins').allInnerTexts()).join(' ')).toContain('2026')
  expect((await docx.locator('del').allInnerTexts()).join(' ')).toContain('2015')
  expect(await docx.innerText()).toContain('Secondary objectives follow the primary ones.')
  await page.screenshot({ path: join(ARTIFACTS, 'document-agent-docx.png') })

  await openRow(page, 'budget.xlsx')
  // The set cell and both dependents, recalculated by the tool (cached values written in the file).
  const cellRow = (address: string) =>
    page.getByTestId('xlsx-cell').filter({ has: page.getByRole('rowheader', { name: address, exact: true }) })
  await expect.poll(() => cellRow('A4').count()).toBe(1)
  expect((await cellRow('A4').locator('td').last().innerText()).replace(/\s+/g, ' ')).toMatch(/^65\.00 =SUM\(A1:A3\)$/) // the cell's number format is 0.00
  expect(await cellRow('A1').count()).toBe(2) // Data!A1 set, Summary!A1 = Data!A4*2 recalculated
  expect(await page.getByRole('region', { name: 'Changes inside budget.xlsx' }).innerText()).toContain('130')
  await page.screenshot({ path: join(ARTIFACTS, 'document-agent-xlsx.png') })

  const deck = await openRow(page, 'deck.pptx')
  expect((await deck.locator('ins').allInnerTexts()).join(' ')).toContain('glance')
  expect(await deck.innerText()).toContain('Next steps')

  await openRow(page, 'paper.pdf')
  const notes = page.getByTestId('pdf-annotation')
  await expect.poll(() => notes.count()).toBe(2)
  const texts = await notes.allInnerTexts()
  expect(texts.join('\n')).toContain('Dynamic languages such as JavaScript')
  expect(texts.join('\n')).toContain('Check the abstract against section 6')
  await page.screenshot({ path: join(ARTIFACTS, 'document-agent-pdf.png') })

  // Undo of the turn: every document back byte for byte, and git sees no change.
  await page.getByTestId('turn-card').last().getByRole('button', { name: 'Undo', exact: true }).click()
  await page.getByRole('button', { name: 'Undo 4 file(s)' }).click()
  for (const path of DOCUMENTS)
    await expect
      .poll(() => readFileSync(join(project, path)).equals(originals.get(path) as Buffer), { timeout: 20_000 })
      .toBe(true)
  expect(execFileSync('git', ['-C', project, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('')
  expect(watch.consoleErrors).toEqual([])
})
