import type { Command } from '../../ui/commands'
import type { Workbench } from './workbench'

/**
 * The workbench's own commands (palette, panes, tabs); each feature contributes the rest from its
 * own `commands.ts`, and `registerCommands` (app/commands.ts) puts them all in one registry.
 */
export function workbenchCommands(workbench: Workbench): readonly Command[] {
  const tabs = () => workbench.currentScope()?.tabs ?? null
  const activeTab = () => tabs()?.state.activeId ?? null
  return [
    {
      id: 'palette.commands',
      title: 'command.palette',
      keybindings: ['Mod+Shift+P', 'F1'],
      inPalette: false,
      run: () => workbench.openPalette('commands'),
    },
    {
      id: 'palette.files',
      title: 'command.quickOpen',
      keybindings: ['Mod+P'],
      run: () => workbench.openPalette('files'),
    },
    { id: 'help.shortcuts', title: 'command.shortcuts', keybindings: ['Mod+/'], run: () => workbench.showShortcuts() },
    {
      id: 'layout.toggleExplorer',
      title: 'command.toggleExplorer',
      keybindings: ['Mod+B'],
      run: () => workbench.layout.current?.toggle('explorer'),
    },
    {
      id: 'layout.toggleChat',
      title: 'command.toggleChat',
      keybindings: ['Mod+Alt+B'],
      run: () => workbench.layout.current?.toggle('chat'),
    },
    {
      id: 'tabs.close',
      title: 'command.closeTab',
      keybindings: ['Mod+W', 'Alt+W'],
      run: () => {
        const id = activeTab()
        if (id) tabs()?.close(id)
      },
    },
    {
      id: 'tabs.closeOthers',
      title: 'command.closeOthers',
      run: () => {
        const id = activeTab()
        if (id) tabs()?.closeOthers(id)
      },
    },
    { id: 'tabs.next', title: 'command.nextTab', keybindings: ['Mod+Tab', 'Alt+]'], run: () => tabs()?.cycle(1) },
    {
      id: 'tabs.previous',
      title: 'command.previousTab',
      keybindings: ['Mod+Shift+Tab', 'Alt+['],
      run: () => tabs()?.cycle(-1),
    },
    {
      id: 'tabs.pin',
      title: 'command.pinTab',
      run: () => {
        const id = activeTab()
        if (id) tabs()?.pin(id)
      },
    },
  ]
}
