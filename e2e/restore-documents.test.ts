import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { makeDocx } from '../test/support/office-fixtures'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/**
 * Issue 26, restore previews: before a person confirms an Undo (or a Rewind) of a turn that changed
 * a Word report, the preview shows what changes inside it — the words that come back and go —
 * and the Undo then puts the original bytes back exactly.
 */
const paragraph = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`
let original: Buffer

const workspace = useWorkspace({
  name: 'restore-documents',
  agent: { mode: 'auto' },
  files: async ({ project }) => {
    original = Buffer.from(
      await makeDocx(paragraph('Quarterly report') + paragraph('Revenue grew by ten percent this quarter.')),
    )
    writeFileSync(join(project, 'report.docx'), original)
  },
})
let host: RunningWebHost
let llm: FakeLlmServer
let project: string
beforeAll(() => {
  ;({ host, llm, project } = workspace)
})

test('the Undo confirm shows what changes inside report.docx with the words, reachable by keyboard; Undo is byte-exact', async () => {
  llm.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }] }] },
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            {
              id: 'e1',
              name: 'office_edit',
              input: {
                path: 'report.docx',
                edits: [
                  { op: 'replace_text', anchor: 'p2', text: 'Revenue grew by twelve percent this quarter.' },
                  { op: 'insert_paragraph', after: 'p2', text: 'Costs fell by three percent.' },
                ],
              },
            },
          ],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'Updated the report.' }] },
  )
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Update the report')
  await page.getByTestId('composer-input').press('Enter')
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 30_000 })
    .toContain('Updated the report.')
  await expect.poll(() => page.getByTestId('composer-stop').count()).toBe(0)
  expect(readFileSync(join(project, 'report.docx')).equals(original)).toBe(false)

  // The Rewind sheet of the prompt shows the same document change before anything is written.
  const bubble = page.locator('.user-message').first()
  await bubble.hover()
  await bubble.getByTestId('restore-checkpoint').click()
  const sheet = page.getByTestId('rewind-sheet')
  await expect.poll(() => sheet.getAttribute('data-status'), { timeout: 20_000 }).toBe('ready')
  await expect
    .poll(() => sheet.getByRole('region', { name: 'Changes inside report.docx' }).locator('ins').allInnerTexts())
    .toEqual(expect.arrayContaining([expect.stringContaining('ten')]))
  await page.screenshot({ path: join(ARTIFACTS, 'restore-documents-rewind.png') })
  await page.getByTestId('rewind-cancel').click()
  await expect.poll(() => sheet.count()).toBe(0)

  await page.getByTestId('turn-action-undo').click()
  const confirm = page.getByTestId('restore-confirm')
  await expect.poll(() => confirm.getAttribute('data-status'), { timeout: 20_000 }).toBe('ready')
  // The row counts what the Undo does inside the report: one paragraph goes, one changes back.
  const row = confirm.locator('[data-testid="restore-action"][data-path="report.docx"]')
  expect(await row.getByTestId('restore-doc-counts').innerText()).toBe('−1 ¶ ~1 ¶')
  expect(await row.getByTestId('restore-doc-counts').getAttribute('aria-label')).toBe('1 paragraph removed, 1 changed')

  const toggle = confirm.getByRole('button', { name: 'What changes inside report.docx' })
  expect(await toggle.getAttribute('aria-expanded')).toBe('true')
  const inside = confirm.getByRole('region', { name: 'Changes inside report.docx' })
  expect((await inside.locator('ins').allInnerTexts()).join(' ')).toContain('ten')
  expect((await inside.locator('del').allInnerTexts()).join(' ')).toContain('twelve')
  expect(await inside.innerText()).toContain('Costs fell by three percent.')
  await page.screenshot({ path: join(ARTIFACTS, 'restore-documents-undo.png') })

  // Keyboard: the disclosure closes and opens again with Enter, and the open diff takes focus to scroll.
  await toggle.focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false')
  expect(await inside.count()).toBe(0)
  await page.keyboard.press('Enter')
  await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true')
  await page.keyboard.press('Tab')
  expect(await inside.evaluate((node) => node === document.activeElement)).toBe(true)

  await confirm.getByTestId('restore-confirm-apply').click()
  await expect.poll(() => readFileSync(join(project, 'report.docx')).equals(original), { timeout: 20_000 }).toBe(true)
  expect(watch.consoleErrors).toEqual([])
})
