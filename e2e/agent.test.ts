import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import type { FakeLlmServer } from '../test/support/fake-llm'
import { watchPage } from './support/browser'
import { ARTIFACTS, useWorkspace } from './support/workspace'
import type { RunningWebHost } from './support/web-host'

const workspace = useWorkspace({ name: 'agent', files: { 'README.md': '# Demo\n' }, agent: { mode: 'ask' } })
let work: string
let host: RunningWebHost
let llm: FakeLlmServer
beforeAll(() => {
  ;({ work, host, llm } = workspace)
})

test('prompt → approve a write → exact turn card → Undo puts the file back', async () => {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        { text: 'I will add a greeting file.' },
        {
          toolCalls: [
            { id: 'call_write', name: 'write', input: { file_path: 'hello.txt', content: 'hello\nworld\nagain\n' } },
          ],
        },
      ],
      splitArgs: 9,
      chunkDelayMs: 10,
    },
    { kind: 'stream', steps: [{ text: 'Created hello.txt with three lines.' }], splitText: 4, chunkDelayMs: 10 },
  )
  const page = await workspace.newPage({ viewport: { width: 1400, height: 900 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  const chat = page.getByTestId('chat')
  await expect.poll(() => chat.count()).toBe(1)
  // A session is there to type into (created on first use if the project has none).
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  const input = page.getByTestId('composer-input')
  await input.fill('Create hello.txt')
  await input.press('Enter')

  const approval = page.getByTestId('approval')
  await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1)
  expect(await approval.innerText()).toContain('+again')
  expect(() => readFileSync(join(work, 'project', 'hello.txt'))).toThrow()
  await page.getByTestId('approval-approve').click()

  const card = page.getByTestId('turn-card')
  await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1)
  expect(await page.getByTestId('turn-card-files').innerText()).toContain('1')
  expect(await page.getByTestId('turn-card-added').innerText()).toContain('3')
  expect(await page.getByTestId('turn-card-removed').innerText()).toContain('0')
  expect(await page.getByTestId('transcript').innerText()).toContain('Created hello.txt with three lines.')
  expect(readFileSync(join(work, 'project', 'hello.txt'), 'utf8')).toBe('hello\nworld\nagain\n')
  expect(await page.locator('[data-testid="tool-part"][data-tool="write"]').getAttribute('data-state')).toBe(
    'completed',
  )
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-agent-transcript.png') })

  // Turn card → Review (This turn) → filter → diff → comment → send to agent.
  llm.enqueue({ kind: 'stream', steps: [{ text: 'I will address the comment.' }] })
  await page.getByTestId('turn-review').click()
  const review = page.getByTestId('review')
  await expect.poll(() => review.locator('[data-testid="review-file"]').count()).toBe(1)
  expect(await page.getByTestId('review-scope-turn').getAttribute('aria-selected')).toBe('true')
  await page.getByTestId('review-category-code').click()
  await expect.poll(() => page.getByTestId('review-totals').innerText()).toContain('0 files')
  await page.getByTestId('review-category-docs').click()
  await expect.poll(() => review.locator('[data-testid="review-file"][data-path="hello.txt"]').count()).toBe(1)
  expect(await page.getByTestId('review-totals').innerText()).toContain('1 files · +3 −0')
  await review.locator('[data-testid="review-file"][data-path="hello.txt"]').click()
  const diffLines = page.getByTestId('review-line')
  await expect.poll(() => diffLines.count()).toBe(3)
  expect(await page.getByTestId('review-diff').innerText()).toContain('+world')
  await page.getByTestId('review-reveal').click()
  await expect
    .poll(() => page.locator('[role="treeitem"][data-path="hello.txt"]').getAttribute('aria-selected'))
    .toBe('true')
  await diffLines.nth(1).click()
  await page.getByTestId('review-comment-input').fill('Say "planet" instead.')
  await page.getByTestId('review-comment-add').click()
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-review.png') })
  await page.getByTestId('review-send').click()
  await expect.poll(() => llm.chatRequests().length, { timeout: 15_000 }).toBe(3)
  const feedback = JSON.stringify(llm.chatRequests()[2]?.body)
  expect(feedback).toContain('hello.txt:2')
  expect(feedback).toContain('Say \\"planet\\" instead.')
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 })
    .toContain('I will address the comment.')

  await page.getByTestId('turn-action-undo').click()
  const confirm = page.getByTestId('restore-confirm')
  await expect.poll(() => confirm.count()).toBe(1)
  expect(await confirm.innerText()).toContain('hello.txt')
  await page.getByTestId('restore-confirm-apply').click()
  await expect
    .poll(() => {
      try {
        readFileSync(join(work, 'project', 'hello.txt'))
        return 'present'
      } catch {
        return 'gone'
      }
    })
    .toBe('gone')
  await expect.poll(() => page.getByTestId('turn-action-redo').count()).toBe(1)

  // The model was called with the key from RETRACE_API_KEY and given the tool result.
  const chats = llm.chatRequests()
  expect(chats).toHaveLength(3)
  expect(chats[0]?.headers.authorization).toBe('Bearer e2e-key')
  expect(JSON.stringify(chats[1]?.body)).toContain('call_write')
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
})

test('the approval card of a write from source_path names the source file', async () => {
  const generated = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255])
  mkdirSync(join(work, 'project', 'gen'), { recursive: true })
  writeFileSync(join(work, 'project', 'gen', 'chart.png'), generated)
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            {
              id: 'call_publish',
              name: 'write',
              input: { file_path: 'docs/chart.png', source_path: 'gen/chart.png' },
            },
          ],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'Published the chart.' }] },
  )
  const page = await workspace.newPage({ viewport: { width: 1200, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await page.getByTestId('session-new').click()
  // Typed only once the new session is the one shown: text typed while it is being created is lost.
  await expect.poll(() => page.getByTestId('chat').innerText()).toContain('Ask the agent for a change.')
  const input = page.getByTestId('composer-input')
  await input.fill('Publish the generated chart')
  await input.press('Enter')

  // A binary diff says only its sizes; the card names whose bytes would be published.
  const card = page.getByRole('group', { name: 'Approval' })
  await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(1)
  await expect.poll(() => card.getByText('from gen/chart.png', { exact: true }).count()).toBe(1)
  expect(await card.innerText()).toContain('docs/chart.png')
  await card.getByRole('button', { name: 'Approve' }).click()
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 })
    .toContain('Published the chart.')
  expect(readFileSync(join(work, 'project', 'docs', 'chart.png')).equals(generated)).toBe(true)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('a task: the sub-agent’s write asks for approval under the task, and the turn card counts it', async () => {
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            {
              id: 'call_task',
              name: 'task',
              input: { description: 'Draft the changelog', prompt: 'Create CHANGELOG.md with one entry.' },
            },
          ],
        },
      ],
    },
    {
      kind: 'stream',
      steps: [
        { toolCalls: [{ id: 'call_cl', name: 'write', input: { file_path: 'CHANGELOG.md', content: '# 1.0\n' } }] },
      ],
    },
    { kind: 'stream', steps: [{ text: 'CHANGELOG.md created with a 1.0 entry.' }] },
    { kind: 'stream', steps: [{ text: 'The changelog is drafted.' }] },
  )
  const page = await workspace.newPage({ viewport: { width: 1024, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  await page.getByTestId('session-new').click()
  const input = page.getByTestId('composer-input')
  await input.fill('Have a helper draft the changelog')
  await input.press('Enter')

  // The sub-agent's call is shown under the task, waiting for the person like any write.
  const subtask = page.locator('[data-testid="tool-part"][data-task-call="call_task"]')
  await expect.poll(() => subtask.count(), { timeout: 15_000 }).toBe(1)
  expect(await subtask.getAttribute('data-tool')).toBe('write')
  const approval = page.getByTestId('approval')
  await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1)
  expect(await approval.innerText()).toContain('+# 1.0')
  await page.getByTestId('approval-approve').click()

  await expect.poll(() => page.getByTestId('turn-card').count(), { timeout: 15_000 }).toBeGreaterThan(0)
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 })
    .toContain('The changelog is drafted.')
  expect(readFileSync(join(work, 'project', 'CHANGELOG.md'), 'utf8')).toBe('# 1.0\n')
  const task = page.locator('[data-testid="tool-part"][data-tool="task"]')
  expect(await task.getAttribute('data-state')).toBe('completed')
  expect(await page.getByTestId('turn-card-files').last().innerText()).toContain('1')
  await page.screenshot({ path: join(tmpdir(), 'retrace-e2e-agent-task.png') })
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})

test('an approval is answered by one key from wherever the person is: Alt+Y approves, Alt+N rejects, as the card shows', async () => {
  const writeCall = (id: string, file: string) => ({
    kind: 'stream' as const,
    steps: [{ toolCalls: [{ id, name: 'write', input: { file_path: file, content: `${'x'.repeat(400)}\n` } }] }],
  })
  llm.enqueue(writeCall('call_keys_1', 'keys-one.txt'), writeCall('call_keys_2', 'keys-two.txt'), {
    kind: 'stream',
    steps: [{ text: 'One written, one refused.' }],
  })
  const page = await workspace.newPage({ viewport: { width: 1024, height: 800 } })
  await page.goto(host.url)
  await expect.poll(() => page.getByTestId('chat').count()).toBe(1)
  // The session shown (or the one the first prompt creates) takes the prompt.
  if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
  const input = page.getByTestId('composer-input')
  await input.fill('Write two files')
  await input.press('Enter')

  const approve = page.getByTestId('approval-approve')
  await expect.poll(() => approve.count(), { timeout: 15_000 }).toBe(1)
  // The card says which keys answer it, to sighted people and to screen readers alike.
  expect(await approve.getAttribute('aria-keyshortcuts')).toBe('Alt+Y')
  expect(await page.getByTestId('approval-reject').getAttribute('aria-keyshortcuts')).toBe('Alt+N')
  expect(await approve.innerText()).toContain('Alt+Y')
  // Its name stays the word a person says.
  expect(await page.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(1)
  // A long line of the proposed change wraps inside the card instead of scrolling sideways.
  const patch = page.getByTestId('patch-view')
  expect(await patch.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true)

  await page.screenshot({ path: join(ARTIFACTS, 'approval-keys.png') })
  // The focus is still in the composer: one key answers.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('composer-input')
  await page.keyboard.press('Alt+y')
  await expect
    .poll(() => readFileSync(join(work, 'project', 'keys-one.txt'), 'utf8').length, { timeout: 15_000 })
    .toBe(401)

  await expect.poll(() => page.getByTestId('approval').count(), { timeout: 15_000 }).toBe(1)
  await page.keyboard.press('Alt+n')
  await expect
    .poll(() => page.getByTestId('transcript').innerText(), { timeout: 15_000 })
    .toContain('One written, one refused.')
  expect(() => readFileSync(join(work, 'project', 'keys-two.txt'))).toThrow()
  // Nothing is waiting: the keys do nothing and type nothing.
  await page.keyboard.press('Alt+y')
  expect(await input.inputValue()).toBe('')
  await page.close()
})
