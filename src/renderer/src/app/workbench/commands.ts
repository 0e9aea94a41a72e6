import type { MessageKey } from '../../i18n'
import type { Chord } from './keys'

export type CommandId =
  | 'palette.commands'
  | 'palette.files'
  | 'help.shortcuts'
  | 'layout.toggleExplorer'
  | 'layout.toggleChat'
  | 'focus.explorer'
  | 'focus.chat'
  | 'tabs.close'
  | 'tabs.closeOthers'
  | 'tabs.next'
  | 'tabs.previous'
  | 'tabs.pin'
  | 'review.open'
  | 'review.nextChange'
  | 'review.previousChange'
  | 'project.open'
  | 'settings.open'

export interface CommandSpec {
  readonly id: CommandId
  readonly title: MessageKey
  /** Every chord that runs it; the first is the one shown. */
  readonly keys: readonly Chord[]
  /** Listed in the palette (some only make sense from a key, e.g. "next change" inside Review). */
  readonly inPalette: boolean
}

/**
 * Every command of the window with its shortcuts: the palette, the keyboard handler and the help
 * panel all read this one table, so a shortcut cannot exist without being listed.
 */
export const COMMANDS: readonly CommandSpec[] = [
  { id: 'palette.commands', title: 'command.palette', keys: ['Mod+Shift+P', 'F1'], inPalette: false },
  { id: 'palette.files', title: 'command.quickOpen', keys: ['Mod+P'], inPalette: true },
  { id: 'help.shortcuts', title: 'command.shortcuts', keys: ['Mod+/'], inPalette: true },
  { id: 'layout.toggleExplorer', title: 'command.toggleExplorer', keys: ['Mod+B'], inPalette: true },
  { id: 'layout.toggleChat', title: 'command.toggleChat', keys: ['Mod+Alt+B'], inPalette: true },
  { id: 'focus.explorer', title: 'command.focusExplorer', keys: ['Mod+Shift+E'], inPalette: true },
  { id: 'focus.chat', title: 'command.focusChat', keys: ['Mod+Alt+I'], inPalette: true },
  { id: 'review.open', title: 'command.openReview', keys: ['Mod+Shift+G'], inPalette: true },
  { id: 'tabs.close', title: 'command.closeTab', keys: ['Mod+W', 'Alt+W'], inPalette: true },
  { id: 'tabs.closeOthers', title: 'command.closeOthers', keys: [], inPalette: true },
  { id: 'tabs.next', title: 'command.nextTab', keys: ['Mod+Tab', 'Alt+]'], inPalette: true },
  { id: 'tabs.previous', title: 'command.previousTab', keys: ['Mod+Shift+Tab', 'Alt+['], inPalette: true },
  { id: 'tabs.pin', title: 'command.pinTab', keys: [], inPalette: true },
  { id: 'review.nextChange', title: 'command.nextChange', keys: ['F7'], inPalette: true },
  { id: 'review.previousChange', title: 'command.previousChange', keys: ['Shift+F7'], inPalette: true },
  { id: 'project.open', title: 'command.openFolder', keys: [], inPalette: true },
  { id: 'settings.open', title: 'command.settings', keys: [], inPalette: true },
]

export function commandForChord(chord: Chord): CommandSpec | undefined {
  return COMMANDS.find((command) => command.keys.includes(chord))
}
