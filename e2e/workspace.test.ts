import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { git } from './support/project'
import { useWorkspace } from './support/workspace'

/**
 * The fixture every spec stands on: it writes the project it was asked for, a restart keeps the
 * data folder, and stopping it leaves no host, no Chromium and no temp folder behind.
 */
describe('the e2e workspace', () => {
  const workspace = useWorkspace({
    name: 'fixture',
    files: { 'notes.txt': 'first\n', 'docs/guide.md': '# Guide\n' },
    git: true,
    uncommitted: { 'notes.txt': 'second\n' },
    folders: { other: { 'only-here.md': '# Other\n' } },
    agent: { mode: 'auto' },
  })

  test('writes the files, commits them, leaves the later change uncommitted and adds the other folder', () => {
    expect(git(workspace.project, 'status', '--porcelain').toString()).toBe(' M notes.txt\n')
    expect(readFileSync(join(workspace.project, 'docs', 'guide.md'), 'utf8')).toBe('# Guide\n')
    expect(readFileSync(join(workspace.work, 'other', 'only-here.md'), 'utf8')).toBe('# Other\n')
  })

  test('a restarted host serves the same data folder: the session made before is there after', async () => {
    const page = await workspace.newPage()
    await page.goto(workspace.host.url)
    const select = page.getByTestId('session-select')
    await page.getByTestId('session-new').click()
    // Before the first session exists the select holds one "No sessions" option with an empty value.
    await expect.poll(() => select.inputValue()).not.toBe('')
    const session = await select.inputValue()
    const first = workspace.host
    const llm = workspace.llm

    await workspace.restartHost()
    expect(first.process.exitCode ?? first.process.signalCode).not.toBeNull()
    expect(workspace.llm).toBe(llm)
    await page.goto(workspace.host.url)
    await expect.poll(() => select.inputValue()).toBe(session)
    await page.close()
  })

  test('stop closes Chromium, ends the host and removes the temp folder', async () => {
    const { browser, host, work } = workspace
    await workspace.stop()
    expect(browser.isConnected()).toBe(false)
    expect(host.process.exitCode ?? host.process.signalCode).not.toBeNull()
    expect(existsSync(work)).toBe(false)
  })
})
