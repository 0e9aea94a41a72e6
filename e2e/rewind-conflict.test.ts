import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * Issue 23 item 11 as a person meets it: an edit of their own after the agent's turns is never
 * reverted by Restore checkpoint; the sheet shows it as a conflict they resolve (Keep mine /
 * Include it), and Redo after the rewind is its inverse (item 20).
 */

const workspace = useWorkspace({
  name: 'rewind-conflict',
  files: { 'README.md': '# Demo\n' },
  agent: { mode: 'auto' },
})
let project: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ project, host, llm } = workspace)
})

const file = (name: string) => join(project, name)
const exists = (name: string) => existsSync(file(name))
const text = (name: string) => readFileSync(file(name), 'utf8')

async function turn(page: Page, prompt: string, name: string) {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [{ toolCalls: [{ id: `call_${name}`, name: 'write', input: { file_path: name, content: `${name}\n` } }] }],
    },
    { kind: 'stream', steps: [{ text: `Wrote ${name}.` }] },
  )
  const cards = await page.getByTestId('turn-card').count()
  const input = page.getByRole('textbox', { name: 'Message to the agent' })
  await input.fill(prompt)
  await input.press('Enter')
  await expect.poll(() => page.getByTestId('turn-card').count(), { timeout: 20_000 }).toBe(cards + 1)
  await expect.poll(() => page.getByTestId('composer-stop').count()).toBe(0)
}

/** Types at the end of an open text file in Retrace's editor and waits for the autosave. */
async function editInRetrace(page: Page, name: string, added: string) {
  await page.getByRole('tree', { name: 'Files' }).locator(`[data-path="${name}"]`).click()
  const editor = page.locator('.monaco-editor').first()
  await expect.poll(() => editor.count(), { timeout: 20_000 }).toBe(1)
  await editor.locator('.view-lines').click()
  await page.keyboard.press('Control+End')
  await page.keyboard.type(added)
  await expect.poll(() => text(name), { timeout: 15_000 }).toContain(added.trim())
}

async function openCheckpoint(page: Page, promptIndex: number) {
  const bubble = page.locator('.user-message').nth(promptIndex)
  await bubble.hover()
  await bubble.getByTestId('restore-checkpoint').click()
  const sheet = page.getByTestId('rewind-sheet')
  await expect.poll(() => sheet.getAttribute('data-status')).not.toBe('planning')
  await page.getByTestId('rewind-mode-code').check()
  return sheet
}

test('Restore checkpoint blocks the person’s own edit; Keep mine keeps it, Include it restores it and Redo brings it back', async () => {
  const page = await workspace.newPage({ viewport: { width: 1024, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()

  await turn(page, 'First: write a.txt', 'a.txt')
  await turn(page, 'Second: write b.txt', 'b.txt')
  await turn(page, 'Third: write c.txt', 'c.txt')

  // The person adds a line to c.txt in Retrace's editor after the agent's turns.
  await editInRetrace(page, 'c.txt', '\nmine\n')
  const mine = text('c.txt')

  // Rewinding to before the second prompt would revert it: blocked, nothing written, the diff shown.
  const sheet = await openCheckpoint(page, 1)
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('blocked')
  const conflict = page.locator('[data-testid="rewind-conflict"][data-path="c.txt"]')
  await expect.poll(() => conflict.count()).toBe(1)
  expect(await page.getByTestId('rewind-confirm').isDisabled()).toBe(true)
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-rewind-conflict-1024.png') })
  expect([exists('b.txt'), text('c.txt')]).toEqual([true, mine])

  // Include it: the person's version goes too (and Redo brings it back with their line).
  await conflict.getByRole('button', { name: /Include it/ }).click()
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  await page.getByTestId('rewind-confirm').click()
  await expect.poll(() => sheet.count(), { timeout: 20_000 }).toBe(0)
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, false, false])
  const input = page.getByRole('textbox', { name: 'Message to the agent' })
  await input.fill('/redo')
  await input.press('Enter')
  await expect.poll(() => exists('c.txt'), { timeout: 20_000 }).toBe(true)
  expect([exists('b.txt'), text('c.txt')]).toEqual([true, mine])

  // Keep mine: the rewind restores everything else and leaves the person's file as they left it.
  await page.setViewportSize({ width: 800, height: 800 })
  const again = await openCheckpoint(page, 0)
  await expect.poll(() => again.getAttribute('data-status')).toBe('blocked')
  await page
    .locator('[data-testid="rewind-conflict"][data-path="c.txt"]')
    .getByRole('button', { name: /Keep mine/ })
    .click()
  await expect.poll(() => again.getAttribute('data-status')).toBe('ready')
  expect(await page.getByTestId('rewind-kept').innerText()).toContain('c.txt')
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-rewind-kept-800.png') })
  await page.getByTestId('rewind-confirm').click()
  await expect.poll(() => again.count(), { timeout: 20_000 }).toBe(0)
  expect([exists('a.txt'), exists('b.txt'), text('c.txt')]).toEqual([false, false, mine])

  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
