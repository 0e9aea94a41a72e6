import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

const longFile = (name: string) =>
  Array.from({ length: 400 }, (_, i) => `// ${name} line ${i + 1}: ${'lorem ipsum '.repeat(3)}`).join('\n') + '\n'

const workspace = useWorkspace({
  name: 'workbench',
  files: {
    'src/alpha.ts': longFile('alpha'),
    'src/beta.ts': longFile('beta'),
    'src/lib/gamma.ts': longFile('gamma'),
    'README.md': '# Workbench fixture\n',
    // A binary no adapter shows: a (tiny, valid) zip archive.
    'bundle.zip': Buffer.from([0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    '.gitignore': 'build/\n',
  },
  git: true,
  hostArgs: ['--open', 'README.md'],
})
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project: root, host } = workspace)
})

async function open(
  width: number,
  height = 860,
): Promise<{ page: Page; watch: Awaited<ReturnType<typeof watchPage>> }> {
  const page = await workspace.newPage({ viewport: { width, height } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  if (width > 1000) {
    await expect
      .poll(() => page.getByRole('tree', { name: 'Files' }).locator('[role="treeitem"]').count())
      .toBeGreaterThan(0)
  }
  return { page, watch }
}

/** Monaco renders spaces as no-break spaces; compare what a reader sees. */
const textOf = async (locator: ReturnType<Page['locator']>) => (await locator.innerText()).replace(/\u00a0/g, ' ')

const widthOf = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())?.width ?? 0

describe('layout', () => {
  test('each pane resizes from the keyboard and collapses; a reload keeps the sizes', async () => {
    const { page, watch } = await open(1440)
    const explorerSeparator = page.getByRole('separator', { name: 'Resize the file explorer' })
    const chatSeparator = page.getByRole('separator', { name: 'Resize the agent pane' })
    const explorerBefore = await widthOf(page, '#explorer')
    await explorerSeparator.focus()
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight')
    await expect.poll(() => widthOf(page, '#explorer')).toBeGreaterThan(explorerBefore + 20)
    const chatBefore = await widthOf(page, '#chat')
    await chatSeparator.focus()
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowLeft')
    await expect.poll(() => widthOf(page, '#chat')).toBeGreaterThan(chatBefore + 20)
    const explorerResized = await widthOf(page, '#explorer')
    const chatResized = await widthOf(page, '#chat')

    await page.reload()
    await expect.poll(() => widthOf(page, '#explorer')).toBeCloseTo(explorerResized, -1)
    expect(await widthOf(page, '#chat')).toBeCloseTo(chatResized, -1)

    // Collapse both (keyboard toggles), reload: still collapsed; the toggles say so.
    await page.keyboard.press('Control+B')
    await page.keyboard.press('Control+Alt+B')
    await expect.poll(() => widthOf(page, '#explorer')).toBeLessThan(2)
    await expect.poll(() => widthOf(page, '#chat')).toBeLessThan(2)
    await page.reload()
    await expect
      .poll(() => page.getByTestId('activity-layout.toggleExplorer').getAttribute('aria-pressed'))
      .toBe('false')
    expect(await widthOf(page, '#explorer')).toBeLessThan(2)
    expect(await widthOf(page, '#chat')).toBeLessThan(2)
    // And back, from the activity bar.
    await page.getByRole('button', { name: 'Files', exact: true }).click()
    await page.getByTestId('activity-layout.toggleChat').click()
    await expect.poll(() => widthOf(page, '#explorer')).toBeGreaterThan(150)
    await expect.poll(() => widthOf(page, '#chat')).toBeGreaterThan(250)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test.each([1024, 800])('at %i px the centre keeps at least 400 px and nothing is crushed', async (width) => {
    // A fresh origin storage: these sizes are the defaults, not what another test left.
    const { page, watch } = await open(width)
    await page.evaluate(() => localStorage.clear())
    await page.reload()
    await expect.poll(() => widthOf(page, '#center-panel')).toBeGreaterThanOrEqual(400)
    await page.screenshot({ path: join(ARTIFACTS, `workbench-${width}.png`) })
    const chat = await widthOf(page, '#chat')
    expect(chat).toBeGreaterThanOrEqual(300)
    if (width === 800) {
      // The explorer does not fit beside them: it opens as a drawer over the centre instead.
      expect(await page.locator('#explorer').count()).toBe(0)
      await page.getByRole('button', { name: 'Files', exact: true }).click()
      const drawer = page.getByTestId('drawer-explorer')
      await expect.poll(() => drawer.locator('[role="treeitem"]').count()).toBeGreaterThan(0)
      // The drawer takes focus; opening a file from it closes it so the file is in view.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.closest('[data-testid="drawer-explorer"]') !== null))
        .toBe(true)
      await drawer.locator('[data-path="README.md"]').click()
      await expect.poll(() => drawer.count()).toBe(0)
      await page.getByRole('button', { name: 'Files', exact: true }).click()
      await expect.poll(() => drawer.count()).toBe(1)
      await page.keyboard.press('Escape')
      await expect.poll(() => drawer.count()).toBe(0)
      expect(await widthOf(page, '#center-panel')).toBeGreaterThanOrEqual(400)
    } else {
      expect(await widthOf(page, '#explorer')).toBeGreaterThanOrEqual(180)
    }
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })
})

describe('tabs', () => {
  test('--open opens a file at start; three files as tabs survive Review and back with their scroll', async () => {
    const { page, watch } = await open(1440)
    const tabs = page.getByRole('tablist', { name: 'Open files' })
    // --open README.md was on the command line.
    await expect.poll(() => tabs.getByRole('tab', { name: 'README.md' }).count()).toBe(1)

    const tree = page.getByRole('tree', { name: 'Files' })
    await tree.locator('[data-path="src"]').click()
    await tree.locator('[data-path="src/lib"]').click()
    // Single click = preview tab, replaced by the next single click; double click pins.
    await tree.locator('[data-path="src/alpha.ts"]').click()
    await expect.poll(() => tabs.getByRole('tab', { name: 'alpha.ts' }).count()).toBe(1)
    await tree.locator('[data-path="src/beta.ts"]').click()
    await expect.poll(() => tabs.getByRole('tab', { name: 'beta.ts' }).count()).toBe(1)
    expect(await tabs.getByRole('tab', { name: 'alpha.ts' }).count()).toBe(0)
    await tree.locator('[data-path="src/beta.ts"]').dblclick()
    await tree.locator('[data-path="src/alpha.ts"]').dblclick()
    await tree.locator('[data-path="src/lib/gamma.ts"]').dblclick()
    await expect.poll(() => tabs.getByRole('tab').count()).toBe(4)
    // Opening a file that is open focuses its tab.
    await tree.locator('[data-path="src/beta.ts"]').click()
    expect(await tabs.getByRole('tab').count()).toBe(4)
    await expect.poll(() => tabs.getByRole('tab', { name: 'beta.ts' }).getAttribute('aria-selected')).toBe('true')

    // Scroll each of the three to a different line.
    const scrollTo = async (name: string, line: number) => {
      await tabs.getByRole('tab', { name }).click()
      const editor = page.getByTestId('text-view')
      await expect
        .poll(() => textOf(editor.locator('.view-lines')), { timeout: 30_000 })
        .toContain(`${name.replace('.ts', '')} line 1:`)
      await editor.locator('.view-lines').click()
      await page.keyboard.press('Control+Home')
      for (let i = 0; i < line / 20; i++) await page.keyboard.press('PageDown')
      await expect.poll(() => textOf(editor.locator('.view-lines'))).not.toContain(`${name.replace('.ts', '')} line 1:`)
      // Wait for the scroll to settle: the same first line twice in a row.
      let previous = ''
      for (;;) {
        const text = await textOf(editor.locator('.view-lines'))
        if (text === previous) return text
        previous = text
        await page.waitForTimeout(250)
      }
    }
    const firstLine = (text: string) =>
      text
        .split('\n')
        .find((l) => / line \d+:/.test(l))
        ?.match(/line (\d+):/)?.[1]
    const seen = new Map<string, string | undefined>()
    for (const [name, line] of [
      ['alpha.ts', 100],
      ['beta.ts', 200],
      ['gamma.ts', 300],
    ] as const) {
      seen.set(name, firstLine(await scrollTo(name, line)))
    }
    // Re-mount the centre: Review, then back to each file.
    await page.keyboard.press('Control+Shift+G')
    await expect.poll(() => page.getByTestId('review').count()).toBe(1)
    expect(await tabs.getByRole('tab').count()).toBe(5)
    for (const name of ['alpha.ts', 'beta.ts', 'gamma.ts']) {
      await tabs.getByRole('tab', { name }).click()
      const lines = page.getByTestId('text-view').locator('.view-lines')
      await expect.poll(async () => firstLine(await textOf(lines)), { timeout: 30_000 }).toBe(seen.get(name))
    }
    expect(Number(seen.get('gamma.ts'))).toBeGreaterThan(Number(seen.get('alpha.ts')))
    await page.screenshot({ path: join(ARTIFACTS, 'workbench-tabs.png') })

    // Keyboard: ←/→ move between tabs, Delete closes; Alt+W closes the active one; Alt+] cycles.
    // The strip reads README.md, beta.ts, alpha.ts, gamma.ts, Review (a pinned tab opens after the active one).
    expect(await tabs.getByRole('tab').allInnerTexts()).toEqual([
      'README.md',
      'beta.ts',
      'alpha.ts',
      'gamma.ts',
      'Review',
    ])
    await tabs.getByRole('tab', { name: 'alpha.ts' }).focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toContain('beta.ts')
    await page.keyboard.press('Delete')
    await expect.poll(() => tabs.getByRole('tab', { name: 'beta.ts' }).count()).toBe(0)
    const active = () => tabs.locator('[role="tab"][aria-selected="true"]').innerText()
    const before = await active()
    await page.keyboard.press('Alt+]')
    await expect.poll(active).not.toBe(before)
    await page.keyboard.press('Alt+W')
    await expect.poll(() => tabs.getByRole('tab').count()).toBe(3)
    // Middle click closes.
    await tabs.getByRole('tab').first().click({ button: 'middle' })
    await expect.poll(() => tabs.getByRole('tab').count()).toBe(2)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('the command palette and quick open work from the keyboard alone', async () => {
    const { page, watch } = await open(1280)
    await page.keyboard.press('Control+P')
    const palette = page.getByRole('dialog', { name: 'Go to file' })
    await expect.poll(() => palette.count()).toBe(1)
    await page.keyboard.type('gamma')
    await expect
      .poll(() => palette.getByTestId('palette-item').first().getAttribute('data-path'))
      .toBe('src/lib/gamma.ts')
    await page.keyboard.press('Enter')
    const tabs = page.getByRole('tablist', { name: 'Open files' })
    await expect.poll(() => tabs.getByRole('tab', { name: 'gamma.ts' }).getAttribute('aria-selected')).toBe('true')

    await page.keyboard.press('Control+Shift+P')
    const commands = page.getByRole('dialog', { name: 'Command palette' })
    await expect.poll(() => commands.count()).toBe(1)
    await page.keyboard.type('shortcuts')
    await page.keyboard.press('Enter')
    const help = page.getByTestId('shortcuts-help')
    await expect.poll(() => help.count()).toBe(1)
    // Every shortcut of the command table is listed.
    const text = await help.innerText()
    for (const keys of ['Ctrl+Shift+P', 'Ctrl+P', 'Ctrl+B', 'Ctrl+Alt+B', 'Alt+W', 'F7']) expect(text).toContain(keys)
    // A modal dialog keeps the keyboard: Tab and Shift+Tab never reach the page behind it.
    const focusInside = () => help.evaluate((dialog) => dialog.contains(document.activeElement))
    await expect.poll(focusInside).toBe(true)
    await page.keyboard.press('Tab')
    expect(await focusInside()).toBe(true)
    await page.keyboard.press('Shift+Tab')
    expect(await focusInside()).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => help.count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('quick open: Enter opens the first result after a pause before typing, and once results are shown', async () => {
    const { page, watch } = await open(1280)
    const palette = page.getByRole('dialog', { name: 'Go to file' })
    const tabs = page.getByRole('tablist', { name: 'Open files' })
    const activeTab = (name: string) => tabs.getByRole('tab', { name }).getAttribute('aria-selected')

    // A pause before typing (the empty query's results arrive meanwhile), then the name and Enter at once.
    await page.keyboard.press('Control+P')
    await expect.poll(() => palette.count()).toBe(1)
    await page.waitForTimeout(600)
    await page.keyboard.type('gamma')
    await page.keyboard.press('Enter')
    await expect.poll(() => activeTab('gamma.ts')).toBe('true')
    await expect.poll(() => palette.count()).toBe(0)

    // Typed, results shown: the first is selected, and Enter opens it.
    await page.keyboard.press('Control+P')
    await expect.poll(() => palette.count()).toBe(1)
    await page.keyboard.type('beta')
    const first = palette.getByTestId('palette-item').first()
    await expect.poll(() => first.getAttribute('data-path')).toBe('src/beta.ts')
    await expect.poll(() => first.getAttribute('aria-selected')).toBe('true')
    const input = palette.getByTestId('palette-input')
    // A screen reader hears the same row: the input's active descendant is the selected one.

    await expect
      .poll(async () => (await input.getAttribute('aria-activedescendant')) === (await first.getAttribute('id')))
      .toBe(true)
    await page.keyboard.press('Enter')
    await expect.poll(() => activeTab('beta.ts')).toBe('true')
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('quick open: an Enter pressed before the answer arrives is kept and opens its first result when it comes', async () => {
    // The engine's search answers are held back here until the test lets them through, so the
    // Enter lands before any result of the typed name whatever the machine's load.
    const context = await workspace.newContext({ viewport: { width: 1280, height: 860 } })
    const typedSearches = new Set<string>()
    const held: Array<{ requestId: string; release: () => void }> = []
    let holding = true
    await context.routeWebSocket(/\/api\/ws/, (ws) => {
      const server = ws.connectToServer()
      ws.onMessage((frame) => {
        const request = JSON.parse(frame.toString()) as { request_id?: string; action?: string; payload?: unknown }
        const query = (request.payload as { query?: unknown } | undefined)?.query
        if (request.action === 'files.search' && query === 'alpha' && request.request_id)
          typedSearches.add(request.request_id)
        server.send(frame)
      })
      server.onMessage((frame) => {
        const answer = JSON.parse(frame.toString()) as { request_id?: string; action?: string }
        if (holding && answer.action === 'files.search')
          held.push({ requestId: answer.request_id ?? '', release: () => ws.send(frame) })
        else ws.send(frame)
      })
    })
    const page = await context.newPage()
    const watch = await watchPage(page)
    await page.goto(host.url)
    await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
    const palette = page.getByRole('dialog', { name: 'Go to file' })
    const alphaTab = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab', { name: 'alpha.ts' })

    await page.keyboard.press('Control+P')
    await expect.poll(() => palette.count()).toBe(1)
    await page.keyboard.type('alpha')
    await page.keyboard.press('Enter')
    // The typed name's answer exists but has not reached the page: nothing opened, still asking.
    await expect.poll(() => held.some((answer) => typedSearches.has(answer.requestId))).toBe(true)
    expect(await palette.count()).toBe(1)
    expect(await alphaTab.count()).toBe(0)

    holding = false
    for (const answer of held.splice(0)) answer.release()
    await expect.poll(() => alphaTab.getAttribute('aria-selected')).toBe('true')
    await expect.poll(() => palette.count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    await context.close()
  })

  test('the palette keeps the keyboard: Tab stays inside, Escape closes it and gives the focus back', async () => {
    const { page, watch } = await open(1280)
    const readme = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab', { name: 'README.md' })
    await readme.focus()
    await page.keyboard.press('Control+Shift+P')
    const palette = page.getByRole('dialog', { name: 'Command palette' })
    await expect.poll(() => palette.count()).toBe(1)
    const focusInside = () => palette.evaluate((dialog) => dialog.contains(document.activeElement))
    await expect.poll(focusInside).toBe(true)
    await page.keyboard.press('Tab')
    expect(await focusInside()).toBe(true)
    await page.keyboard.press('Shift+Tab')
    expect(await focusInside()).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => palette.count()).toBe(0)
    await expect.poll(() => readme.evaluate((tab) => tab === document.activeElement)).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('the URL parameter open= opens a file next to the token', async () => {
    const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
    await page.goto(`http://127.0.0.1:${host.port}/?token=${host.token}&open=${encodeURIComponent('src/lib/gamma.ts')}`)
    const tab = page.getByRole('tablist', { name: 'Open files' }).getByRole('tab', { name: 'gamma.ts' })
    await expect.poll(() => tab.getAttribute('aria-selected')).toBe('true')
    await page.close()
  })
})

test('a type no adapter shows gets an explicit state with Download and Reveal', async () => {
  const { page, watch } = await open(1280)
  const tree = page.getByRole('tree', { name: 'Files' })
  await tree.locator('[data-path="bundle.zip"]').dblclick()
  const card = page.getByTestId('cannot-preview')
  await expect.poll(() => card.innerText()).toContain('application/zip')
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    card.getByRole('button', { name: 'Download' }).click(),
  ])
  expect(download.suggestedFilename()).toBe('bundle.zip')
  const saved = await download.path()
  expect(readFileSync(saved ?? '').subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  await card.getByRole('button', { name: 'Reveal in explorer' }).click()
  await expect.poll(() => tree.locator('[data-path="bundle.zip"]').getAttribute('aria-selected')).toBe('true')
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

describe('live files', () => {
  test('a file created and another edited outside the app appear without a reload', async () => {
    const { page, watch } = await open(1280)
    const tree = page.getByRole('tree', { name: 'Files' })
    await tree.locator('[data-path="src"]').click()
    await tree.locator('[data-path="src/lib/gamma.ts"]').count()
    await tree.locator('[data-path="README.md"]').dblclick()
    // README.md opens in the Markdown view (issue 13): its rendered preview shows the text.
    const editor = page.getByTestId('markdown-preview')
    await expect.poll(() => textOf(editor), { timeout: 30_000 }).toContain('Workbench fixture')
    await tree.locator('[data-path="src"]').click() // collapse…
    await tree.locator('[data-path="src"]').click() // …and expand again: expansion is kept either way
    const selected = tree.locator('[aria-selected="true"]')

    writeFileSync(join(root, 'src', 'made-outside.ts'), 'export const outside = 1\n')
    writeFileSync(join(root, 'README.md'), '# Workbench fixture\n\nEdited in another editor.\n')
    writeFileSync(join(root, 'build-ignored.txt'), 'x')
    // The watcher debounces and the explorer re-reads only the folders that changed.
    await expect.poll(() => tree.locator('[data-path="src/made-outside.ts"]').count(), { timeout: 2_000 }).toBe(1)
    await expect.poll(() => textOf(editor), { timeout: 2_000 }).toContain('Edited in another editor.')
    expect(await selected.getAttribute('data-path')).toBe('src')
    expect(await tree.locator('[data-path="src"]').getAttribute('aria-expanded')).toBe('true')
    // git decorations follow: the new file is untracked, the edited one modified.
    await expect
      .poll(() => tree.locator('[data-path="src/made-outside.ts"]').getAttribute('data-git'))
      .toBe('untracked')
    await expect.poll(() => tree.locator('[data-path="README.md"]').getAttribute('data-git')).toBe('modified')
    await page.screenshot({ path: join(ARTIFACTS, 'workbench-live-files.png') })
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })
})

test('every control has an accessible name', async () => {
  const { page } = await open(1440)
  await page.keyboard.press('Control+Shift+G')
  await expect.poll(() => page.getByTestId('review').count()).toBe(1)
  await page.getByRole('button', { name: 'Menu' }).click()
  const cdp = await page.context().newCDPSession(page)
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: Array<{
      ignored: boolean
      role?: { value: string }
      name?: { value: string }
      properties?: Array<{ name: string; value: { value: unknown } }>
    }>
  }
  const interactive = new Set([
    'button',
    'textbox',
    'combobox',
    'searchbox',
    'tab',
    'treeitem',
    'menuitem',
    'menuitemradio',
    'checkbox',
    'link',
    'tree',
    'tablist',
    'listbox',
    'option',
  ])
  const unnamed = nodes.filter((node) => {
    if (node.ignored) return false
    const role = node.role?.value ?? ''
    const focusableSeparator =
      role === 'separator' && node.properties?.some((p) => p.name === 'focusable' && p.value.value === true)
    if (!interactive.has(role) && !focusableSeparator) return false
    return (node.name?.value ?? '').trim() === ''
  })
  expect(unnamed.map((n) => n.role?.value)).toEqual([])
  await page.close()
})
