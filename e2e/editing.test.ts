import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

/** 100 000 rows with quoted commas and quotes: the CSV view pages it rather than parsing it whole. */
function bigCsv(): string {
  const rows = ['id,name,quoted']
  for (let i = 1; i < 100_000; i++) rows.push(`${i},row ${i},"a, ""quoted"" ${i}"`)
  return `${rows.join('\n')}\n`
}

const workspace = useWorkspace({
  name: 'editing',
  files: {
    ...Object.fromEntries(
      ['typed', 'reload', 'keep', 'discard', 'quota', 'history'].map((name) => [`${name}.txt`, `${name} start\n`]),
    ),
    'docs/math.md': [
      '# Notes',
      '',
      'Euler: $e^{i\\pi} + 1 = 0$',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '- [x] done',
      '- [ ] todo',
      '',
      '<script>window.__ranScript = true</script>',
      '',
      '[the deep file](deep/er/target.txt)',
      '',
      '```ts',
      'const x: number = 1',
      '```',
      '',
    ].join('\n'),
    'docs/deep/er/target.txt': 'found me\n',
    'big.csv': bigCsv(),
  },
})
let root: string
let host: RunningWebHost
beforeAll(() => {
  ;({ project: root, host } = workspace)
})

async function openFile(
  path: string,
  width = 1440,
): Promise<{ page: Page; watch: Awaited<ReturnType<typeof watchPage>> }> {
  const page = await workspace.newPage({ viewport: { width, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(`${host.url}&open=${encodeURIComponent(path)}`)
  await expect
    .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'), {
      timeout: 20_000,
    })
    .toBe(path)
  return { page, watch }
}

async function typeAtEnd(page: Page, text: string): Promise<void> {
  const editor = page.locator('.monaco-editor').first()
  await expect.poll(() => editor.count(), { timeout: 20_000 }).toBe(1)
  await editor.locator('.view-lines').click()
  await page.keyboard.press('Control+End')
  await page.keyboard.type(text)
}

const disk = (path: string) => readFileSync(join(root, path), 'utf8')
/** What the editor shows (Monaco renders spaces as no-break spaces). */
const editorText = (page: Page) =>
  page
    .locator('.monaco-editor .view-lines')
    .first()
    .innerText()
    .then((text) => text.replace(/\u00a0/g, ' '))

/** The draft stored for a path (what survives a reload), read straight from IndexedDB. */
const storedDraft = (page: Page, path: string) =>
  page.evaluate(async (wanted) => {
    const open = indexedDB.open('retrace-file-drafts')
    const db: IDBDatabase = await new Promise((resolve) => (open.onsuccess = () => resolve(open.result)))
    const request = db.transaction('drafts').objectStore('drafts').getAll()
    const all = await new Promise<Array<{ path: string; content: { text?: string } }>>(
      (resolve) => (request.onsuccess = () => resolve(request.result)),
    )
    db.close()
    return all.find((draft) => draft.path === wanted)?.content.text ?? null
  }, path)

describe('editing with autosave', () => {
  test('typing reaches the file on disk without a Save button; the dirty dot goes away', async () => {
    const { page, watch } = await openFile('typed.txt')
    await typeAtEnd(page, 'hello from the editor')
    await expect.poll(() => disk('typed.txt'), { timeout: 10_000 }).toBe('typed start\nhello from the editor')
    await expect.poll(() => page.getByTestId('tab-dirty').count(), { timeout: 10_000 }).toBe(0)
    expect(await page.getByRole('button', { name: /^save$/i }).count()).toBe(0)
    expect(watch.consoleErrors).toEqual([])
    expect(await watch.cspViolations()).toEqual([])
    await page.close()
  })

  test('a reload before the publish brings the draft back, and it is published', async () => {
    const { page } = await openFile('reload.txt')
    await typeAtEnd(page, 'typed before reload')
    // Reload as soon as the last keystroke is in the durable draft, before the publish.
    await expect
      .poll(() => storedDraft(page, 'reload.txt'), { timeout: 5_000 })
      .toBe('reload start\ntyped before reload')
    await page.reload()
    await expect.poll(() => editorText(page), { timeout: 20_000 }).toContain('typed before reload')
    await expect.poll(() => disk('reload.txt'), { timeout: 10_000 }).toBe('reload start\ntyped before reload')
    await page.close()
  })

  test('an outside edit under a dirty draft shows the banner; compare and keep mine overwrite explicitly', async () => {
    const { page } = await openFile('keep.txt')
    await typeAtEnd(page, 'mine')
    writeFileSync(join(root, 'keep.txt'), 'theirs\n')
    const banner = page.getByTestId('conflict-banner')
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(1)
    expect(await banner.innerText()).toContain('The file was changed by another operation')
    // Never automatic: the outside edit is still there.
    expect(disk('keep.txt')).toBe('theirs\n')
    await page.getByTestId('conflict-compare').click()
    await expect
      .poll(() => page.getByTestId('conflict-compare-view').locator('.monaco-diff-editor').count(), { timeout: 10_000 })
      .toBe(1)
    // A real diff: the disk's line removed, the draft's lines added.
    await expect
      .poll(() => page.getByTestId('conflict-compare-view').locator('.line-delete, .char-delete').count(), {
        timeout: 10_000,
      })
      .toBeGreaterThan(0)
    await page.screenshot({ path: join(ARTIFACTS, 'editing-conflict-1440.png') })
    await page.getByTestId('conflict-keep').click()
    await expect.poll(() => disk('keep.txt'), { timeout: 10_000 }).toBe('keep start\nmine')
    await expect.poll(() => banner.count()).toBe(0)
    await page.close()
  })

  test('discarding the draft shows the disk version and writes nothing', async () => {
    const { page } = await openFile('discard.txt')
    await typeAtEnd(page, 'to be dropped')
    writeFileSync(join(root, 'discard.txt'), 'outside wins\n')
    await expect.poll(() => page.getByTestId('conflict-banner').count(), { timeout: 10_000 }).toBe(1)
    await page.getByTestId('conflict-discard').click()
    await expect.poll(() => editorText(page), { timeout: 10_000 }).toContain('outside wins')
    expect(disk('discard.txt')).toBe('outside wins\n')
    await expect.poll(() => page.getByTestId('tab-dirty').count()).toBe(0)
    await page.close()
  })

  test('a full draft store shows a prompt, pauses typing and loses nothing', async () => {
    const { page } = await openFile('quota.txt')
    await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 20_000 }).toBe(1)
    // 32 dirty drafts of another project fill the store (they must survive untouched).
    const filled = await page.evaluate(async () => {
      const open = indexedDB.open('retrace-file-drafts')
      const db: IDBDatabase = await new Promise((resolve, reject) => {
        open.onsuccess = () => resolve(open.result)
        open.onerror = () => reject(open.error)
      })
      const tx = db.transaction(['drafts', 'project_index'], 'readwrite')
      const keys: string[] = []
      for (let i = 0; i < 32; i++) {
        const key = `prj_other\u0000note-${i}.md`
        keys.push(key)
        tx.objectStore('drafts').put({
          key,
          project_id: 'prj_other',
          path: `note-${i}.md`,
          content: { kind: 'text', text: `draft ${i}` },
          baseline_revision: null,
          baseline_size: 0,
          baseline_mtime: null,
          state: 'dirty',
          updated_at: i + 1,
          bytes: 200,
        })
      }
      tx.objectStore('project_index').put({ project_id: 'prj_other', keys, count: 32, bytes: 32 * 200 })
      await new Promise((resolve) => (tx.oncomplete = resolve))
      db.close()
      return keys.length
    })
    expect(filled).toBe(32)
    await typeAtEnd(page, 'x')
    const prompt = page.getByTestId('draft-quota')
    await expect.poll(() => prompt.count(), { timeout: 10_000 }).toBe(1)
    expect(await prompt.innerText()).toContain('Unsaved drafts are full')
    await page.screenshot({ path: join(ARTIFACTS, 'editing-quota-1440.png') })
    // Nothing silently published or dropped.
    expect(disk('quota.txt')).toBe('quota start\n')
    await page.getByTestId('draft-save-now').click()
    await expect.poll(() => disk('quota.txt'), { timeout: 10_000 }).toBe('quota start\nx')
    const others = await page.evaluate(async () => {
      const open = indexedDB.open('retrace-file-drafts')
      const db: IDBDatabase = await new Promise((resolve) => (open.onsuccess = () => resolve(open.result)))
      const request = db.transaction('drafts').objectStore('drafts').index('by_project').count('prj_other')
      const count = await new Promise<number>((resolve) => (request.onsuccess = () => resolve(request.result)))
      db.close()
      return count
    })
    expect(others).toBe(32)
    await page.close()
  })

  test('File History lists the edits and the original; restoring the original is one click', async () => {
    const { page } = await openFile('history.txt')
    await typeAtEnd(page, 'changed')
    await expect.poll(() => disk('history.txt'), { timeout: 10_000 }).toBe('history start\nchanged')
    await page.getByTestId('history-toggle').click()
    const versions = page.getByTestId('history-version')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBe(2)
    expect(await versions.nth(1).getAttribute('data-source')).toBe('original')
    await versions.nth(1).click()
    await expect
      .poll(() => page.getByTestId('history-preview').locator('.monaco-editor').count(), { timeout: 10_000 })
      .toBe(1)
    await page.getByTestId('history-compare').click()
    await expect
      .poll(() => page.getByTestId('history-compare-view').locator('.monaco-diff-editor').count(), { timeout: 10_000 })
      .toBe(1)
    await page.screenshot({ path: join(ARTIFACTS, 'history-1440.png') })
    await page.getByTestId('history-restore').click()
    await expect.poll(() => disk('history.txt'), { timeout: 10_000 }).toBe('history start\n')
    await expect.poll(() => versions.count(), { timeout: 10_000 }).toBe(3)
    expect(await versions.first().getAttribute('data-source')).toBe('restore')
    await page.close()
  })
})

describe('Markdown and CSV', () => {
  test('Markdown renders KaTeX, tables and task lists, runs no raw HTML, and links open project files', async () => {
    const { page, watch } = await openFile('docs/math.md')
    const preview = page.getByTestId('markdown-preview')
    await expect.poll(() => preview.locator('.katex').count(), { timeout: 20_000 }).toBeGreaterThan(0)
    expect(await preview.locator('table td').count()).toBe(2)
    expect(await preview.locator('input[type="checkbox"]').count()).toBe(2)
    expect(await preview.locator('script').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { __ranScript?: boolean }).__ranScript)).toBeUndefined()
    // KaTeX's fonts load as WOFF2 from the app's own origin.
    const fonts = await page.evaluate(async () => {
      await document.fonts.ready
      return [...document.fonts].filter((f) => f.family.includes('KaTeX') && f.status === 'loaded').length
    })
    expect(fonts).toBeGreaterThan(0)
    await page.screenshot({ path: join(ARTIFACTS, 'markdown-1440.png') })
    await preview.getByRole('link', { name: 'the deep file' }).click()
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('docs/deep/er/target.txt')
    expect(await watch.cspViolations()).toEqual([])
    await page.close()
  })

  test('a 100 000-row CSV opens as a virtualised table that scrolls to the end', async () => {
    const { page } = await openFile('big.csv')
    const grid = page.getByTestId('csv-grid')
    await expect.poll(() => grid.locator('[role="row"]').count(), { timeout: 30_000 }).toBeGreaterThan(5)
    // Only the rows in view exist.
    expect(await grid.locator('[role="row"]').count()).toBeLessThan(200)
    expect(await grid.locator('[data-row="1"] .csv-cell').nth(2).innerText()).toBe('a, "quoted" 1')
    await grid.evaluate((element) => (element.scrollTop = element.scrollHeight))
    await expect.poll(() => grid.locator('[data-row="99999"]').count(), { timeout: 10_000 }).toBe(1)
    expect(await grid.locator('[data-row="99999"] .csv-cell').first().innerText()).toBe('99999')
    await page.screenshot({ path: join(ARTIFACTS, 'csv-1440.png') })
    await page.close()
  })
})

describe('finding files', () => {
  test('the explorer search box finds a file in a folder nobody expanded; quick open uses the same search', async () => {
    const { page } = await openFile('typed.txt')
    await page.getByTestId('explorer-search').fill('targt')
    const result = page.locator('[data-testid="explorer-search-result"][data-path="docs/deep/er/target.txt"]')
    await expect.poll(() => result.count(), { timeout: 10_000 }).toBe(1)
    expect(await page.getByRole('tree', { name: 'Files' }).isHidden()).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'explorer-search-1440.png') })
    // Keyboard: ↓ into the results, Enter opens.
    await page.getByTestId('explorer-search').press('ArrowDown')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('docs/deep/er/target.txt')
    await page.getByTestId('explorer-search').fill('')
    await page.keyboard.press('Control+p')
    await page.getByTestId('palette-input').fill('bigcsv')
    const item = page.locator('[data-testid="palette-item"][data-path="big.csv"]')
    await expect.poll(() => item.count(), { timeout: 10_000 }).toBe(1)
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.locator('[data-testid="tab-file"][aria-selected="true"]').getAttribute('data-path'))
      .toBe('big.csv')
    await page.close()
  })

  test('narrow windows keep the editor, the banner and History usable', async () => {
    for (const width of [1024, 800]) {
      const { page } = await openFile('history.txt', width)
      await expect.poll(() => page.locator('.monaco-editor').count(), { timeout: 20_000 }).toBe(1)
      await page.getByTestId('history-toggle').click()
      await expect.poll(() => page.getByTestId('history-panel').count(), { timeout: 10_000 }).toBe(1)
      await expect
        .poll(() => page.locator('.history-panel .viewer-note, [data-testid="history-list"]').count())
        .toBeGreaterThan(0)
      await page.screenshot({ path: join(ARTIFACTS, `history-${width}.png`) })
      const box = await page.locator('.viewer-body').boundingBox()
      expect(box?.width ?? 0).toBeGreaterThan(300)
      await page.close()
    }
  })
})
