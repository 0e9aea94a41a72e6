import { createSignal, type Command } from '../../ui/commands'
import { APPROVE_CHORD, firstPendingApproval, REJECT_CHORD } from './pending-approvals'

/** Asks the chat pane of this project to put the focus in its composer. */
export const composerFocusRequests = createSignal<{ readonly projectId: string }>()
/** Asks the chat pane of this project to open Settings. */
export const settingsRequests = createSignal<{ readonly projectId: string }>()

/**
 * The chat's commands: focus the composer, open Settings (both live in the chat pane), and answer
 * the agent's question by one key when an approval card waits (issue 25: the person's hands may be
 * anywhere — in the composer, in an editor — and the card shows these keys).
 */
export const chatCommands: readonly Command[] = [
  {
    id: 'approval.approve',
    title: 'command.approve',
    keybindings: [APPROVE_CHORD],
    when: () => firstPendingApproval() !== undefined,
    run: () => firstPendingApproval()?.decide('approve'),
  },
  {
    id: 'approval.reject',
    title: 'command.reject',
    keybindings: [REJECT_CHORD],
    when: () => firstPendingApproval() !== undefined,
    run: () => firstPendingApproval()?.decide('reject'),
  },
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
