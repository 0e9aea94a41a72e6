import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const workspace = useWorkspace({ name: 'folders', files: { 'README.md': '# Demo\n' }, agent: { mode: 'auto' } })
let work: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ work, host, llm } = workspace)
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
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
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
