import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import { git } from './support/project'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

const longLines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`)

const workspace = useWorkspace({
  name: 'review-wb',
  files: {
    ...Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`src/module-${i}.ts`, `export const value${i} = ${i}\n`]),
    ),
    'docs.md': '# Docs\n',
    'long.txt': `${longLines.join('\n')}\n`,
  },
  git: true,
  // Unstaged edits, one staged edit, one untracked file: each sub-scope lists something else.
  uncommitted: (root) => {
    for (let i = 0; i < 6; i++)
      writeFileSync(join(root, 'src', `module-${i}.ts`), `export const value${i} = ${i + 100}\n`)
    writeFileSync(join(root, 'docs.md'), '# Docs\n\nStaged words.\n')
    git(root, 'add', 'docs.md')
    writeFileSync(join(root, 'notes-untracked.txt'), 'new\n')
    const long = [...longLines]
    long[49] = 'line 50, changed'
    writeFileSync(join(root, 'long.txt'), `${long.join('\n')}\n`)
  },
  agent: { mode: 'auto' },
})
let root: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ project: root, host, llm } = workspace)
})

async function openReview(page: Page) {
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('workbench').count()).toBe(1)
  await page.keyboard.press('Control+Shift+G')
  await expect.poll(() => page.getByTestId('review').count()).toBe(1)
}

test('the Review filter applies as you type, and the list always matches the box', async () => {
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await openReview(page)
  await page.getByTestId('review-scope-workspace').click()
  const rows = page.getByTestId('review-file')
  await expect.poll(() => rows.count()).toBe(9)
  await page.getByTestId('review-search').pressSequentially('module-3', { delay: 30 })
  // No Enter: after the pause in typing, the server-filtered list is the one shown.
  await expect
    .poll(() => rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-path'))))
    .toEqual(['src/module-3.ts'])
  await page.getByTestId('review-search').fill('')
  await expect.poll(() => rows.count()).toBe(9)

  // Expand context: three lines around the change, then more, then the whole file.
  await page.locator('[data-testid="review-file"][data-path="long.txt"]').click()
  const diff = page.getByTestId('review-diff')
  await expect.poll(() => diff.innerText()).toContain('line 50, changed')
  expect(await diff.innerText()).toContain('line 47')
  expect(await diff.innerText()).not.toContain('line 40\n')
  await page.getByTestId('diff-more-context').click()
  await expect.poll(() => diff.innerText()).toContain('line 40')
  await page.getByTestId('diff-whole-file').click()
  await expect.poll(() => diff.innerText()).toContain('line 100')
  expect(await diff.innerText()).toContain('line 1\n')
  // Next/previous change and the word-level highlight of the changed line.
  expect(await diff.locator('mark').allInnerTexts()).toEqual(expect.arrayContaining([', changed']))
  await page.keyboard.press('F7')
  await expect.poll(() => page.getByTestId('diff-change-count').innerText()).toBe('Change 1 of 1')
  await page.screenshot({ path: join(ARTIFACTS, 'review-whole-file.png') })
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('switching Workspace sub-scopes never shows the previous result under the new label', async () => {
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await openReview(page)
  await page.getByTestId('review-scope-workspace').click()
  await expect.poll(() => page.getByTestId('review-file').count()).toBe(9)
  // Record, at every DOM change, which sub-scope is selected and which query the shown list answers.
  await page.evaluate(() => {
    const seen: Array<{ selected: string; shown: string | null; rows: number }> = []
    Object.defineProperty(window, '__seen', { value: seen })
    const record = () => {
      const select = document.querySelector<HTMLSelectElement>('[data-testid="review-sub-scope"]')
      const list = document.querySelector<HTMLElement>('[data-testid="review-list"]')
      const query = list?.dataset.query ?? ''
      seen.push({
        selected: select?.value ?? '',
        shown: query === '' ? null : ((JSON.parse(query) as string[])[2] ?? null),
        rows: document.querySelectorAll('[data-testid="review-file"]').length,
      })
    }
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true })
  })
  const sub = page.getByTestId('review-sub-scope')
  // Unstaged: seven edits and the untracked file; Staged: docs.md; All: both.
  const steps = [
    ['unstaged', 8],
    ['staged', 1],
    ['all', 9],
    ['unstaged', 8],
  ] as const
  for (const [scope, count] of steps) {
    await sub.selectOption(scope)
    await expect.poll(() => page.getByTestId('review-file').count()).toBe(count)
  }
  const seen = (await page.evaluate(() => (window as unknown as { __seen: unknown[] }).__seen)) as Array<{
    selected: string
    shown: string | null
    rows: number
  }>
  expect(seen.length).toBeGreaterThan(4)
  // Whenever rows were on screen, they answered the sub-scope the picker showed.
  expect(seen.filter((s) => s.rows > 0 && s.shown !== s.selected)).toEqual([])
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('a blocked Undo shows what changed outside, with Open file and Review; Review names the turn', async () => {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        { text: 'Writing it.' },
        {
          toolCalls: [{ id: 'call_1', name: 'write', input: { file_path: 'hello.txt', content: 'one\ntwo\nthree\n' } }],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'Done.' }] },
  )
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Create hello.txt\nwith three lines')
  await page.getByTestId('composer-input').press('Enter')
  await expect.poll(() => page.getByTestId('turn-card').count(), { timeout: 20_000 }).toBeGreaterThan(0)
  await page.screenshot({ path: join(ARTIFACTS, 'review-turn-card.png') })
  expect(await page.getByTestId('turn-card').count()).toBe(1)

  // Someone edits the file outside Retrace; Undo is then blocked and says what changed.
  writeFileSync(join(root, 'hello.txt'), 'one\nTWO from another editor\nthree\n')
  await page.getByTestId('turn-action-undo').click()
  const confirm = page.getByTestId('restore-confirm')
  await expect.poll(() => confirm.getAttribute('data-status')).toBe('blocked')
  const diff = confirm.getByTestId('conflict-diff')
  await expect.poll(() => diff.innerText()).toContain('TWO from another editor')
  expect(await diff.innerText()).toContain('two')
  expect(await confirm.getByRole('button', { name: /force/i }).count()).toBe(0)
  await page.screenshot({ path: join(ARTIFACTS, 'review-blocked-undo.png') })

  await confirm.getByTestId('conflict-open').click()
  const tabs = page.getByRole('tablist', { name: 'Open files' })
  await expect.poll(() => tabs.getByRole('tab', { name: 'hello.txt' }).getAttribute('aria-selected')).toBe('true')
  await confirm.getByTestId('conflict-review').click()
  await expect.poll(() => tabs.getByRole('tab', { name: 'Review' }).getAttribute('aria-selected')).toBe('true')
  await expect.poll(() => page.getByTestId('review-turn-title').innerText()).toBe('Turn 1 · Create hello.txt')
  await expect
    .poll(() => page.locator('[data-testid="review-file"][aria-current="true"]').getAttribute('data-path'))
    .toBe('hello.txt')

  // A new session has no turns: Review says so in words, never with a raw id error.
  await page.getByTestId('session-new').click()
  await expect.poll(() => page.getByTestId('review').innerText()).not.toMatch(/node_|turn_|There is no turn/)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
