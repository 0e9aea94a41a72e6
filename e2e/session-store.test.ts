import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

const workspace = useWorkspace({ name: 'session-store', files: { 'README.md': '# sessions\n' } })
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

test('a narrow window: closing and reopening the chat drawer keeps the session the person chose', async () => {
  // 640 px: the chat is a drawer, so closing it unmounts the chat pane entirely.
  const page = await workspace.newPage({ viewport: { width: 640, height: 800 } })
  const watch = await watchPage(page)
  await page.goto(host.url)
  const toggleChat = page.getByTestId('activity-layout.toggleChat')
  const drawer = page.getByTestId('drawer-chat')
  await toggleChat.click()
  await expect.poll(() => drawer.count()).toBe(1)

  const select = drawer.getByTestId('session-select')
  const options = select.locator('option')
  await drawer.getByTestId('session-new').click()
  // Before the first session exists the select holds one "No sessions" option with an empty value.
  await expect.poll(() => select.inputValue()).not.toBe('')
  await expect.poll(() => options.count()).toBe(1)
  const older = await select.inputValue()
  await drawer.getByTestId('session-new').click()
  await expect.poll(() => options.count()).toBe(2)
  await expect.poll(() => select.inputValue()).not.toBe(older)

  // The person goes back to the older session, then closes the drawer and opens it again.
  await select.selectOption(older)
  await expect.poll(() => select.inputValue()).toBe(older)
  await page.keyboard.press('Escape')
  await expect.poll(() => drawer.count()).toBe(0)
  await toggleChat.click()
  await expect.poll(() => drawer.count()).toBe(1)
  await expect.poll(() => drawer.getByTestId('session-select').locator('option').count()).toBe(2)
  expect(await drawer.getByTestId('session-select').inputValue()).toBe(older)
  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
