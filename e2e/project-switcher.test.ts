import { beforeAll, expect, test } from 'vitest'
import { watchPage } from './support/browser'
import type { RunningWebHost } from './support/web-host'
import { useWorkspace } from './support/workspace'

// The project switcher is a popover (ui/use-popover), not a modal: its keyboard path and how it
// closes are what a person relies on to pick a project without the mouse.
const workspace = useWorkspace({ name: 'project-switcher', files: { 'README.md': '# Switcher fixture\n' } })
let host: RunningWebHost
beforeAll(() => {
  ;({ host } = workspace)
})

test('the project popover opens on the current project, Escape gives focus back, a press outside closes it', async () => {
  const page = await workspace.newPage()
  const watch = await watchPage(page)
  await page.goto(host.url)
  const button = page.getByTestId('project-switcher')
  const panel = page.getByRole('dialog', { name: 'Project' })
  const focused = () =>
    page.evaluate(() => ({
      testId: document.activeElement?.getAttribute('data-testid') ?? null,
      current: document.activeElement?.getAttribute('aria-current') ?? null,
    }))

  await button.focus()
  await page.keyboard.press('Enter')
  await expect.poll(() => panel.count()).toBe(1)
  expect(await button.getAttribute('aria-expanded')).toBe('true')
  // The button names the panel it opened, for a screen reader to jump to.
  const controls = await button.getAttribute('aria-controls')
  expect(controls).not.toBeNull()
  expect(await panel.getAttribute('id')).toBe(controls)
  await expect.poll(focused).toEqual({ testId: 'project-option', current: 'true' })

  await page.keyboard.press('Escape')
  await expect.poll(() => panel.count()).toBe(0)
  expect(await button.getAttribute('aria-expanded')).toBe('false')
  expect((await focused()).testId).toBe('project-switcher')

  // The button toggles it closed again; a press anywhere else closes it too.
  await button.click()
  await expect.poll(() => panel.count()).toBe(1)
  await button.click()
  await expect.poll(() => panel.count()).toBe(0)
  await button.click()
  await expect.poll(() => panel.count()).toBe(1)
  // Bottom centre of the 1400×900 window: away from the title bar, on no control.
  await page.mouse.click(700, 880)
  await expect.poll(() => panel.count()).toBe(0)

  expect(watch.consoleErrors).toEqual([])
  await page.close()
})
