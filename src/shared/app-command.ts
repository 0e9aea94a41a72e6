import { z } from 'zod'

/**
 * The workbench commands the desktop application menu can run, with the shortcut the menu shows.
 * Each is the id of a command in the renderer's registry (filled by `app/commands.ts`), which does
 * the work; `app/desktop-commands.test.ts` checks the ids are registered and the shortcuts match. `registered: false` marks a
 * shortcut the renderer already handles itself: the menu only displays it (no double handling).
 */
export const MENU_COMMANDS = {
  'project.open': { accelerator: 'CmdOrCtrl+O', registered: true },
  'settings.open': { accelerator: 'CmdOrCtrl+,', registered: true },
  'tabs.close': { accelerator: 'CmdOrCtrl+W', registered: false },
  'layout.toggleExplorer': { accelerator: 'CmdOrCtrl+B', registered: false },
  'layout.toggleChat': { accelerator: 'CmdOrCtrl+Alt+B', registered: false },
  'palette.commands': { accelerator: 'CmdOrCtrl+Shift+P', registered: false },
  'palette.files': { accelerator: 'CmdOrCtrl+P', registered: false },
  'help.shortcuts': { accelerator: 'CmdOrCtrl+/', registered: false },
} as const satisfies Record<string, { accelerator: string; registered: boolean }>

export type MenuCommandId = keyof typeof MENU_COMMANDS
const MENU_COMMAND_IDS = Object.keys(MENU_COMMANDS) as [MenuCommandId, ...MenuCommandId[]]

/** What the desktop shell asks of the renderer over `IPC_COMMAND_CHANNEL`. */
export const AppCommand = z.discriminatedUnion('kind', [
  /** A menu item: run this workbench command. */
  z.object({ kind: z.literal('run'), command: z.enum(MENU_COMMAND_IDS) }).strict(),
  /**
   * A folder the shell opened (Open Recent, a second launch, a file opened with Retrace): show that
   * project and, for a file, open it in a tab — the same route as `open=` in the address.
   */
  z
    .object({
      kind: z.literal('show-project'),
      project_id: z.string().min(1).max(200),
      open: z.string().min(1).max(4096).nullable(),
    })
    .strict(),
])
export type AppCommand = z.infer<typeof AppCommand>
