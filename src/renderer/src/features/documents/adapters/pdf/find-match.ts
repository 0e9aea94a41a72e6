/** The text selection and the find match inside a reader's scroll container. */

/** Whether the person has selected text inside the reader (not elsewhere on the page). */
export function readerHasSelection(container: HTMLElement): boolean {
  const selection = document.getSelection()
  return selection !== null && !selection.isCollapsed && container.contains(selection.anchorNode)
}

/** The drawn parts of the current find match (none while the find bar is closed). */
export function currentFindMatch(container: HTMLElement, findOpen: boolean): Element[] {
  if (!findOpen) return []
  return [...container.querySelectorAll('.textLayer .highlight.selected')]
}

/** Selects the text from the first part to the last (a find match); true when there was one. */
export function selectElements(parts: readonly Element[]): boolean {
  const first = parts[0]
  const last = parts.at(-1)
  if (!first || !last) return false
  const range = document.createRange()
  range.setStart(first, 0)
  range.setEnd(last, last.childNodes.length)
  const selection = document.getSelection()
  selection?.removeAllRanges()
  selection?.addRange(range)
  return true
}
