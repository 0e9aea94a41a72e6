import { LINE_BREAK } from '../../../../../../../shared/office'

/**
 * Text as the slide editor shows it. In the model a soft line break (`<a:br/>`) is U+000B, which a
 * text field draws as a missing-glyph box. Fields show it as "↵" (a textarea has no line break
 * other than "\n", which separates paragraphs, and draws U+2028 as a plain space: the break would
 * be invisible) and Shift+Enter types one; the on-slide editor shows it as a real line. Both give
 * U+000B back. A "↵" typed as text becomes a break too: a rare ambiguity, accepted so the break is
 * seen and typed with one key.
 */

export const FIELD_BREAK = '\u21b5'

/** Paragraphs → a textarea's value: "\n" between paragraphs, "↵" for a soft break. */
export function fieldValue(paragraphs: readonly string[]): string {
  return paragraphs.map((p) => p.split(LINE_BREAK).join(FIELD_BREAK)).join('\n')
}

/** A textarea's value → paragraphs (soft breaks back to U+000B). */
export function fieldParagraphs(value: string): string[] {
  return value
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((p) => p.split(FIELD_BREAK).join(LINE_BREAK))
}

/** Fills the on-slide editor: one block per paragraph, `<br>` for a soft break. */
export function fillEditor(editor: HTMLElement, paragraphs: readonly string[]): void {
  editor.replaceChildren(
    ...(paragraphs.length === 0 ? [''] : paragraphs).map((paragraph) => {
      const block = document.createElement('div')
      const lines = paragraph.split(LINE_BREAK)
      lines.forEach((line, i) => {
        if (i > 0) block.append(document.createElement('br'))
        if (line !== '') block.append(document.createTextNode(line))
      })
      // An empty line needs a <br> to have a height (and a caret) in an editable block.
      if (paragraph === '' || paragraph.endsWith(LINE_BREAK)) block.append(document.createElement('br'))
      return block
    }),
  )
}

/**
 * The paragraphs the editor holds: each block (div or p, as Enter makes them) is one, a `<br>` in
 * it is a soft break except the trailing one an editable block keeps for its height; text typed
 * outside any block is a paragraph of its own. In a `pre-wrap` editor Chromium writes a line break
 * as "\n" in the text rather than a `<br>`: that is a soft break too.
 */
export function editorParagraphs(editor: HTMLElement): string[] {
  const paragraphs: string[] = []
  let loose: string | null = null
  for (const node of editor.childNodes) {
    if (node instanceof HTMLElement && (node.tagName === 'DIV' || node.tagName === 'P')) {
      if (loose !== null) paragraphs.push(loose)
      loose = null
      paragraphs.push(blockText(node))
    } else if (node instanceof HTMLBRElement) {
      paragraphs.push(loose ?? '')
      loose = null
    } else {
      loose = (loose ?? '') + (node.textContent ?? '').replace(/\n/g, LINE_BREAK)
    }
  }
  if (loose !== null) paragraphs.push(loose)
  return paragraphs.length === 0 ? [''] : paragraphs
}

function blockText(block: HTMLElement): string {
  let text = ''
  const walk = (node: Node) => {
    for (const child of node.childNodes) {
      if (child instanceof HTMLBRElement) {
        // The last <br> of a block only holds its line open.
        if (child !== lastLeaf(block)) text += LINE_BREAK
      } else if (child.nodeType === Node.TEXT_NODE) text += (child.textContent ?? '').replace(/\n/g, LINE_BREAK)
      else walk(child)
    }
  }
  walk(block)
  return text
}

function lastLeaf(node: Node): Node {
  let last = node
  while (last.lastChild) last = last.lastChild
  return last
}
