import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

// The commands features contribute (chat, projects, the explorer's focus) reach their pane through
// the registry and the features' own requests — no counter props, no DOM query by test id.
const workspace = useWorkspace({ name: 'commands', files: { 'README.md': '# Commands fixture\n' } })
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

async function open(width: number) {
  const page = await workspace.newPage({ viewport: { width, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  return { page, watch }
}

async function runFromPalette(page: Page, title: string) {
  await page.keyboard.press('Control+Shift+P')
  const palette = page.getByRole('dialog', { name: 'Command palette' })
  await expect.poll(() => palette.count()).toBe(1)
  await page.keyboard.type(title)
  await expect.poll(() => palette.getByTestId('palette-item').first().innerText()).toContain(title)
  await page.keyboard.press('Enter')
  await expect.poll(() => palette.count()).toBe(0)
}

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)

test('Focus the message box puts the focus in the composer, from its key and from the palette', async () => {
  const { page, watch } = await open(1280)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByRole('tree', { name: 'Files' }).focus()
  await page.keyboard.press('Control+Alt+I')
  await expect.poll(() => focusedTestId(page)).toBe('composer-input')
  await page.getByRole('tree', { name: 'Files' }).focus()
  await runFromPalette(page, 'Focus the message box')
  await expect.poll(() => focusedTestId(page)).toBe('composer-input')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('Focus the file explorer puts the focus on a row of the tree, from its key and from the palette, also as a drawer', async () => {
  for (const width of [1280, 700]) {
    const { page, watch } = await open(width)
    const rowFocused = () =>
      page.evaluate(() => document.activeElement?.closest('[role="tree"]')?.getAttribute('aria-label') ?? null)
    await page.keyboard.press('Control+Shift+E')
    await expect.poll(rowFocused, { message: `key at ${width} px` }).toBe('Files')
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await runFromPalette(page, 'Focus the file explorer')
    await expect.poll(rowFocused, { message: `palette at ${width} px` }).toBe('Files')
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  }
})

test('Settings opens in the agent pane, also when that pane is a closed drawer', async () => {
  for (const width of [1280, 700]) {
    const { page, watch } = await open(width)
    await page.getByTestId('app-menu').click()
    await page.getByTestId('menu-settings').click()
    await expect.poll(() => page.getByTestId('settings').count(), { message: `at ${width} px` }).toBe(1)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  }
})

test('Open folder… from the palette opens the switcher on its path box (browser mode)', async () => {
  const { page, watch } = await open(1280)
  await runFromPalette(page, 'Open folder')
  await expect.poll(() => page.getByTestId('open-path-input').count()).toBe(1)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
