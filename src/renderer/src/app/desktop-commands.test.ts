import { expect, test } from 'vitest'
import { AppCommand, MENU_COMMANDS } from '../../../shared/app-command'
import { COMMANDS } from './workbench/commands'

const toAccelerator = (chord: string) => chord.replace(/^Mod\+/, 'CmdOrCtrl+')

test('every desktop menu command is a workbench command, showing the shortcut the window itself handles', () => {
  for (const [id, item] of Object.entries(MENU_COMMANDS)) {
    const command = COMMANDS.find((c) => c.id === id)
    expect(command, id).toBeDefined()
    const chord = command?.keys[0]
    if (item.registered) {
      // The menu's own accelerator: the window has no chord for it, so nothing runs twice.
      expect(command?.keys, id).toEqual([])
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
