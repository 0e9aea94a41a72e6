import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage, type PageWatch } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * Issue 23 as a newcomer walks it in a narrow window (800 px, the chat column at its narrowest):
 * what the approval card and a refused call say must be readable without expanding anything, and
 * the restore sheet's new controls must each name their file and keep the keyboard inside the sheet.
 */

const workspace = useWorkspace({
  name: 'trust-walk',
  files: {
    'README.md': '# Demo\n',
    'build-out/chart.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
  },
  // A git repository, so command steps are snapshotted and a command-only turn gets its card.
  git: true,
  agent: { mode: 'ask' },
  viewport: { width: 800, height: 900 },
})
let project: string
let host: RunningWebHost
let llm: FakeLlmServer
let page: Page
let watch: PageWatch

beforeAll(async () => {
  ;({ project, host, llm } = workspace)
  page = await workspace.newPage()
  watch = await watchPage(page)
})

/** How many lines the element's text is laid out on. */
const lineCount = (element: Locator) =>
  element.evaluate((node) => {
    const range = document.createRange()
    range.selectNodeContents(node)
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size
  })

/** Whether `phrase` is laid out inside the element's visible box (not behind an ellipsis or a clamp). */
const showsPhrase = (element: Locator, phrase: string) =>
  element.evaluate((node, wanted) => {
    const text = node.firstChild
    const at = text?.textContent?.indexOf(wanted) ?? -1
    if (!text || at < 0) return false
    const range = document.createRange()
    range.setStart(text, at)
    range.setEnd(text, at + wanted.length)
    const box = node.getBoundingClientRect()
    const rects = [...range.getClientRects()]
    return rects.length > 0 && rects.every((rect) => rect.bottom <= box.bottom + 1 && rect.right <= box.right + 1)
  }, phrase)

async function prompt(text: string) {
  const input = page.getByRole('textbox', { name: 'Message to the agent' })
  await input.fill(text)
  await input.press('Enter')
}

/** A session of its own (in the host's ask mode), so a test does not depend on how another ended. */
async function newSession() {
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  await page.getByTestId('session-new').click()
  await expect.poll(() => page.getByTestId('chat').innerText()).toContain('Ask the agent for a change.')
}

function writeTurn(id: string, input: Record<string, string>, reply: string) {
  llm.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id, name: 'write', input }] }] },
    { kind: 'stream', steps: [{ text: reply }] },
  )
}

test('the rewind conflict’s Keep mine, Include it and Restore it too name their file, and Tab stays in the sheet', async () => {
  await newSession()
  await page.getByTestId('session-mode').selectOption('auto')
  writeTurn('call_c', { file_path: 'c.txt', content: 'c\n' }, 'Wrote c.txt.')
  await prompt('Write c.txt')
  await expect.poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 }).toContain('Wrote c.txt.')
  await expect.poll(() => page.getByTestId('composer-stop').count()).toBe(0)
  // The person changes the agent's file afterwards (outside Retrace).
  writeFileSync(join(project, 'c.txt'), 'c\nmine\n')

  const bubble = page.locator('.user-message').last()
  await bubble.hover()
  await bubble.getByTestId('restore-checkpoint').click()
  const sheet = page.getByRole('dialog', { name: 'Restore checkpoint' })
  await expect.poll(() => sheet.getAttribute('data-status')).not.toBe('planning')
  await page.getByTestId('rewind-mode-code').check()
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('blocked')

  // With several conflicts a screen reader must hear which file each button acts on.
  expect(await sheet.getByRole('button', { name: 'Keep mine: c.txt' }).count()).toBe(1)
  expect(await sheet.getByRole('button', { name: 'Include it (replace my version): c.txt' }).count()).toBe(1)

  // A modal sheet keeps Tab inside it: past Cancel comes back to the first control, and back again.
  await sheet.getByRole('button', { name: 'Cancel' }).focus()
  await page.keyboard.press('Tab')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('rewind-mode-code')
  await page.keyboard.press('Shift+Tab')
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')

  await sheet.getByRole('button', { name: 'Keep mine: c.txt' }).click()
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  expect(await sheet.getByRole('button', { name: 'Restore it too: c.txt' }).count()).toBe(1)
  await sheet.getByRole('button', { name: 'Cancel' }).click()
  await expect.poll(() => sheet.count()).toBe(0)
  expect(readFileSync(join(project, 'c.txt'), 'utf8')).toBe('c\nmine\n')
})

test('in ask mode the approval names the source on its own line, and a refused outside source says why in full', async () => {
  await newSession()

  writeTurn('call_pub', { file_path: 'docs/chart.png', source_path: 'build-out/chart.png' }, 'Published the chart.')
  await prompt('Publish the generated chart')
  const card = page.getByRole('group', { name: 'Approval' })
  await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1)
  const target = card.getByText('docs/chart.png', { exact: true })
  const source = card.getByText('from build-out/chart.png', { exact: true })
  await expect.poll(() => source.count()).toBe(1)
  // Neither path is broken in the middle of a name while the column has room for it.
  expect([await lineCount(target), await lineCount(source)]).toEqual([1, 1])
  await card.getByRole('button', { name: 'Approve' }).click()
  await expect.poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 }).toContain('Published')
  await expect.poll(() => page.getByTestId('composer-stop').count(), { timeout: 15_000 }).toBe(0)

  writeTurn('call_leak', { file_path: 'leak.txt', source_path: '/etc/passwd' }, 'Could not copy it.')
  await prompt('Copy /etc/passwd into the project')
  await expect.poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 }).toContain('Could not copy')
  // Refused before any approval: no card asked, nothing written, and the reason is on screen whole.
  const refusal = page.getByTestId('transcript').locator('.tool-error-line').last()
  expect(await showsPhrase(refusal, 'is outside the project root')).toBe(true)
  expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Demo\n')
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-trust-walk-approval-800.png') })
  expect(watch.consoleErrors).toEqual([])
})

test('a turn whose only changes were made by a command shows no empty file list on its card', async () => {
  await newSession()
  await page.getByTestId('session-mode').selectOption('auto')
  llm.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'call_sh', name: 'bash', input: { command: 'echo out > out.txt' } }] }] },
    { kind: 'stream', steps: [{ text: 'Ran it.' }] },
  )
  await prompt('Write out.txt with a command')
  const card = page.getByTestId('turn-card').last()
  await expect.poll(() => page.getByTestId('turn-card-commands').count(), { timeout: 15_000 }).toBe(1)
  expect(await card.getByTestId('turn-card-files').innerText()).toMatch(/^0 files/)
  // The header and the commands footer only: no bordered strip with nothing in it between them.
  expect(await card.getByRole('list').filter({ hasNot: page.getByRole('listitem') }).count()).toBe(0)
  await card.screenshot({ path: join(tmpdir(), 'retrace-e2e-trust-walk-command-card.png') })
})
