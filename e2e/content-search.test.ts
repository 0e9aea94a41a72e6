import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

// Issue 25: "subtract" is in src/util/math.ts, and Ctrl+Shift+F finds it in the file's text.
const MATH = [
  'export function add(a: number, b: number) {',
  '  return a + b',
  '}',
  'export const subtract = (a: number, b: number) => a - b',
  '',
].join('\n')

const workspace = useWorkspace({
  name: 'content-search',
  files: {
    'src/util/math.ts': MATH,
    'README.md': '# Content search fixture\n',
    'docs/guide.md': `# Guide\n\n${Array.from({ length: 80 }, (_, i) => `Paragraph ${i + 1}.\n`).join('\n')}\nThe quokkaword is here.\n`,
    // A match far into an indented line.
    'src/long.ts': `        const message = '${'word '.repeat(20)}the needle is here'\n`,
  },
})
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)

test('Ctrl+Shift+F opens the search view; "subtract" lists math.ts at 4:14 highlighted; Enter opens it there', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).count()).toBe(1)

  await page.keyboard.press('Control+Shift+F')
  await expect.poll(() => page.getByRole('region', { name: 'Search' }).count()).toBe(1)
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  for (const name of ['Match case', 'Match whole word', 'Use regular expression']) {
    expect(await page.getByRole('button', { name }).getAttribute('aria-pressed')).toBe('false')
  }

  await page.keyboard.type('subtract')
  const match = page.getByTestId('content-search-match').first()
  await expect.poll(() => match.count(), { timeout: 10_000 }).toBe(1)
  expect(await page.getByTestId('content-search-file').getAttribute('data-path')).toBe('src/util/math.ts')
  expect(await match.locator('.search-match-at').innerText()).toBe('4:14')
  expect(await match.locator('mark').allInnerTexts()).toEqual(['subtract'])
  expect(await match.getAttribute('aria-label')).toContain('src/util/math.ts line 4 column 14')

  // Every control of the view (toggles, boxes, each result) has an accessible name.
  const cdp = await page.context().newCDPSession(page)
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string } }>
  }
  const interactive = new Set(['button', 'textbox', 'searchbox', 'checkbox', 'link', 'treeitem', 'option'])
  const unnamed = nodes.filter(
    (node) => !node.ignored && interactive.has(node.role?.value ?? '') && (node.name?.value ?? '').trim() === '',
  )
  expect(unnamed.map((node) => node.role?.value)).toEqual([])
  await cdp.detach()

  // Keyboard only: ↓ from the box into the results, Enter opens the file at the match.
  await page.keyboard.press('ArrowDown')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-match')
  await page.keyboard.press('Enter')
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'), {
      timeout: 10_000,
    })
    .toBe('src/util/math.ts')
  await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 30_000 }).toBe(1)
  // The editor's cursor is on the match's line, the match selected.
  await expect
    .poll(() => page.locator('.monaco-editor .line-numbers.active-line-number').first().innerText(), {
      timeout: 10_000,
    })
    .toBe('4')
  await expect.poll(() => page.locator('.monaco-editor .selected-text').count()).toBeGreaterThan(0)

  // Escape in the box closes the view and the explorer is back as it was.
  await page.getByTestId('content-search-input').focus()
  await page.keyboard.press('Escape')
  await expect.poll(() => page.getByRole('region', { name: 'Search' }).count()).toBe(0)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).isVisible()).toBe(true)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('the palette lists "Search in files" with its key, and a broken regex says so in the view', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  await page.keyboard.press('Control+Shift+P')
  await page.keyboard.type('Search in files')
  const item = page.getByTestId('palette-item').first()
  await expect.poll(() => item.innerText()).toContain('Search in files')
  await page.keyboard.press('Enter')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  await page.getByRole('button', { name: 'Use regular expression' }).click()
  await page.getByTestId('content-search-input').fill('sub(tract')
  await expect
    .poll(() => page.getByTestId('content-search-status').innerText(), { timeout: 10_000 })
    .toContain('Not a valid regular expression')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('in a narrow window the side bar is a drawer: Ctrl+Shift+F opens it on the search box', async () => {
  const page = await workspace.newPage({ viewport: { width: 700, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  await expect.poll(() => page.getByTestId('drawer-explorer').count()).toBe(0)
  await page.keyboard.press('Control+Shift+F')
  await expect.poll(() => page.getByTestId('drawer-explorer').count()).toBe(1)
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  await page.keyboard.type('subtract')
  await expect
    .poll(() => page.getByTestId('content-search-match').first().getAttribute('data-path'), { timeout: 10_000 })
    .toBe('src/util/math.ts')
  // The file opens in front: the drawer closes as it does for a file opened from the explorer.
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('Enter')
  await expect.poll(() => page.getByTestId('drawer-explorer').count()).toBe(0)
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
    .toBe('src/util/math.ts')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('the activity bar switches the side bar between the explorer and the search view, and says which is shown', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(host.url)
  const bar = page.getByRole('navigation', { name: 'Views' })
  const explorer = bar.getByRole('button', { name: 'Files', exact: true })
  const search = bar.getByRole('button', { name: 'Search in files', exact: true })
  await expect.poll(() => explorer.getAttribute('aria-pressed')).toBe('true')
  expect(await search.getAttribute('aria-pressed')).toBe('false')

  await search.click()
  await expect.poll(() => page.getByRole('region', { name: 'Search' }).count()).toBe(1)
  expect(await search.getAttribute('aria-pressed')).toBe('true')
  expect(await explorer.getAttribute('aria-pressed')).toBe('false')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')

  // The other view's icon switches back; the shown view's icon collapses the side bar.
  await explorer.click()
  await expect.poll(() => page.getByRole('region', { name: 'Search' }).count()).toBe(0)
  expect(await explorer.getAttribute('aria-pressed')).toBe('true')
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).isVisible()).toBe(true)
  await explorer.click()
  await expect.poll(() => explorer.getAttribute('aria-pressed')).toBe('false')
  expect(await search.getAttribute('aria-pressed')).toBe('false')
  await page.close()
})

test('a match far into a line stays in sight: the preview drops the indentation and cuts the lead before it', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(host.url)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).count()).toBe(1)
  await page.keyboard.press('Control+Shift+F')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  await page.keyboard.type('needle')
  const match = page.getByTestId('content-search-match').first()
  await expect.poll(() => match.count(), { timeout: 10_000 }).toBe(1)
  const preview = match.locator('.search-match-preview')
  expect(await preview.innerText()).toBe("…rd word the needle is here'")
  const mark = (await preview.locator('mark').boundingBox()) ?? { x: 0, width: 0 }
  const row = (await match.boundingBox()) ?? { x: 0, width: 0 }
  expect(mark.x + mark.width).toBeLessThanOrEqual(row.x + row.width)
  await page.close()
})

test('a second match in the file already open moves its editor there', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(host.url)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).count()).toBe(1)
  await page.keyboard.press('Control+Shift+F')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  // "a: number" is on lines 1 and 4 of math.ts.
  await page.keyboard.type('a: number')
  const matches = page.getByTestId('content-search-match')
  await expect.poll(() => matches.count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
  const activeLine = () => page.locator('.monaco-editor .line-numbers.active-line-number').first().innerText()
  await page.getByTestId('content-search-match').filter({ hasText: /^1:/ }).first().click()
  await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 30_000 }).toBe(1)
  await expect.poll(activeLine, { timeout: 10_000 }).toBe('1')
  await page.getByTestId('content-search-match').filter({ hasText: /^4:/ }).first().click()
  await expect.poll(activeLine, { timeout: 10_000 }).toBe('4')
  await page.close()
})

test('a match in Markdown opens where the text is: the source beside the preview, at the line', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  await page.goto(host.url)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).count()).toBe(1)
  await page.keyboard.press('Control+Shift+F')
  await expect.poll(() => focusedTestId(page)).toBe('content-search-input')
  await page.keyboard.type('quokkaword')
  const match = page.getByTestId('content-search-match').first()
  await expect.poll(() => match.count(), { timeout: 10_000 }).toBe(1)
  const line = (await match.locator('.search-match-at').innerText()).split(':')[0]
  expect(Number(line)).toBeGreaterThan(100)
  await match.click()
  await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 30_000 }).toBe(1)
  expect(await page.getByTestId('markdown-mode-preview').getAttribute('aria-pressed')).toBe('false')
  await expect
    .poll(() => page.locator('.monaco-editor .line-numbers.active-line-number').first().innerText(), {
      timeout: 10_000,
    })
    .toBe(line)
  await page.close()
})
