import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { expect, test } from 'vitest'
import { watchPage } from './support/browser'
import { ARTIFACTS, useWorkspace, type Workspace } from './support/workspace'

/**
 * Issue 26 (c): a turn changes slide 1's title and adds a tenth slide to the corpus deck with
 * `office_edit`; Review's slide list shows a before and an after picture of slide 1 and an after
 * picture of slide 10 — LibreOffice's pages where it is installed, else the built-in rendering —
 * and "Pages" shows LibreOffice's pages before and after, or says they need LibreOffice or the pack.
 */
const DECK = join(__dirname, '..', '..', 'shared', 'corpus', 'office', 'poi-aptia-slides-images.pptx')
const SOFFICE = ['/usr/bin/soffice', '/usr/lib/libreoffice/program/soffice'].find((path) => existsSync(path))

const deckWorkspace = (name: string, hostEnv?: Record<string, string>) =>
  useWorkspace({
    name,
    git: true,
    agent: { mode: 'auto' },
    files: ({ project }) => copyFileSync(DECK, join(project, 'deck.pptx')),
    ...(hostEnv ? { hostEnv } : {}),
  })

// The machine's LibreOffice draws the pages; the second host is told there is none (and has no pack).
const withLibreOffice = deckWorkspace('slide-thumbnails')
const builtinOnly = deckWorkspace('slide-thumbnails-builtin', {
  RETRACE_SOFFICE: '/nonexistent/soffice',
  RETRACE_SOFFICE_SEARCH: 'path-only',
  // This build's own pack pin, named as e2e/office-pack.test.ts does (nothing is downloaded here).
  RETRACE_OFFICE_PACK: join(__dirname, '..', 'build', 'office-pack.json'),
})

async function editDeckAndReview(workspace: Workspace, page: Page) {
  const { llm, host } = workspace
  const call = (id: string, name: string, input: unknown) => ({
    kind: 'stream' as const,
    steps: [{ toolCalls: [{ id, name, input }] }],
  })
  llm.enqueue(
    call('read', 'read', { file_path: 'deck.pptx', limit: 2 }),
    call('edit', 'office_edit', {
      path: 'deck.pptx',
      edits: [
        { op: 'replace_text', anchor: 's1.sh5', text: 'Deputy President Acton' },
        { op: 'add_slide', after: 9, layout_of: 2, title: 'Questions', body: 'Thank you' },
      ],
    }),
    { kind: 'stream', steps: [{ text: 'Retitled the deck and added a closing slide.' }] },
  )
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Retitle the deck and add a closing slide')
  await page.getByTestId('composer-input').press('Enter')
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 30_000 })
    .toContain('Retitled the deck and added a closing slide.')
  await page.getByTestId('turn-review').last().click()
  await page.locator('[data-testid="review-file"][data-path="deck.pptx"]').click()
  await expect
    .poll(() => page.getByRole('region', { name: 'Changes inside deck.pptx' }).count(), { timeout: 20_000 })
    .toBe(1)
}

/**
 * Waits until the picture is drawn by `by`: LibreOffice's page is a canvas, the built-in rendering
 * HTML (shown first while LibreOffice converts, then replaced).
 */
async function drawnPicture(page: Page, name: string, by: 'libreoffice' | 'builtin', timeout: number) {
  const picture = page.getByRole('img', { name, exact: true })
  const drawn = () =>
    picture.evaluate((node) => `${node.tagName === 'CANVAS' ? 'libreoffice' : 'builtin'}:${node.dataset.state ?? ''}`)
  await expect.poll(drawn, { timeout }).toBe(`${by}:shown`)
}

test('with LibreOffice: the changed and the added slide have LibreOffice pictures, and Pages shows its pages before and after', async () => {
  if (!SOFFICE) {
    console.log('skipped: LibreOffice pictures — soffice is not installed')
    return
  }
  const page = await withLibreOffice.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  await editDeckAndReview(withLibreOffice, page)

  const changed = page.getByRole('region', { name: 'Slide 1', exact: true })
  await expect.poll(() => changed.getByRole('group', { name: 'Slide 1 before and after' }).count()).toBe(1)
  // The conversion of each version takes seconds on a cold LibreOffice; then page N is slide N.
  await drawnPicture(page, 'Slide 1 before', 'libreoffice', 120_000)
  await drawnPicture(page, 'Slide 1 after', 'libreoffice', 120_000)
  const added = page.getByRole('region', { name: 'Slide 10', exact: true })
  await drawnPicture(page, 'Slide 10 after', 'libreoffice', 120_000)
  expect(await added.getByRole('img', { name: 'Slide 10 before' }).count()).toBe(0)
  expect(await changed.innerText()).toContain('Drawn by LibreOffice')
  for (const width of [1440, 1024, 800]) {
    await page.setViewportSize({ width, height: 900 })
    await changed.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, `review-slide-thumbnails-${width}.png`) })
  }
  await page.setViewportSize({ width: 1440, height: 900 })

  await page.getByTestId('review-doc-pages').click()
  const pages = page.getByTestId('review-office-pages')
  // LibreOffice's pages of each version in the read-only PDF reader: the deck grew from 9 to 10 pages.
  for (const side of ['before', 'after'])
    await expect
      .poll(() => pages.getByTestId(`review-preview-${side}`).getByRole('textbox', { name: 'Page' }).inputValue(), {
        timeout: 60_000,
      })
      .toBe('1')
  await page.screenshot({ path: join(ARTIFACTS, 'review-slide-thumbnails-pages.png') })
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})

test('without LibreOffice or the pack: the built-in rendering draws the slides, and Pages says what would draw them', async () => {
  const page = await builtinOnly.newPage({ viewport: { width: 1440, height: 900 } })
  const watch = await watchPage(page)
  const original = readFileSync(join(builtinOnly.project, 'deck.pptx'))
  await editDeckAndReview(builtinOnly, page)
  expect(readFileSync(join(builtinOnly.project, 'deck.pptx')).equals(original)).toBe(false)

  await drawnPicture(page, 'Slide 1 before', 'builtin', 30_000)
  await drawnPicture(page, 'Slide 1 after', 'builtin', 30_000)
  await drawnPicture(page, 'Slide 10 after', 'builtin', 30_000)
  const changed = page.getByRole('region', { name: 'Slide 1', exact: true })
  await expect.poll(() => changed.innerText(), { timeout: 30_000 }).toContain('Approximate rendering')
  // The pictures are of the versions: the after picture of slide 1 has the new title, the before one the old.
  const after = page.getByRole('img', { name: 'Slide 1 after', exact: true })
  const before = page.getByRole('img', { name: 'Slide 1 before', exact: true })
  expect(await after.evaluate((node) => node.textContent ?? '')).toContain('Deputy President Acton')
  expect(await before.evaluate((node) => node.textContent ?? '')).toContain('Senior Deputy President Acton')
  expect(await page.getByRole('img', { name: 'Slide 10 after', exact: true }).evaluate((n) => n.textContent)).toContain(
    'Questions',
  )
  await page.setViewportSize({ width: 800, height: 900 })
  await changed.scrollIntoViewIfNeeded()
  await page.screenshot({ path: join(ARTIFACTS, 'review-slide-thumbnails-builtin-800.png') })
  await page.setViewportSize({ width: 1440, height: 900 })

  await page.getByTestId('review-doc-pages').click()
  const pages = page.getByTestId('review-office-pages')
  await expect.poll(() => pages.innerText(), { timeout: 30_000 }).toContain('need LibreOffice or the LibreOffice pack')
  // The pack this build pins is offered right there, as in an Office tab's Pages (installing it is
  // e2e/office-pack.test.ts's subject).
  await expect.poll(() => pages.getByTestId('office-pack-offer').count(), { timeout: 10_000 }).toBe(1)
  await page.screenshot({ path: join(ARTIFACTS, 'review-slide-thumbnails-builtin-pages.png') })
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
