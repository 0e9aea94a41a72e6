import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

// The explorer keys a VS Code user expects on a focused row: arrows move, Enter opens, F2 renames,
// Delete asks then deletes, Ctrl+C / Ctrl+V copy a file into the focused folder.
const workspace = useWorkspace({
  name: 'explorer-keys',
  files: {
    'docs/a.md': '# a\n',
    'docs/b.md': '# b\n',
    'docs/gone.md': '# gone\n',
    'src/main.ts': 'export const main = 1\n',
    'notes.txt': 'notes\n',
  },
})
let project: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project, host } = workspace)
})

const focusedPath = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-path') ?? null)

async function openTree(page: Page) {
  await page.goto(host.url)
  const tree = page.getByRole('tree', { name: 'Files' })
  await expect.poll(() => tree.locator('[data-path="docs"]').count()).toBe(1)
  return tree
}

test('arrows move between rows and open folders; Enter opens the focused file', async () => {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  const tree = await openTree(page)
  await tree.locator('[data-path="docs"]').focus()
  await page.keyboard.press('ArrowRight')
  await expect.poll(() => tree.locator('[data-path="docs/a.md"]').count()).toBe(1)
  await page.keyboard.press('ArrowDown')
  expect(await focusedPath(page)).toBe('docs/a.md')
  await page.keyboard.press('ArrowDown')
  expect(await focusedPath(page)).toBe('docs/b.md')
  await page.keyboard.press('Enter')
  const tabs = page.getByRole('tablist', { name: 'Open files' })
  await expect.poll(() => tabs.getByRole('tab', { name: 'b.md' }).getAttribute('aria-selected')).toBe('true')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('F2 renames the focused file; Escape gives the focus back to the tree', async () => {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  const tree = await openTree(page)
  await tree.locator('[data-path="notes.txt"]').focus()
  await page.keyboard.press('F2')
  const input = page.getByTestId('explorer-name-input')
  await expect.poll(() => input.inputValue({ timeout: 1000 })).toBe('notes.txt')
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('explorer-name-input')
  await page.keyboard.press('Escape')
  await expect.poll(() => input.count()).toBe(0)
  await expect.poll(() => focusedPath(page)).toBe('notes.txt')

  await page.keyboard.press('F2')
  await input.fill('renamed.txt')
  await page.keyboard.press('Enter')
  await expect.poll(() => tree.locator('[data-path="renamed.txt"]').count()).toBe(1)
  expect(existsSync(join(project, 'notes.txt'))).toBe(false)
  expect(readFileSync(join(project, 'renamed.txt'), 'utf8')).toBe('notes\n')
  await expect.poll(() => focusedPath(page)).toBe('renamed.txt')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('Delete asks first; Escape keeps the file, Enter on the question deletes it', async () => {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  const tree = await openTree(page)
  await tree.locator('[data-path="docs"]').click()
  await tree.locator('[data-path="docs/gone.md"]').focus()
  await page.keyboard.press('Delete')
  const question = page.getByRole('alertdialog', { name: 'Delete' })
  await expect.poll(() => question.count()).toBe(1)
  expect(await question.innerText()).toContain('docs/gone.md')
  await page.keyboard.press('Escape')
  await expect.poll(() => question.count()).toBe(0)
  expect(existsSync(join(project, 'docs', 'gone.md'))).toBe(true)
  await expect.poll(() => focusedPath(page)).toBe('docs/gone.md')

  await page.keyboard.press('Delete')
  await expect.poll(() => question.count()).toBe(1)
  await page.keyboard.press('Enter')
  await expect.poll(() => tree.locator('[data-path="docs/gone.md"]').count()).toBe(0)
  expect(existsSync(join(project, 'docs', 'gone.md'))).toBe(false)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('Ctrl+C then Ctrl+V copies a file into the focused folder; a taken name gets "(copy)"', async () => {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  const tree = await openTree(page)
  await tree.locator('[data-path="docs"]').click()
  await tree.locator('[data-path="docs/a.md"]').focus()
  await page.keyboard.press('Control+C')
  // Into another folder: the same name.
  await tree.locator('[data-path="src"]').focus()
  await page.keyboard.press('Control+V')
  await expect.poll(() => tree.locator('[data-path="src/a.md"]').count()).toBe(1)
  expect(readFileSync(join(project, 'src', 'a.md'), 'utf8')).toBe('# a\n')
  await expect.poll(() => focusedPath(page)).toBe('src/a.md')
  // Into its own folder (a file row pastes into that file's folder): "a (copy).md", then "a (copy 2).md".
  await tree.locator('[data-path="docs/b.md"]').focus()
  await page.keyboard.press('Control+V')
  await expect.poll(() => tree.locator('[data-path="docs/a (copy).md"]').count()).toBe(1)
  await tree.locator('[data-path="docs/b.md"]').focus()
  await page.keyboard.press('Control+V')
  await expect.poll(() => tree.locator('[data-path="docs/a (copy 2).md"]').count()).toBe(1)
  expect(readFileSync(join(project, 'docs', 'a (copy 2).md'), 'utf8')).toBe('# a\n')
  expect(readFileSync(join(project, 'docs', 'a.md'), 'utf8')).toBe('# a\n')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
