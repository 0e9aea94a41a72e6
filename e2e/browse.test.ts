import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import { FIXTURE_ROOT_FILES, writeFixtureProject } from './support/fixture'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

describe('browser mode: open a folder, browse it, open a file', () => {
  const workspace = useWorkspace({
    name: 'browse',
    files: ({ project }) => writeFixtureProject(project),
    folders: { second: { 'only-here.md': '# Second project\n' } },
  })
  let work: string
  let host: RunningWebHost
  beforeAll(() => {
    ;({ work, host } = workspace)
  })

  test('pages the explorer past 100 entries, opens a text file in Monaco, explains binaries', async () => {
    const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
    const watch = await watchPage(page)
    await page.goto(host.url)

    const tree = page.getByRole('tree', { name: 'Files' })
    const items = tree.locator('[role="treeitem"][aria-level="1"]')
    await expect.poll(() => items.count()).toBe(100)
    // Folders come first, then files by name.
    expect(await items.nth(0).getAttribute('data-path')).toBe('docs')
    expect(await items.nth(1).getAttribute('data-path')).toBe('src')
    const total = FIXTURE_ROOT_FILES + 2 /* dirs */ + 2 /* pixel.png, huge.log */
    const more = page.getByRole('button', { name: `Show more (100 of ${total})` })
    await more.click()
    await expect.poll(() => items.count()).toBe(total)
    await expect.poll(() => more.count()).toBe(0)

    // Expand a folder and open a nested text file.
    await tree.locator('[data-path="src"]').click()
    await tree.locator('[data-path="src/lib"]').click()
    await tree.locator('[data-path="src/main.ts"]').click()
    const editor = page.getByTestId('text-view')
    // Monaco renders spaces as no-break spaces; compare what a reader sees.
    const editorText = async () => (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ')
    await expect.poll(editorText, { timeout: 30_000 }).toContain("console.log(greet('world'))")
    // Text opens editable (issue 13): no read-only badge, typing shows and autosaves.
    expect(await page.locator('.viewer-header .badge').count()).toBe(0)
    await editor.locator('.view-lines').click()
    await page.keyboard.press('Control+End')
    await page.keyboard.type('// typed')
    await expect.poll(editorText).toContain('// typed')
    await page.screenshot({ path: join(ARTIFACTS, 'browse-text-file.png') })

    // Keyboard: focus the tree and walk it.
    await tree.locator('[data-path="src/lib"]').focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => tree.locator('[data-path="src/lib/greet.ts"]').count()).toBe(0)
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => tree.locator('[data-path="src/lib/greet.ts"]').count()).toBe(1)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect.poll(editorText).toContain('hello ${name}')

    // Binary and oversized files get an explicit state with size and type.
    // A PNG opens in the bitmap editor, its bytes fetched through the byte transfer.
    await tree.locator('[data-path="pixel.png"]').click()
    await expect
      .poll(() => page.locator('[data-testid="image-editor"][data-ready="true"]').count(), { timeout: 20_000 })
      .toBe(1)
    // Oversized files get an explicit state with size and type, and Reveal / Download.
    const card = page.getByTestId('cannot-preview')
    await tree.locator('[data-path="huge.log"]').click()
    await expect.poll(() => card.innerText()).toContain('64 MiB')
    expect(await card.innerText()).toContain('larger than the 64 MiB limit')
    await page.screenshot({ path: join(ARTIFACTS, 'browse-too-large.png') })

    expect(watch.consoleErrors).toEqual([])
    expect(await watch.cspViolations()).toEqual([])

    // The real policy refuses a foreign target (a loopback address that is not our origin).
    const blocked = await page.evaluate(() =>
      fetch('http://127.0.0.2:9/probe').then(
        () => 'fetched',
        () => 'refused',
      ),
    )
    expect(blocked).toBe('refused')
    expect(await watch.cspViolations()).toEqual([expect.objectContaining({ directive: 'connect-src' })])
    await page.close()
  })

  test('opens another folder by path and switches between projects', async () => {
    const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
    const watch = await watchPage(page)
    await page.goto(host.url)
    await page.getByTestId('project-switcher').click()
    await page.getByTestId('open-path-input').fill(join(work, 'second'))
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    const tree = page.getByRole('tree', { name: 'Files' })
    await expect.poll(() => tree.locator('[data-path="only-here.md"]').count()).toBe(1)
    await page.getByTestId('project-switcher').click()
    const options = page.getByTestId('project-option')
    expect(await options.locator('.project-option-name').allInnerTexts()).toEqual(['second', 'project'])
    // ↑/↓/Home/End move between the recent projects.
    const focusedName = () =>
      page.evaluate(() => document.activeElement?.querySelector('.project-option-name')?.textContent ?? null)
    await options.first().focus()
    await page.keyboard.press('ArrowDown')
    expect(await focusedName()).toBe('project')
    await page.keyboard.press('Home')
    expect(await focusedName()).toBe('second')
    await page.keyboard.press('End')
    expect(await focusedName()).toBe('project')
    await page.keyboard.press('ArrowUp')
    expect(await focusedName()).toBe('second')

    await page.getByTestId('open-path-input').fill(join(work, 'does-not-exist'))
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('There is no folder at')

    await options.filter({ hasText: /^project/ }).click()
    await expect.poll(() => tree.locator('[data-path="docs"]').count()).toBe(1)
    expect(await tree.locator('[data-path="only-here.md"]').count()).toBe(0)

    // The UI follows the chosen language throughout.
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('menuitemradio', { name: '简体中文' }).click()
    await expect.poll(() => page.getByRole('tree', { name: '文件' }).count()).toBe(1)
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN')

    expect(watch.consoleErrors).toEqual([])
    expect(await watch.cspViolations()).toEqual([])
    await page.close()
  })
})
