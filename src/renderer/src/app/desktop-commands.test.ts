import { expect, test } from 'vitest'
import { AppCommand, MENU_COMMANDS } from '../../../shared/app-command'
import { registerCommands } from './commands'
import { loopbackClient } from '../ui/loopback-client'
import { Workbench } from './workbench/workbench'

const toAccelerator = (chord: string) => chord.replace(/^Mod\+/, 'CmdOrCtrl+')

test('every desktop menu command is a registered command, showing the shortcut the window itself handles', () => {
  const workbench = new Workbench(loopbackClient().client)
  registerCommands(workbench)
  for (const [id, item] of Object.entries(MENU_COMMANDS)) {
    const command = workbench.commands.get(id)
    expect(command, id).toBeDefined()
    const chord = command?.keybindings?.[0]
    if (item.registered) {
      // The menu's own accelerator: the window has no chord for it, so nothing runs twice.
      expect(command?.keybindings ?? [], id).toEqual([])
    } else {
      expect(chord && toAccelerator(chord), id).toBe(item.accelerator)
    }
  }
})

test('shell commands are validated: unknown commands and malformed projects are refused', () => {
  expect(AppCommand.safeParse({ kind: 'run', command: 'tabs.close' }).success).toBe(true)
  expect(AppCommand.safeParse({ kind: 'run', command: 'files.delete' }).success).toBe(false)
  expect(AppCommand.safeParse({ kind: 'show-project', project_id: 'prj_1', open: 'docs/a.pdf' }).success).toBe(true)
  expect(AppCommand.safeParse({ kind: 'show-project', project_id: '', open: null }).success).toBe(false)
  expect(AppCommand.safeParse({ kind: 'show-project', project_id: 'p', open: null, extra: 1 }).success).toBe(false)
})
