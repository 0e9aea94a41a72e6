import { useCallback, type KeyboardEvent } from 'react'

/**
 * Arrow keys, Home and End over a list of focusable items (roving focus, WAI-ARIA listbox/menu
 * keys): ↓/↑ move one and stop at the ends (no wrap, so holding a key never jumps back to the top),
 * Home/End go to the first/last. Items are the container's elements matching `itemSelector`,
 * read at key time, so a list that changes needs no bookkeeping.
 */
export function useListNavigation(itemSelector: string): (event: KeyboardEvent<HTMLElement>) => void {
  return useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return
      const items = [...event.currentTarget.querySelectorAll<HTMLElement>(itemSelector)]
      if (items.length === 0) return
      const at = items.findIndex((item) => item === document.activeElement)
      const next =
        event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? items.length - 1
            : event.key === 'ArrowDown'
              ? Math.min(items.length - 1, at + 1)
              : Math.max(0, at === -1 ? items.length - 1 : at - 1)
      event.preventDefault()
      items[next]?.focus()
    },
    [itemSelector],
  )
}
