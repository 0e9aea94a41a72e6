import { createSignal, type Command } from '../../ui/commands'

/** Asks the chat pane of this project to put the focus in its composer. */
export const composerFocusRequests = createSignal<{ readonly projectId: string }>()
/** Asks the chat pane of this project to open Settings. */
export const settingsRequests = createSignal<{ readonly projectId: string }>()

/** The chat's commands: focus the composer, open Settings (both live in the chat pane). */
export const chatCommands: readonly Command[] = [
  {
    id: 'focus.chat',
    title: 'command.focusChat',
    keybindings: ['Mod+Alt+I'],
    run: ({ projectId, workbench }) => {
      if (projectId === null) return
      workbench.showPane('chat')
      // A drawer mounts on the next frame; the composer takes focus once it is there.
      requestAnimationFrame(() => composerFocusRequests.emit({ projectId }))
    },
  },
  {
    id: 'settings.open',
    title: 'command.settings',
    run: ({ projectId, workbench }) => {
      if (projectId === null) return
      workbench.showPane('chat')
      // After the frame that mounts a drawer, so a chat pane opened by this command hears it too.
      requestAnimationFrame(() => settingsRequests.emit({ projectId }))
    },
  },
]
