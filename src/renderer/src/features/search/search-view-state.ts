import { createStore } from '../../ui/store'

/**
 * Whether the side bar shows the search view instead of the explorer, and a counter the view
 * watches to take focus (Ctrl+Shift+F again while it is open puts the caret back in the box, as in
 * VS Code). Per window, outside React: switching projects keeps the view where it was.
 */
export const searchViewState = createStore<{ readonly open: boolean; readonly focusRequest: number }>({
  open: false,
  focusRequest: 0,
})

export function showSearchView(): void {
  searchViewState.set((state) => ({ open: true, focusRequest: state.focusRequest + 1 }))
}

export function hideSearchView(): void {
  searchViewState.set((state) => (state.open ? { ...state, open: false } : state))
}
