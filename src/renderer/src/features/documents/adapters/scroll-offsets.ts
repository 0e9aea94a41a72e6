/**
 * The scroll offsets inside `root`, to put back after the element was detached and re-attached
 * (detaching drops every offset to zero). Elements are remembered themselves: the DOM is the same
 * when it comes back, so no selector or index path is needed.
 */
export function rememberScroll(root: HTMLElement): () => void {
  const offsets: Array<readonly [Element, number, number]> = []
  for (const element of [root, ...root.querySelectorAll('*')]) {
    if (element.scrollTop !== 0 || element.scrollLeft !== 0)
      offsets.push([element, element.scrollTop, element.scrollLeft])
  }
  return () => {
    for (const [element, top, left] of offsets) {
      if (element.isConnected) element.scrollTo({ top, left, behavior: 'instant' })
    }
  }
}
