import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const workspace = useWorkspace({ name: 'rewind', files: { 'README.md': '# Demo\n' }, agent: { mode: 'auto' } })
let project: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ project, host, llm } = workspace)
})

const file = (name: string) => join(project, name)
const exists = (name: string) => existsSync(file(name))

/** One turn: the fake model writes `name` and says so. */
async function turn(page: Page, prompt: string, name: string) {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [{ toolCalls: [{ id: `call_${name}`, name: 'write', input: { file_path: name, content: `${name}\n` } }] }],
    },
    { kind: 'stream', steps: [{ text: `Wrote ${name}.` }] },
  )
  const cards = await page.getByTestId('turn-card').count()
  const input = page.getByTestId('composer-input')
  await input.fill(prompt)
  await input.press('Enter')
  await expect.poll(() => page.getByTestId('turn-card').count(), { timeout: 20_000 }).toBe(cards + 1)
  await expect.poll(() => page.getByTestId('composer-stop').count()).toBe(0)
}

/** Opens the impact sheet on a prompt's "Restore checkpoint", picks a mode and confirms. */
async function restoreCheckpoint(page: Page, promptIndex: number, mode: string, shot?: string) {
  const bubble = page.locator('.user-message').nth(promptIndex)
  await bubble.hover()
  await bubble.getByTestId('restore-checkpoint').click()
  const sheet = page.getByTestId('rewind-sheet')
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  if (mode !== 'code_and_conversation') {
    await page.getByTestId(`rewind-mode-${mode}`).check()
    await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  }
  if (shot) await page.screenshot({ path: join(tmpdir(), shot) })
  await page.getByTestId('rewind-confirm').click()
  await expect.poll(() => sheet.count(), { timeout: 20_000 }).toBe(0)
}

/**
 * The banner's Restore branch code: its impact sheet lists the files first (nothing is written
 * until the confirm), then the confirm restores them (issue 23 item 13).
 */
async function restoreBranchCode(page: Page, files: string[], untouched: () => boolean[]) {
  const before = untouched()
  await page.getByTestId('align-restore').click()
  const sheet = page.getByTestId('rewind-sheet')
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  expect((await page.getByTestId('rewind-file').allInnerTexts()).map((text) => text.split(/\s+/).at(-1))).toEqual(files)
  expect(untouched()).toEqual(before)
  await page.getByTestId('rewind-confirm').click()
  await expect.poll(() => sheet.count(), { timeout: 20_000 }).toBe(0)
}

test('three turns; Restore checkpoint on the second prompt in each mode; the banner; /undo and /redo', async () => {
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()

  await turn(page, 'First: write a.txt', 'a.txt')
  await turn(page, 'Second: write b.txt', 'b.txt')
  await turn(page, 'Third: write c.txt', 'c.txt')
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, true, true])
  const prompts = () => page.getByTestId('user-message').allInnerTexts()

  // Cancel has no effect.
  await page.locator('.user-message').nth(1).getByTestId('restore-checkpoint').click()
  const sheet = page.getByTestId('rewind-sheet')
  await expect.poll(() => sheet.getAttribute('data-status')).toBe('ready')
  expect(await page.getByTestId('rewind-prompt').innerText()).toBe('Second: write b.txt')
  expect(await page.getByTestId('rewind-turns').innerText()).toBe('2 turn(s) undone')
  expect(await page.getByTestId('rewind-files').innerText()).toBe('2 file(s) restored')
  await page.getByTestId('rewind-cancel').click()
  expect(await sheet.count()).toBe(0)
  expect(await prompts()).toHaveLength(3)
  expect(exists('b.txt')).toBe(true)

  // 1. Conversation only: a new branch, the files stay, the banner holds the next turn.
  await restoreCheckpoint(page, 1, 'conversation', 'retrace-e2e-rewind-sheet-conversation.png')
  await expect.poll(prompts).toEqual(['First: write a.txt'])
  expect([exists('b.txt'), exists('c.txt')]).toEqual([true, true])
  const banner = page.getByTestId('alignment-banner')
  await expect.poll(() => banner.getAttribute('data-state')).toBe('mismatch')
  expect(await page.getByTestId('composer-input').inputValue()).toBe('Second: write b.txt')
  await page.getByTestId('composer-input').press('Enter')
  await expect.poll(() => page.getByTestId('composer-error').count()).toBe(1)
  expect(await page.getByTestId('composer-error').innerText()).toContain('Keep current files or Restore branch code')
  expect(llm.remaining).toBe(0)
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-rewind-banner.png') })
  const tree = () => [exists('a.txt'), exists('b.txt'), exists('c.txt')]
  await restoreBranchCode(page, ['b.txt', 'c.txt'], tree)
  await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0)
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, false, false])
  expect(await page.getByTestId('fork-marker').innerText()).toContain('Branch 2 left Main here')

  // Back to Main through the branch switcher: its code is not in the files; restore it.
  await page.getByTestId('branch-menu').click()
  await page.getByTestId('branch-list').getByRole('button', { name: 'Switch to Main' }).click()
  await expect.poll(prompts).toHaveLength(3)
  await expect.poll(() => banner.getAttribute('data-state')).toBe('mismatch')
  await restoreBranchCode(page, ['b.txt', 'c.txt'], tree)
  await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0)
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, true, true])

  // 2. Code only: files to the checkpoint, the conversation stays, a banner says so.
  await page.getByTestId('composer-input').fill('')
  await restoreCheckpoint(page, 1, 'code')
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, false, false])
  expect(await prompts()).toHaveLength(3)
  await expect.poll(() => banner.getAttribute('data-state')).toBe('code_rewound')
  expect(await banner.innerText()).toContain('the conversation is still at the latest message')
  await restoreBranchCode(page, ['b.txt', 'c.txt'], tree)
  await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0)
  expect([exists('b.txt'), exists('c.txt')]).toEqual([true, true])

  // 3. Code and conversation (the default): files and conversation go back, the prompt is put back.
  await restoreCheckpoint(page, 1, 'code_and_conversation')
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, false, false])
  await expect.poll(prompts).toEqual(['First: write a.txt'])
  expect(await page.getByTestId('composer-input').inputValue()).toBe('Second: write b.txt')
  expect(await banner.count()).toBe(0)

  // /redo: one turn forward, then back on Main at its last turn with every file.
  const input = page.getByTestId('composer-input')
  await input.fill('/redo')
  await input.press('Enter')
  await expect.poll(prompts).toEqual(['First: write a.txt', 'Second: write b.txt'])
  expect([exists('b.txt'), exists('c.txt')]).toEqual([true, false])
  await input.fill('/redo')
  await input.press('Enter')
  await expect.poll(prompts).toHaveLength(3)
  expect([exists('a.txt'), exists('b.txt'), exists('c.txt')]).toEqual([true, true, true])

  // /undo: before the last prompt, which comes back into the message box.
  await input.fill('/undo')
  await input.press('Enter')
  await expect.poll(() => input.inputValue()).toBe('Third: write c.txt')
  expect(exists('c.txt')).toBe(false)
  await expect.poll(prompts).toHaveLength(2)
  await input.fill('/redo')
  await input.press('Enter')
  await expect.poll(() => exists('c.txt')).toBe(true)
  expect(readFileSync(file('c.txt'), 'utf8')).toBe('c.txt\n')
  await expect.poll(prompts).toHaveLength(3)
  expect(await input.inputValue()).toBe('')

  // Each says what it did, with the opposite one click away (issue 25).
  const note = page.getByTestId('restore-note')
  await expect.poll(() => note.innerText()).toContain('Redone: the prompt and its 1 file change(s) are back.')
  await note.getByRole('button', { name: 'Undo', exact: true }).click()
  await expect.poll(() => exists('c.txt')).toBe(false)
  await expect.poll(() => input.inputValue()).toBe('Third: write c.txt')
  await expect.poll(() => note.innerText()).toContain('Undone: the last prompt is back in the box and 1 file(s)')
  await note.getByRole('button', { name: 'Redo', exact: true }).click()
  await expect.poll(() => exists('c.txt')).toBe(true)
  await expect.poll(prompts).toHaveLength(3)
  await note.getByRole('button', { name: 'Dismiss', exact: true }).click()
  expect(await note.count()).toBe(0)

  // Esc Esc on an empty message box opens the picker of earlier prompts; Enter previews one.
  await input.fill('')
  await input.press('Escape')
  await input.press('Escape')
  const picker = page.getByTestId('rewind-picker')
  await expect.poll(() => picker.count()).toBe(1)
  expect(await page.getByTestId('rewind-picker-item').allInnerTexts()).toEqual([
    expect.stringContaining('Third: write c.txt'),
    expect.stringContaining('Second: write b.txt'),
    expect.stringContaining('First: write a.txt'),
  ])
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect.poll(() => page.getByTestId('rewind-prompt').innerText()).toBe('Second: write b.txt')
  await page.keyboard.press('Escape')
  await expect.poll(() => sheet.count()).toBe(0)
  expect(exists('b.txt')).toBe(true)

  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
