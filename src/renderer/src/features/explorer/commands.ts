import { createSignal, type Command, type CommandContext } from '../../ui/commands'

/** What the mounted explorer of a project is asked to do: take the focus, or show a path. */
export type ExplorerRequest =
  | { readonly kind: 'focus'; readonly projectId: string }
  | { readonly kind: 'reveal'; readonly projectId: string; readonly path: string }

/** Heard by the explorer of the named project while it is mounted; nothing is replayed later. */
export const explorerRequests = createSignal<ExplorerRequest>()

/**
 * Shows a path in the explorer: the pane appears, the path's folders expand, and the row is
 * selected, scrolled into view and focused once its listing is there.
 */
export function revealInExplorer(context: CommandContext, path: string): void {
  if (context.projectId === null) return
  context.workbench.showPane('explorer')
  explorerRequests.emit({ kind: 'reveal', projectId: context.projectId, path })
}

/** The explorer's commands. */
export const explorerCommands: readonly Command[] = [
  {
    id: 'focus.explorer',
    title: 'command.focusExplorer',
    keybindings: ['Mod+Shift+E'],
    run: ({ projectId, workbench }) => {
      if (projectId === null) return
      workbench.showPane('explorer')
      // A drawer mounts on the next frame; the tree takes focus once it is there.
      requestAnimationFrame(() => explorerRequests.emit({ kind: 'focus', projectId }))
    },
  },
]
