import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const longFile = (name: string) =>
  Array.from({ length: 400 }, (_, i) => `// ${name} line ${i + 1}: ${'lorem ipsum '.repeat(3)}`).join('\n') + '\n'

const workspace = useWorkspace({
  name: 'window-restore',
  files: { 'README.md': '# First project\n' },
  folders: {
    other: {
      'src/one.ts': longFile('one'),
      'src/two.ts': longFile('two'),
      'src/three.ts': longFile('three'),
      ...Object.fromEntries(
        Array.from({ length: 15 }, (_, i) => [`many/strip-${String(i + 1).padStart(2, '0')}.ts`, `// ${i + 1}\n`]),
      ),
    },
  },
})
let host: RunningWebHost
let work: string
beforeAll(() => {
  ;({ host, work } = workspace)
})

/** Monaco renders spaces as no-break spaces; compare what a reader sees. */
const textOf = async (page: Page) =>
  (await page.getByTestId('text-view').locator('.view-lines').innerText()).replace(/\u00a0/g, ' ')
/** The first line number the editor shows (lines are rendered in DOM order, not screen order). */
const firstLine = async (page: Page) => {
  const numbers = [...(await textOf(page)).matchAll(/ line (\d+):/g)].map((m) => Number(m[1]))
  return numbers.length === 0 ? null : Math.min(...numbers)
}
const widthOf = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())?.width ?? 0
const tabNames = (page: Page) => page.getByRole('tablist', { name: 'Open files' }).getByRole('tab').allInnerTexts()
const activeTab = (page: Page) =>
  page.getByRole('tablist', { name: 'Open files' }).locator('[role="tab"][aria-selected="true"]').innerText()

async function openOtherProject(page: Page): Promise<void> {
  await page.getByTestId('project-switcher').click()
  await page.getByTestId('open-path-input').fill(join(work, 'other'))
  await page.getByRole('button', { name: 'Open', exact: true }).click()
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).locator('[data-path="src"]').count()).toBe(1)
}

describe('window restore', () => {
  test('a reload reopens the same project, tabs, active tab, scroll and pane width', async () => {
    const page = await workspace.newPage()
    const watch = await watchPage(page)
    await page.goto(host.url)
    await openOtherProject(page)
    const tree = page.getByRole('tree', { name: 'Files' })
    await tree.locator('[data-path="src"]').click()
    await tree.locator('[data-path="src/one.ts"]').dblclick()
    await tree.locator('[data-path="src/two.ts"]').dblclick()
    await expect.poll(() => tabNames(page)).toEqual(['one.ts', 'two.ts'])
    await expect.poll(() => activeTab(page)).toBe('two.ts')

    // Scroll the active editor well down, and wait until the scroll has settled.
    await expect.poll(() => textOf(page), { timeout: 30_000 }).toContain('two line 1:')
    await page.getByTestId('text-view').locator('.view-lines').click()
    for (let i = 0; i < 8; i++) await page.keyboard.press('PageDown')
    await expect.poll(() => firstLine(page)).toBeGreaterThan(50)
    let scrolled = await firstLine(page)
    for (let settled = false; !settled;) {
      await page.waitForTimeout(250)
      const now = await firstLine(page)
      settled = now === scrolled
      scrolled = now
    }

    const separator = page.getByRole('separator', { name: 'Resize the file explorer' })
    const explorerBefore = await widthOf(page, '#explorer')
    await separator.focus()
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight')
    await expect.poll(() => widthOf(page, '#explorer')).toBeGreaterThan(explorerBefore + 20)
    const explorerResized = await widthOf(page, '#explorer')

    await page.reload()
    await expect.poll(() => tree.locator('[data-path="src"]').count()).toBe(1)
    expect(await tree.locator('[data-path="README.md"]').count()).toBe(0)
    await expect.poll(() => tabNames(page)).toEqual(['one.ts', 'two.ts'])
    expect(await activeTab(page)).toBe('two.ts')
    await expect.poll(() => textOf(page), { timeout: 30_000 }).toContain('two line')
    await expect.poll(async () => Math.abs(((await firstLine(page)) ?? 0) - (scrolled ?? 0))).toBeLessThanOrEqual(1)
    expect(await widthOf(page, '#explorer')).toBeCloseTo(explorerResized, -1)

    // The first tab was left without a view state: it opens at the top, not at another tab's scroll.
    await page.getByRole('tablist', { name: 'Open files' }).getByRole('tab', { name: 'one.ts' }).click()
    await expect.poll(() => firstLine(page), { timeout: 30_000 }).toBe(1)

    // Back on the first project (not the one the engine opened last): a reload stays on it.
    await page.getByTestId('project-switcher').click()
    await page.getByTestId('project-option').filter({ hasText: 'project' }).filter({ hasNotText: 'other' }).click()
    await expect.poll(() => tree.locator('[data-path="README.md"]').count()).toBe(1)
    await page.reload()
    await expect.poll(() => tree.locator('[data-path="README.md"]').count()).toBe(1)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })

  test('a closed window reopens in a new one; a file deleted meanwhile loses its tab silently; `open=` wins', async () => {
    const context = await workspace.newContext()
    const first = await context.newPage()
    await first.goto(host.url)
    await openOtherProject(first)
    const firstTree = first.getByRole('tree', { name: 'Files' })
    await firstTree.locator('[data-path="src"]').click()
    await firstTree.locator('[data-path="src/three.ts"]').dblclick()
    await firstTree.locator('[data-path="src/two.ts"]').dblclick()
    await expect.poll(() => tabNames(first)).toEqual(['three.ts', 'two.ts'])
    await first.close({ runBeforeUnload: true })

    rmSync(join(work, 'other', 'src', 'three.ts'))
    const page = await context.newPage()
    const watch = await watchPage(page)
    await page.goto(`${host.url}&open=src/one.ts`)
    const tree = page.getByRole('tree', { name: 'Files' })
    await expect.poll(() => tree.locator('[data-path="src"]').count()).toBe(1)
    await expect.poll(() => activeTab(page)).toBe('one.ts')
    expect(await tabNames(page)).toEqual(['two.ts', 'one.ts'])
    // No failure is said (Monaco keeps empty live regions of its own with role="alert").
    expect((await page.getByRole('alert').allInnerTexts()).filter((text) => text.trim() !== '')).toEqual([])
    expect(watch.consoleErrors).toEqual([])
    await context.close()
  })

  test('a corrupt or hostile stored record is ignored: the window opens as a new one', async () => {
    for (const record of [
      '{not json',
      JSON.stringify({ version: 1, projectId: 'nope', tabs: 'x', activePath: null, viewStates: {} }),
      JSON.stringify({
        version: 1,
        projectId: 'p',
        tabs: Array.from({ length: 500 }, (_, i) => ({ path: `f${i}`, pinned: true })),
        activePath: null,
        viewStates: {},
      }),
      'x'.repeat(300 * 1024),
    ]) {
      const page = await workspace.newPage()
      const watch = await watchPage(page)
      await page.addInitScript((value) => localStorage.setItem('retrace.window-session', value), record)
      await page.goto(host.url)
      // The first project listed (the one opened last) is shown, with no tabs.
      await expect
        .poll(() => page.getByRole('tree', { name: 'Files' }).getByRole('treeitem').count())
        .toBeGreaterThan(0)
      expect(await tabNames(page)).toEqual([])
      expect(watch.consoleErrors).toEqual([])
      await page.close()
    }
  })
})

describe('tab strip', () => {
  test('at 800 px with 15 tabs, activating the first by quick open scrolls it into view', async () => {
    const page = await workspace.newPage({ viewport: { width: 800, height: 700 } })
    const watch = await watchPage(page)
    await page.goto(host.url)
    await page.getByTestId('project-switcher').click()
    await page.getByTestId('open-path-input').fill(join(work, 'other'))
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    await expect.poll(() => page.getByTestId('project-switcher').innerText()).toContain('other')
    const palette = page.getByRole('dialog', { name: 'Go to file' })
    const quickOpen = async (name: string) => {
      await page.keyboard.press('Control+P')
      await expect.poll(() => palette.count()).toBe(1)
      await page.keyboard.type(name)
      await expect
        .poll(() => palette.getByTestId('palette-item').first().getAttribute('data-path'))
        .toBe(`many/${name}.ts`)
      await page.keyboard.press('Enter')
      await expect.poll(() => activeTab(page)).toBe(`${name}.ts`)
    }
    const names = Array.from({ length: 15 }, (_, i) => `strip-${String(i + 1).padStart(2, '0')}`)
    for (const name of names) await quickOpen(name)
    const strip = page.getByRole('tablist', { name: 'Open files' })
    const inView = async (name: string) => {
      const box = await strip.boundingBox()
      const tab = await strip.getByRole('tab', { name: `${name}.ts` }).boundingBox()
      return box !== null && tab !== null && tab.x >= box.x - 1 && tab.x + tab.width <= box.x + box.width + 1
    }
    // The strip overflows: the first tab is out of sight once the last is active.
    expect(await inView('strip-15')).toBe(true)
    expect(await inView('strip-01')).toBe(false)
    await quickOpen('strip-01')
    await expect.poll(() => inView('strip-01')).toBe(true)
    expect(watch.consoleErrors).toEqual([])
    await page.close()
  })
})

describe('a restarted host', () => {
  // Last in this file: it replaces the host the tests above share.
  test('`npm run web` again on the same data folder keeps the address, so the window comes back as it was', async () => {
    const context = await workspace.newContext()
    const page = await context.newPage()
    await page.goto(workspace.host.url)
    await openOtherProject(page)
    const tree = page.getByRole('tree', { name: 'Files' })
    await tree.locator('[data-path="src"]').click()
    await tree.locator('[data-path="src/two.ts"]').dblclick()
    await expect.poll(() => activeTab(page)).toBe('two.ts')
    const before = new URL(workspace.host.url).port
    await page.close({ runBeforeUnload: true })

    const restarted = await workspace.restartHost()
    expect(new URL(restarted.url).port).toBe(before)
    const again = await context.newPage()
    await again.goto(restarted.url)
    await expect.poll(() => activeTab(again), { timeout: 15_000 }).toBe('two.ts')
    expect(await again.getByRole('tree', { name: 'Files' }).locator('[data-path="src"]').count()).toBe(1)
    await context.close()
  })
})
