import { expect, test } from 'vitest'
import { registerCommands } from '../commands'
import { dispatchKey, type KeyPress } from './keys'
import { loopbackClient } from '../../ui/loopback-client'
import { Workbench } from './workbench'

/** A keydown as the window's capture listener sees it, recording whether it was consumed. */
function keydown(press: Partial<KeyPress> & Pick<KeyPress, 'key' | 'code'>) {
  const event = {
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    shiftKey: false,
    ...press,
    prevented: false,
    stopped: false,
    preventDefault() {
      event.prevented = true
    },
    stopPropagation() {
      event.stopped = true
    },
  }
  return event
}

function workbenchWithProject() {
  const workbench = new Workbench(loopbackClient().client)
  registerCommands(workbench)
  workbench.setProjects([{ project_id: 'prj_1', root: '/tmp/one', name: 'one', is_git: false }])
  return workbench
}

test('a bound chord runs its command and is consumed before any widget sees it', () => {
  const workbench = workbenchWithProject()
  const event = keydown({ key: 'P', code: 'KeyP', ctrlKey: true, shiftKey: true })
  expect(dispatchKey(workbench.commands, event, workbench.context())).toEqual({ kind: 'ran', id: 'palette.commands' })
  expect(workbench.overlay.get()).toEqual({ kind: 'palette', mode: 'commands' })
  expect([event.prevented, event.stopped]).toEqual([true, true])
})

test('a chord no command is bound to is left to the widget', () => {
  const workbench = workbenchWithProject()
  const event = keydown({ key: 'k', code: 'KeyK', ctrlKey: true })
  expect(dispatchKey(workbench.commands, event, workbench.context())).toBeNull()
  expect([event.prevented, event.stopped]).toEqual([false, false])
  // A lone modifier is not a chord.
  expect(
    dispatchKey(
      workbench.commands,
      keydown({ key: 'Control', code: 'ControlLeft', ctrlKey: true }),
      workbench.context(),
    ),
  ).toBeNull()
})

test("the tab keys act on the shown project's scope: Alt+W closes the active tab, Alt+] cycles", () => {
  const workbench = workbenchWithProject()
  const tabs = workbench.scopeFor('prj_1').tabs
  tabs.openFile('a.txt', { pinned: true })
  tabs.openFile('b.txt', { pinned: true })
  expect(tabs.state.activeId).toBe('file:b.txt')
  dispatchKey(workbench.commands, keydown({ key: ']', code: 'BracketRight', altKey: true }), workbench.context())
  expect(tabs.state.activeId).toBe('file:a.txt')
  // Alt+W types "∑" on a Mac keyboard: the chord is read from the key's code, not its character.
  dispatchKey(workbench.commands, keydown({ key: '∑', code: 'KeyW', altKey: true }), workbench.context())
  expect(tabs.state.tabs.map((tab) => tab.id)).toEqual(['file:b.txt'])
  // Another project's tabs are its own.
  expect(workbench.scopeFor('prj_2').tabs.state.tabs).toEqual([])
})

test('the shortcuts help, the palette and the keyboard read one registry: every chord is listed once', () => {
  const workbench = workbenchWithProject()
  const chords = workbench.commands.list().flatMap((command) => command.keybindings ?? [])
  expect(new Set(chords).size).toBe(chords.length)
  for (const id of ['review.open', 'focus.chat', 'settings.open', 'project.open', 'tabs.close', 'palette.files']) {
    expect(workbench.commands.get(id), id).toBeDefined()
  }
})
