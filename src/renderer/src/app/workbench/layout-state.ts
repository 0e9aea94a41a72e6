import { createStore } from '../../ui/store'

export type Pane = 'explorer' | 'chat'

/** Pixel floors of the layout (spec: the centre keeps ≥ 400 px at 800 and 1024 px). */
export const CENTER_MIN_PX = 400
export const EXPLORER_MIN_PX = 180
export const CHAT_MIN_PX = 300
export const ACTIVITY_BAR_PX = 44

/**
 * Which side panes are docked (a resizable pane beside the centre) at this window width; the rest
 * open as drawers over the centre. The chat docks before the explorer: at 800 px a person reads a
 * file and talks to the agent side by side, and browses the tree in a drawer.
 */
export function dockedPanes(windowWidth: number): { explorer: boolean; chat: boolean } {
  const available = windowWidth - ACTIVITY_BAR_PX
  const chat = available >= CENTER_MIN_PX + CHAT_MIN_PX
  const explorer = available >= CENTER_MIN_PX + CHAT_MIN_PX + EXPLORER_MIN_PX + 40
  return { explorer, chat }
}

interface PaneState {
  /** A docked pane that is not collapsed, or a drawer that is open. */
  readonly explorerOpen: boolean
  readonly chatOpen: boolean
}

/**
 * Open/closed per pane. Docked panes report their collapse from the panel library (whose sizes are
 * persisted); drawers start closed on every load.
 */
export const paneState = createStore<PaneState>({ explorerOpen: true, chatOpen: true })

export function setPaneOpen(pane: Pane, open: boolean): void {
  paneState.set((state) => {
    const key = pane === 'explorer' ? 'explorerOpen' : 'chatOpen'
    return state[key] === open ? state : { ...state, [key]: open }
  })
}
