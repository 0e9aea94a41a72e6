import type { Command } from '../../ui/commands'
import { navigateChange } from '../../ui/diff'

/** Review's commands: open the Review tab, and F7 / Shift+F7 through the diff on screen. */
export const reviewCommands: readonly Command[] = [
  {
    id: 'review.open',
    title: 'command.openReview',
    keybindings: ['Mod+Shift+G'],
    run: (context) => context.workbench.openReviewTab(),
  },
  { id: 'review.nextChange', title: 'command.nextChange', keybindings: ['F7'], run: () => navigateChange(1) },
  {
    id: 'review.previousChange',
    title: 'command.previousChange',
    keybindings: ['Shift+F7'],
    run: () => navigateChange(-1),
  },
]
