import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/**
 * Issue 23 item 21 in the browser: a command writes into node_modules/ and a plain file. The turn
 * card and Review say node_modules is held; Undo with the commands' changes restores the plain
 * file and leaves node_modules alone, unless the person includes that file by name.
 */

const workspace = useWorkspace({
  name: 'held',
  files: { 'README.md': '# Demo\n' },
  git: true,
  agent: { mode: 'auto' },
})
let project: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ project, host, llm } = workspace)
})

const onDisk = (path: string) => existsSync(join(project, path))

function commandTurn(id: string, command: string) {
  llm.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id, name: 'bash', input: { command } }] }] },
    { kind: 'stream', steps: [{ text: 'Ran it.' }] },
  )
}

async function prompt(page: Page, text: string) {
  const input = page.getByTestId('composer-input')
  await input.fill(text)
  await input.press('Enter')
}

/** The latest turn card's Undo sheet. */
async function openUndo(page: Page) {
  const undo = page.getByTestId('turn-action-undo').last()
  await expect.poll(() => undo.isEnabled(), { timeout: 15_000 }).toBe(true)
  await undo.click()
  const sheet = page.getByTestId('restore-confirm')
  await expect.poll(() => sheet.count()).toBe(1)
  return sheet
}

test('node_modules is held on the card and in Review; Undo restores out.txt, and node_modules/x.js only when included', async () => {
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()

  commandTurn('c1', 'mkdir -p node_modules && echo "module.exports = 1" > node_modules/x.js && echo out > out.txt')
  await prompt(page, 'Install and write out.txt')
  const footer = page.getByTestId('turn-card-commands')
  await expect.poll(() => footer.count(), { timeout: 15_000 }).toBe(1)
  expect(await footer.innerText()).toBe('1 file changed by commands (Undo restores it only if you include it)')
  // The card says what is held and why.
  const notes = page.getByRole('list', { name: 'What commands changed that is not restored by default' })
  await expect.poll(() => notes.count()).toBe(1)
  expect(await notes.innerText()).toContain(
    '1 file(s) in dependency folders (node_modules, .venv…): restored only if you ask',
  )
  expect(onDisk('node_modules/x.js') && onDisk('out.txt')).toBe(true)

  // Review's This turn: out.txt is a row; node_modules is not, and is named as held with its reason.
  await footer.click()
  const review = page.getByTestId('review')
  await expect.poll(() => review.locator('[data-testid="review-file"][data-path="out.txt"]').count()).toBe(1)
  expect(await review.locator('[data-testid="review-file"][data-path^="node_modules"]').count()).toBe(0)
  const held = review.getByRole('region', { name: 'Changed during commands, not restored by default' })
  await expect.poll(() => held.count()).toBe(1)
  const heldList = held.getByRole('list', { name: 'Held files' })
  expect(await heldList.getByRole('listitem').allInnerTexts()).toEqual([
    expect.stringMatching(/^node_modules\/\s*held: inside node_modules\/ · 1 file\(s\)$/),
  ])
  expect(await held.innerText()).toContain('Undo and Revert restore a held file only if you include it.')
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-held-review.png') })

  // Undo: the held file is listed with its reason and its own "Include it".
  let sheet = await openUndo(page)
  const heldRow = sheet.locator('[data-testid="restore-held"][data-path="node_modules/x.js"]')
  await expect.poll(() => heldRow.count()).toBe(1)
  expect(await heldRow.innerText()).toContain('held: inside node_modules/')
  await sheet.getByRole('checkbox', { name: /Also restore files changed by commands/ }).check()
  await expect.poll(() => sheet.locator('[data-testid="restore-action"][data-path="out.txt"]').count()).toBe(1)
  // Including it (by keyboard) plans it; unticking "included by you" leaves it held again.
  const include = sheet.getByRole('checkbox', { name: 'Include node_modules/x.js in the restore' })
  await include.focus()
  await page.keyboard.press('Space')
  await expect
    .poll(() => sheet.locator('[data-testid="restore-action"][data-path="node_modules/x.js"]').count())
    .toBe(1)
  expect(await sheet.locator('[data-testid="restore-held"]').count()).toBe(0)
  await sheet.getByRole('checkbox', { name: /^node_modules\/x\.js is included by you/ }).click()
  await expect.poll(() => heldRow.count()).toBe(1)
  expect(await sheet.locator('[data-testid="restore-action"][data-path="node_modules/x.js"]').count()).toBe(0)
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-held-undo.png') })
  await sheet.getByTestId('restore-confirm-apply').click()
  await expect.poll(() => onDisk('out.txt'), { timeout: 15_000 }).toBe(false)
  expect(onDisk('node_modules/x.js')).toBe(true)

  // A second turn: this time the person includes the held file, and it is restored too.
  commandTurn('c2', 'echo "module.exports = 2" > node_modules/y.js && echo again > again.txt')
  await prompt(page, 'Install y and write again.txt')
  await expect.poll(() => onDisk('again.txt') && onDisk('node_modules/y.js'), { timeout: 15_000 }).toBe(true)
  sheet = await openUndo(page)
  await expect.poll(() => sheet.locator('[data-testid="restore-held"][data-path="node_modules/y.js"]').count()).toBe(1)
  // The sheet is planned again on each choice, so the box is clicked rather than checked.
  await sheet.getByRole('checkbox', { name: 'Include node_modules/y.js in the restore' }).click()
  await expect
    .poll(() =>
      sheet
        .locator('[data-testid="restore-action"]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-path')).sort()),
    )
    .toEqual(['again.txt', 'node_modules/y.js'])
  await sheet.getByTestId('restore-confirm-apply').click()
  await expect.poll(() => onDisk('again.txt') || onDisk('node_modules/y.js'), { timeout: 15_000 }).toBe(false)
  expect(onDisk('node_modules/x.js')).toBe(true)
  expect(onDisk('README.md')).toBe(true)
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
