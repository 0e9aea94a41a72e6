import { LINE_BREAK } from './pptx'

/**
 * How a soft line break (`<a:br/>`, U+000B in paragraph text) travels through the model: `read`
 * shows `<br>`, and `replace_text` turns `<br>`, `<br/>` or `<br />` (and a raw U+000B) back into
 * one. A paragraph whose own text contains the characters "<br>" reads the same way: a rare
 * ambiguity, accepted so the model can round-trip what it sees.
 */
export const SOFT_BREAK_MARK = '<br>'

/** The paragraphs of a `replace_text` text: "\n" (or "\r\n") separates them. */
export function paragraphsFromText(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/<br\s*\/?>/gi, LINE_BREAK))
}
