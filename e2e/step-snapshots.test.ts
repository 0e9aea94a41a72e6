import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const workspace = useWorkspace({
  name: 'steps',
  files: { 'README.md': '# Demo\n' },
  git: true,
  agent: { mode: 'auto' },
})
let work: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ work, host, llm } = workspace)
})

test('a bash step writes a file: the footer says so, Review shows it, Undo with the box ticked removes it', async () => {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [{ toolCalls: [{ id: 'call_bash', name: 'bash', input: { command: 'echo hi > side.txt' } }] }],
    },
    { kind: 'stream', steps: [{ text: 'Wrote side.txt with a command.' }] },
  )
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  const input = page.getByTestId('composer-input')
  await input.fill('Write side.txt with echo')
  await input.press('Enter')

  const side = join(work, 'project', 'side.txt')
  const footer = page.getByTestId('turn-card-commands')
  await expect.poll(() => footer.count(), { timeout: 15_000 }).toBe(1)
  expect(await footer.innerText()).toBe('1 file changed by commands (Undo restores it only if you include it)')
  expect(existsSync(side)).toBe(true)

  // The footer opens Review on This turn's "Changed by commands" filter, rendered from the snapshots.
  await footer.click()
  const review = page.getByTestId('review')
  const row = review.locator('[data-testid="review-file"][data-path="side.txt"]')
  await expect.poll(() => row.count()).toBe(1)
  expect(await row.getAttribute('data-source')).toBe('command')
  expect(await page.getByTestId('review-source-command').getAttribute('aria-pressed')).toBe('true')
  await row.click()
  await expect.poll(() => page.getByTestId('review-line').count()).toBe(1)
  expect(await page.getByTestId('review-diff').innerText()).toContain('+hi')
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-command-review.png') })

  // Undo: unchecked by default there is nothing exact to restore; ticking the box plans the file.
  await page.getByTestId('turn-action-undo').click()
  const confirm = page.getByTestId('restore-confirm')
  await expect.poll(() => confirm.count()).toBe(1)
  const box = page.getByTestId('restore-include-commands')
  expect(await box.isChecked()).toBe(false)
  expect(await page.getByTestId('restore-confirm-apply').isDisabled()).toBe(true)
  await box.check()
  await expect.poll(() => confirm.innerText()).toContain('side.txt')
  expect(await page.getByTestId('restore-include-commands').isChecked()).toBe(true)
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-command-undo.png') })
  await page.getByTestId('restore-confirm-apply').click()
  await expect.poll(() => existsSync(side), { timeout: 15_000 }).toBe(false)
  expect(existsSync(join(work, 'project', 'README.md'))).toBe(true)
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})
