import { gzipSync } from 'node:zlib'
import { beforeAll, expect, test } from 'vitest'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

/** Spec 12: the first screen transfers ≤ 2 MiB compressed; no script chunk over 350 KiB compressed. */
const FIRST_SCREEN_BUDGET = 2 * 1024 * 1024
const CHUNK_BUDGET = 350 * 1024

const workspace = useWorkspace({ name: 'first-screen', files: { 'README.md': '# First screen\n' } })
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

test('the first screen (explorer, empty centre, chat) stays within the spec 12 transfer budget', async () => {
  const page = await workspace.newPage({ viewport: { width: 1440, height: 900 } })
  const loaded: Array<{ url: string; type: string; gzip: number }> = []
  page.on('response', (response) => {
    const url = new URL(response.url())
    if (url.origin !== `http://127.0.0.1:${host.port}` || url.pathname.startsWith('/api/')) return
    void response.body().then(
      (body) =>
        loaded.push({ url: url.pathname, type: response.request().resourceType(), gzip: gzipSync(body).length }),
      () => undefined,
    )
  })
  await page.goto(host.url)
  await expect.poll(() => page.getByRole('tree', { name: 'Files' }).locator('[role="treeitem"]').count()).toBe(1)
  await expect.poll(() => page.getByTestId('pane-chat').locator('textarea, button').count()).toBeGreaterThan(0)
  await page.waitForLoadState('networkidle')
  const total = loaded.reduce((sum, r) => sum + r.gzip, 0)
  const scripts = loaded.filter((r) => r.type === 'script')
  const largest = Math.max(...scripts.map((r) => r.gzip))
  // Printed for the record (and for `npm test` logs): what the first screen costs.
  console.log(
    `first screen: ${loaded.length} files, ${(total / 1024).toFixed(1)} KiB compressed (budget ${FIRST_SCREEN_BUDGET / 1024} KiB); ` +
      `largest script ${(largest / 1024).toFixed(1)} KiB (budget ${CHUNK_BUDGET / 1024} KiB)\n` +
      loaded.map((r) => `  ${r.url} ${(r.gzip / 1024).toFixed(1)} KiB`).join('\n'),
  )
  expect(scripts.length).toBeGreaterThan(0)
  expect(total).toBeLessThanOrEqual(FIRST_SCREEN_BUDGET)
  expect(largest).toBeLessThanOrEqual(CHUNK_BUDGET)
  // Heavy adapters and Review stay out of the first screen (spec 09/12).
  expect(loaded.map((r) => r.url).filter((u) => /\/(text|pdf|image|ReviewPane|DiffView)-[\w-]+\.js$/.test(u))).toEqual(
    [],
  )
  await page.close()
})
