import { diffArrays } from 'diff'
import type { TextSegment } from '../protocol/documents'

/**
 * A person reads a document change word by word: "1.0 → 2.0", "06/22/2015 → 12/03/2026", not digit
 * by digit. So a token is a run of characters between spaces (punctuation stays inside its word),
 * a run of spaces, or one CJK character (CJK text has no spaces; one character is its word).
 * `diff`'s own word diff splits at punctuation, which turned a date into a digit puzzle.
 */
const TOKEN =
  /\s+|[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+/gu

export function tokensOf(text: string): string[] {
  return text.match(TOKEN) ?? []
}

/**
 * Word-level segments from `before` to `after`; past `maxEditLength` token edits the whole text is
 * one removal and one addition (bounded time on hostile input).
 */
export function wordSegments(before: string, after: string, maxEditLength = 5_000): TextSegment[] {
  const changes = diffArrays(tokensOf(before), tokensOf(after), { maxEditLength })
  if (changes === undefined) {
    const whole: TextSegment[] = []
    if (before !== '') whole.push({ kind: 'removed', text: before })
    if (after !== '') whole.push({ kind: 'added', text: after })
    return whole
  }
  const segments: TextSegment[] = []
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same'
    const text = change.value.join('')
    if (text === '') continue
    const last = segments[segments.length - 1]
    if (last && last.kind === kind) segments[segments.length - 1] = { kind, text: last.text + text }
    else segments.push({ kind, text })
  }
  return segments
}
