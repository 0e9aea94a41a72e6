import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { FrameClient } from '../test/support/ws-client'
import { request } from '../test/support/core'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { ARTIFACTS, useWorkspace } from './support/workspace'

const workspace = useWorkspace({ name: 'ops', files: { 'docs/keep.md': '# keep\n' } })
let work: string
let host: RunningWebHost
beforeAll(() => {
  ;({ work, host } = workspace)
})

test('New file, Rename and Delete in the explorer are journaled human transactions', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  const tree = page.getByRole('tree', { name: 'Files' })
  await expect.poll(() => tree.locator('[data-path="docs"]').count()).toBe(1)

  // New file inside the selected folder.
  await tree.locator('[data-path="docs"]').click()
  await page.getByRole('button', { name: 'New file' }).click()
  await page.getByTestId('explorer-name-input').fill('idea.md')
  await page.getByRole('button', { name: 'Create' }).click()
  await expect.poll(() => tree.locator('[data-path="docs/idea.md"]').count()).toBe(1)
  expect(readFileSync(join(work, 'project', 'docs', 'idea.md'), 'utf8')).toBe('')

  // Rename it.
  await tree.locator('[data-path="docs/idea.md"]').click()
  await page.getByRole('button', { name: 'Rename' }).click()
  await page.getByTestId('explorer-name-input').fill('plan.md')
  await page.getByRole('button', { name: 'Rename' }).last().click()
  await expect.poll(() => tree.locator('[data-path="docs/plan.md"]').count()).toBe(1)
  expect(await tree.locator('[data-path="docs/idea.md"]').count()).toBe(0)
  expect(existsSync(join(work, 'project', 'docs', 'plan.md'))).toBe(true)

  // A failed operation is explained and writes nothing.
  await page.getByRole('button', { name: 'New file' }).click()
  await page.getByTestId('explorer-name-input').fill('plan.md')
  await page.getByRole('button', { name: 'Create' }).click()
  await expect.poll(() => page.locator('.explorer-toolbar [role="alert"]').innerText()).toContain('already exists')
  await page.getByRole('button', { name: 'Cancel' }).click()

  // Delete asks first, then removes it.
  await tree.locator('[data-path="docs/plan.md"]').click()
  await page.getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click()
  await expect.poll(() => tree.locator('[data-path="docs/plan.md"]').count()).toBe(0)
  expect(existsSync(join(work, 'project', 'docs', 'plan.md'))).toBe(false)
  await page.screenshot({ path: join(ARTIFACTS, 'file-operations.png') })

  const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  client.send(request('project.list', {}))
  const listed = (await client.next()) as { result: { projects: Array<{ project_id: string }> } }
  const projectId = listed.result.projects[0]?.project_id ?? ''
  client.send(request('journal.transactions', {}, { project_id: projectId }))
  const journal = (await client.next()) as {
    result: { transactions: Array<{ kind: string; status: string; files: Array<{ operation: string; path: string }> }> }
  }
  expect(journal.result.transactions.map((t) => [t.kind, t.status, t.files[0]?.operation, t.files[0]?.path])).toEqual([
    ['human', 'committed', 'create', 'docs/idea.md'],
    ['human', 'committed', 'rename', 'docs/plan.md'],
    ['human', 'committed', 'delete', 'docs/plan.md'],
  ])
  client.close()
  expect(watch.consoleErrors).toEqual([])
  expect(await watch.cspViolations()).toEqual([])
  await page.close()
})

test('an open file follows a change another client commits', async () => {
  const page = await workspace.newPage({ viewport: { width: 1280, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  const tree = page.getByRole('tree', { name: 'Files' })
  await tree.locator('[data-path="docs"]').click()
  await tree.locator('[data-path="docs/keep.md"]').click()
  // A Markdown file: its rendered preview shows the text (issue 13).
  const lines = page.getByTestId('markdown-preview')
  const text = async () => (await lines.innerText()).replace(/\u00a0/g, ' ')
  await expect.poll(text, { timeout: 30_000 }).toContain('keep')

  const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  client.send(request('project.list', {}))
  const listed = (await client.next()) as { result: { projects: Array<{ project_id: string }> } }
  const projectId = listed.result.projects[0]?.project_id ?? ''
  const { createHash, randomUUID } = await import('node:crypto')
  const revision = `sha256:${createHash('sha256').update('# keep\n').digest('hex')}`
  client.send({
    ...request(
      'files.write',
      { path: 'docs/keep.md', content: '# kept, and changed elsewhere\n', expected_revision: revision },
      { project_id: projectId },
    ),
    idempotency_key: randomUUID(),
  })
  await expect.poll(text).toContain('changed elsewhere')
  client.close()
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
