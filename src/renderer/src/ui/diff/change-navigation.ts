/** Asks the diff on screen to move to the next (+1) or previous (−1) change (F7 / Shift+F7). */
export const CHANGE_NAVIGATION_EVENT = 'retrace:diff-change'

export function navigateChange(step: 1 | -1): void {
  window.dispatchEvent(new CustomEvent(CHANGE_NAVIGATION_EVENT, { detail: step }))
}
