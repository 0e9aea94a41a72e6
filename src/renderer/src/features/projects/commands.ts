import { createSignal, type Command } from '../../ui/commands'

/** Asks the project switcher to open a folder (the native picker, or its path box in a browser). */
export const openFolderRequests = createSignal<undefined>()

export const projectCommands: readonly Command[] = [
  { id: 'project.open', title: 'command.openFolder', run: () => openFolderRequests.emit(undefined) },
]
