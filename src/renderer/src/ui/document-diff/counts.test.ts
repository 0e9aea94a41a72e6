import { describe, expect, test } from 'vitest'
import { translator } from '../../i18n'
import { countsLabel, countsText } from './counts'

const en = translator('en')
const zh = translator('zh-CN')

describe('a document row counts what changed inside it', () => {
  test('paragraphs: signs and ¶, zeros left out, and the same in words', () => {
    const counts = { unit: 'paragraph', added: 3, removed: 1, changed: 2 } as const
    expect(countsText(counts, en)).toBe('+3 ¶ −1 ¶ ~2 ¶')
    expect(countsLabel(counts, en)).toBe('3 paragraphs added, 1 removed, 2 changed')
    expect(countsText({ ...counts, changed: 0 }, en)).toBe('+3 ¶ −1 ¶')
    expect(countsLabel(counts, zh)).toBe('新增 3 个段落，删除 1 个，修改 2 个')
  })

  test('cells read as one number; slides and notes in the singular when there is one', () => {
    expect(countsText({ unit: 'cell', added: 0, removed: 0, changed: 12 }, en)).toBe('12 cells')
    expect(countsLabel({ unit: 'cell', added: 0, removed: 0, changed: 1 }, en)).toBe('1 cell changed')
    expect(countsText({ unit: 'slide', added: 1, removed: 0, changed: 2 }, en)).toBe('+1 slide ~2 slides')
    expect(countsText({ unit: 'annotation', added: 2, removed: 0, changed: 0 }, en)).toBe('+2 notes')
    expect(countsLabel({ unit: 'annotation', added: 1, removed: 0, changed: 0 }, en)).toBe('1 annotation added')
  })

  test('nothing counted still says so in numbers', () => {
    expect(countsText({ unit: 'slide', added: 0, removed: 0, changed: 0 }, en)).toBe('~0 slides')
    expect(countsLabel({ unit: 'slide', added: 0, removed: 0, changed: 0 }, en)).toBe('0 slides changed')
  })
})
