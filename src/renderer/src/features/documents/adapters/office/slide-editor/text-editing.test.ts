import { describe, expect, test } from 'vitest'
import { fieldParagraphs, fieldValue } from './text-editing'

describe('slide text in a field', () => {
  test('a soft line break (U+000B) is shown as ↵, never as the raw character, and comes back', () => {
    const paragraphs = ['Role of the Fair Work Commission\u000bin the 4 yearly review', '', 'Last\u000b']
    const value = fieldValue(paragraphs)
    expect(value).toBe('Role of the Fair Work Commission↵in the 4 yearly review\n\nLast↵')
    expect(value).not.toContain('\u000b')
    expect(fieldParagraphs(value)).toEqual(paragraphs)
  })

  test('Windows line ends separate paragraphs like "\\n"', () => {
    expect(fieldParagraphs('one\r\ntwo\rthree')).toEqual(['one', 'two', 'three'])
  })
})
