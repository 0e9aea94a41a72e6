import type { Command } from '../../ui/commands'
import { showSearchView } from './search-view-state'

/** Content search's command: Ctrl+Shift+F (Cmd+Shift+F on macOS) opens the view and focuses its box. */
export const searchCommands: readonly Command[] = [
  {
    id: 'search.find',
    title: 'command.findInFiles',
    keybindings: ['Mod+Shift+F'],
    when: (context) => context.projectId !== null,
    run: (context) => {
      showSearchView()
      // The view lives in the side bar; a collapsed pane or a closed drawer is shown first.
      context.workbench.showPane('explorer')
    },
  },
]
