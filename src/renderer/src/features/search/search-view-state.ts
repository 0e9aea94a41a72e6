import { createSignal } from '../../ui/commands'
import { createStore } from '../../ui/store'

/**
 * Whether the side bar shows the search view instead of the explorer. Per window, outside React:
 * switching projects keeps the view where it was.
 */
export const searchViewState = createStore<{ readonly open: boolean }>({ open: false })

/**
 * Asks the shown view to put the caret in its box (Ctrl+Shift+F again while it is open, as in VS
 * Code). A view that mounts because of the same command takes the focus as it mounts.
 */
export const searchFocusRequests = createSignal<undefined>()

export function showSearchView(): void {
  if (!searchViewState.get().open) searchViewState.set({ open: true })
  searchFocusRequests.emit(undefined)
}

export function hideSearchView(): void {
  if (searchViewState.get().open) searchViewState.set({ open: false })
}
