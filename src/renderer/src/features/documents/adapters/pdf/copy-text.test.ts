import { describe, expect, test } from 'vitest'
import { fragmentsToText, type TextFragment } from './copy-text'

/** Lines of text laid out like a page: 10-unit type on a 12-unit leading, 100 units wide. */
function page(lines: Array<string | { text: string; left?: number; right?: number; gap?: number; page?: number }>) {
  const fragments: TextFragment[] = []
  let top = 0
  for (const line of lines) {
    const spec = typeof line === 'string' ? { text: line } : line
    top += spec.gap ?? 12
    const left = spec.left ?? 0
    fragments.push({
      text: spec.text,
      page: spec.page ?? 1,
      left,
      right: spec.right ?? 100,
      top,
      bottom: top + 10,
    })
  }
  return fragments
}

const joined = (fragments: TextFragment[]) => fragmentsToText(fragments, { keepLineBreaks: false })

describe('copying from the PDF text layer', () => {
  test('joins layout line breaks into one sentence with single spaces', () => {
    expect(joined(page(['The quick brown fox ', 'jumps over the lazy', 'dog.']))).toBe(
      'The quick brown fox jumps over the lazy dog.',
    )
  })

  test('keeps a paragraph break shown by a larger gap, an indent or a short last line', () => {
    expect(joined(page(['First paragraph runs', { text: 'to here.', right: 40 }, 'Second one.']))).toBe(
      'First paragraph runs to here.\nSecond one.',
    )
    expect(joined(page(['One line of text', 'and its end', { text: 'Next after a gap', gap: 24 }]))).toBe(
      'One line of text and its end\nNext after a gap',
    )
    expect(
      joined(page(['Body text goes on', 'across the line', { text: 'Indented start', left: 12 }, 'more text'])),
    ).toBe('Body text goes on across the line\nIndented start more text')
  })

  test('rejoins a word hyphenated at a line end when the next line goes on in lower case', () => {
    expect(joined(page(['a well-', 'known result and infor\u00ad', 'mation theory']))).toBe(
      'a wellknown result and information theory',
    )
    expect(joined(page(['the hyphen\u2010', 'ated word']))).toBe('the hyphenated word')
  })

  test('keeps a hyphen inside a line, or before a capital, a digit or a paragraph break', () => {
    expect(joined(page(['a well-known result', 'goes on']))).toBe('a well-known result goes on')
    expect(joined(page(['written by Jean-', 'Paul and COVID-', '19 cases']))).toBe(
      'written by Jean-Paul and COVID-19 cases',
    )
    expect(joined(page(['a paragraph ends in a dash-', { text: 'next one', gap: 30 }]))).toBe(
      'a paragraph ends in a dash-\nnext one',
    )
  })

  test('removes soft hyphens', () => {
    expect(joined(page(['co\u00adoperate inside a line', 'too']))).toBe('cooperate inside a line too')
  })

  test('spells out ligatures (U+FB00–FB06), joined or with line breaks kept', () => {
    expect(joined(page(['the \ufb01rst \ufb02ow', 'o\ufb00ers \ufb03x \ufb04uent \ufb05 \ufb06']))).toBe(
      'the first flow offers ffix ffluent st st',
    )
    expect(fragmentsToText(page(['\ufb01ne', 'e\ufb00ect']), { keepLineBreaks: true })).toBe('fine\neffect')
  })

  test('inserts no space between CJK characters', () => {
    expect(joined(page(['知识库是一个', '开放的平台，', '欢迎参与。']))).toBe('知识库是一个开放的平台，欢迎参与。')
  })

  test('the checkbox keeps every original line break', () => {
    expect(fragmentsToText(page(['The quick brown fox ', 'jumps over', 'dog.']), { keepLineBreaks: true })).toBe(
      'The quick brown fox\njumps over\ndog.',
    )
  })

  test('fragments of one line are joined, with a space only where a gap shows one', () => {
    const fragments: TextFragment[] = [
      { text: 'Hello', page: 1, left: 0, right: 25, top: 0, bottom: 10 },
      { text: 'world', page: 1, left: 30, right: 55, top: 1, bottom: 11 },
      { text: '!', page: 1, left: 55, right: 58, top: 0, bottom: 10 },
    ]
    expect(joined(fragments)).toBe('Hello world!')
  })

  test('a sentence going on in the next column or on the next page is joined', () => {
    const fragments = page(['left column text', 'goes on'])
    fragments.push({ text: 'in the right column.', page: 1, left: 120, right: 220, top: 12, bottom: 22 })
    expect(joined(fragments)).toBe('left column text goes on in the right column.')
    expect(joined(page(['end of a page', { text: 'next page', page: 2, gap: -700 }]))).toBe('end of a page next page')
  })
})
