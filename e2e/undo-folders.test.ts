import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { launchChromium, watchPage } from './support/browser'
import { startAgentHost, type AgentHost } from './support/project'
import type { RunningWebHost } from './support/web-host'

let work: string
let host: RunningWebHost
let browser: Browser
let llm: FakeLlmServer
let agent: AgentHost

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'retrace-e2e-folders-'))
  mkdirSync(join(work, 'project'))
  writeFileSync(join(work, 'project', 'README.md'), '# Demo\n')
  agent = await startAgentHost(join(work, 'project'), join(work, 'data'), 'auto')
  ;({ host, llm } = agent)
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await agent?.stop()
  rmSync(work, { recursive: true, force: true })
})

test('Undo of an agent turn that wrote gen/a/b.txt and gen/c.txt lists and removes gen/; Redo brings it back', async () => {
  const project = join(work, 'project')
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            { id: 'call_b', name: 'write', input: { file_path: 'gen/a/b.txt', content: 'b\n' } },
            { id: 'call_c', name: 'write', input: { file_path: 'gen/c.txt', content: 'c\n' } },
          ],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'Generated two files.' }] },
  )
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, locale: 'en-US' })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  await page.getByTestId('composer-input').fill('Generate')
  await page.getByTestId('composer-input').press('Enter')
  await expect.poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 }).toContain('Generated')
  expect(readFileSync(join(project, 'gen/a/b.txt'), 'utf8')).toBe('b\n')

  await page.getByTestId('turn-action-undo').click()
  const removed = page.getByTestId('restore-folders-removed')
  await expect.poll(() => removed.count()).toBe(1)
  expect(await removed.innerText()).toContain('gen/a/, gen/')
  await page.getByTestId('restore-confirm-apply').click()
  await expect.poll(() => existsSync(join(project, 'gen'))).toBe(false)

  await expect.poll(() => page.getByTestId('turn-action-redo').count()).toBe(1)
  await page.getByTestId('turn-action-redo').click()
  const created = page.getByTestId('restore-folders-created')
  await expect.poll(() => created.count()).toBe(1)
  expect(await created.innerText()).toContain('gen/, gen/a/')
  await page.getByTestId('restore-confirm-apply').click()
  // The Redo publishes its files one by one: wait for its last, then read both.
  await expect.poll(() => existsSync(join(project, 'gen/a/b.txt')) && existsSync(join(project, 'gen/c.txt'))).toBe(true)
  expect(readFileSync(join(project, 'gen/a/b.txt'), 'utf8')).toBe('b\n')
  expect(readFileSync(join(project, 'gen/c.txt'), 'utf8')).toBe('c\n')
  expect(watch.consoleErrors).toEqual([])
})
