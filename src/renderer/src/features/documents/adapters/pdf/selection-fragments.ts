import { fragmentsToText, type CopyOptions, type TextFragment } from './copy-text'

/**
 * The selected text of pdf.js text layers inside `root`, as positioned fragments in reading (DOM)
 * order, each relative to its page. `null` when the selection is not (wholly) text-layer text of
 * this reader — then the copy is not ours to rewrite (an annotation editor, the find box…).
 */
export function selectionFragments(selection: Selection | null, root: HTMLElement): TextFragment[] | null {
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null
  const fragments: TextFragment[] = []
  for (let i = 0; i < selection.rangeCount; i++) {
    const range = selection.getRangeAt(i)
    const ancestor = range.commonAncestorContainer
    const scope = ancestor.nodeType === Node.TEXT_NODE ? ancestor.parentNode : ancestor
    if (!scope || !root.contains(scope)) return null
    if (!(scope instanceof Element && (scope.closest('.textLayer') || scope.querySelector('.textLayer')))) return null
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node as Text
      if (!range.intersectsNode(text)) continue
      const layer = text.parentElement?.closest('.textLayer')
      const page = layer?.closest<HTMLElement>('.page')
      if (!layer || !page) continue
      const start = text === range.startContainer ? range.startOffset : 0
      const end = text === range.endContainer ? range.endOffset : text.length
      if (end <= start) continue
      const piece = document.createRange()
      piece.setStart(text, start)
      piece.setEnd(text, end)
      const box = piece.getBoundingClientRect()
      const origin = page.getBoundingClientRect()
      fragments.push({
        text: text.data.slice(start, end),
        page: Number(page.dataset.pageNumber ?? 0),
        left: box.left - origin.left,
        right: box.right - origin.left,
        top: box.top - origin.top,
        bottom: box.bottom - origin.top,
      })
    }
  }
  return fragments.length > 0 ? fragments : null
}

/**
 * The reader's copy handler (capture phase on its scroll container): text-layer text goes to the
 * clipboard as `fragmentsToText` rewrites it; any other selection is copied as the browser would.
 */
export function copySelection(event: ClipboardEvent, root: HTMLElement, options: CopyOptions): void {
  const fragments = selectionFragments(document.getSelection(), root)
  if (!fragments || !event.clipboardData) return
  event.clipboardData.setData('text/plain', fragmentsToText(fragments, options).normalize('NFC'))
  event.preventDefault()
  event.stopImmediatePropagation()
}
