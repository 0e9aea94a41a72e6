import type { MenuItemConstructorOptions } from 'electron'
import { MENU_COMMANDS, type MenuCommandId } from '../../shared/app-command'
import type { MenuLabels } from './menu-labels'

/** What the menu's own items do; the shell wires these (main.ts), the template only names them. */
export interface MenuActions {
  /** A workbench command, run by the renderer (`AppCommand` `run`). */
  run(command: MenuCommandId): void
  openRecent(folder: string): void
  toggleDarkMode(): void
  openDataFolder(): void
}

export interface MenuOptions {
  readonly platform: NodeJS.Platform
  readonly labels: MenuLabels
  /** Most recently opened first (the core's project list). */
  readonly recent: readonly { readonly name: string; readonly root: string }[]
  readonly darkMode: boolean
  /** `npm start`: the developer tools are in the View menu. */
  readonly development: boolean
  readonly actions: MenuActions
}

export const RECENT_LIMIT = 10

/**
 * The application menu (File, Edit, View, Window, Help; on macOS the app menu first). Items that act
 * in the window dispatch a workbench command through the renderer's command registry; their shortcuts
 * are displayed but not registered where the window already handles the key (`MENU_COMMANDS`).
 */
export function menuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const { labels, actions, platform } = options
  const mac = platform === 'darwin'
  const command = (id: MenuCommandId, label: string): MenuItemConstructorOptions => ({
    id,
    label,
    accelerator: MENU_COMMANDS[id].accelerator,
    registerAccelerator: MENU_COMMANDS[id].registered,
    click: () => actions.run(id),
  })
  const recent: MenuItemConstructorOptions[] =
    options.recent.length === 0
      ? [{ id: 'recent.none', label: labels.noRecent, enabled: false }]
      : options.recent.slice(0, RECENT_LIMIT).map((project, index) => ({
          id: `recent.${index}`,
          // `&` would become a mnemonic marker on Windows and Linux.
          label: `${project.name.replaceAll('&', '&&')} — ${project.root.replaceAll('&', '&&')}`,
          click: () => actions.openRecent(project.root),
        }))

  const appMenu: MenuItemConstructorOptions = {
    label: 'Retrace',
    submenu: [
      { role: 'about', label: labels.about },
      { type: 'separator' },
      command('settings.open', labels.settings),
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit', label: labels.quit },
    ],
  }
  const file: MenuItemConstructorOptions = {
    label: labels.file,
    submenu: [
      command('project.open', labels.openFolder),
      { id: 'recent', label: labels.openRecent, submenu: recent },
      { type: 'separator' },
      command('tabs.close', labels.closeTab),
      ...(mac
        ? []
        : [
            { type: 'separator' } as const,
            command('settings.open', labels.settings),
            { type: 'separator' } as const,
            { role: 'quit', label: labels.quit } as const,
          ]),
    ],
  }
  const edit: MenuItemConstructorOptions = {
    label: labels.edit,
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'delete' },
      { type: 'separator' },
      { role: 'selectAll' },
    ],
  }
  const view: MenuItemConstructorOptions = {
    label: labels.view,
    submenu: [
      command('layout.toggleExplorer', labels.toggleExplorer),
      command('layout.toggleChat', labels.toggleChat),
      { type: 'separator' },
      command('palette.commands', labels.commandPalette),
      command('palette.files', labels.goToFile),
      { type: 'separator' },
      // Shown with their keys, but the keys are not taken from the page: Ctrl+= / Ctrl+- / Ctrl+0
      // belong to the PDF reader and the image views (issue 25), which zoom the document, not the
      // window. The window's own zoom stays one click away here.
      { role: 'resetZoom', registerAccelerator: false },
      { role: 'zoomIn', registerAccelerator: false },
      { role: 'zoomOut', registerAccelerator: false },
      { type: 'separator' },
      {
        id: 'view.darkMode',
        label: labels.darkMode,
        type: 'checkbox',
        checked: options.darkMode,
        click: () => actions.toggleDarkMode(),
      },
      { role: 'togglefullscreen' },
      ...(options.development ? [{ type: 'separator' } as const, { role: 'toggleDevTools' } as const] : []),
    ],
  }
  const window: MenuItemConstructorOptions = { label: labels.window, role: 'windowMenu' }
  const help: MenuItemConstructorOptions = {
    label: labels.help,
    role: 'help',
    submenu: [
      command('help.shortcuts', labels.shortcuts),
      { type: 'separator' },
      { id: 'help.dataFolder', label: labels.openDataFolder, click: () => actions.openDataFolder() },
      ...(mac ? [] : [{ type: 'separator' } as const, { role: 'about', label: labels.about } as const]),
    ],
  }
  return [...(mac ? [appMenu] : []), file, edit, view, window, help]
}
