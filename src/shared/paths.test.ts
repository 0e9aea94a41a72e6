import { describe, expect, test } from 'vitest'
import { checkRelPath, copyName, joinRelPath, parentPath } from './paths'

describe('root-relative paths', () => {
  test('the root is the empty path and nested paths split on "/"', () => {
    expect(checkRelPath('')).toEqual({ kind: 'ok', path: '', segments: [] })
    expect(checkRelPath('src/a b/ü.ts')).toEqual({ kind: 'ok', path: 'src/a b/ü.ts', segments: ['src', 'a b', 'ü.ts'] })
  })

  test.each([
    ['..', 'dot-segment'],
    ['a/../../etc', 'dot-segment'],
    ['./a', 'dot-segment'],
    ['/etc/passwd', 'absolute'],
    ['C:/Windows', 'absolute'],
    ['a\\..\\b', 'backslash'],
  ])('"%s" is refused as an escape (%s)', (path, reason) => {
    expect(checkRelPath(path)).toEqual({ kind: 'escape', reason })
  })

  test.each([
    ['a//b', 'empty-segment'],
    ['a/', 'empty-segment'],
    ['a\0b', 'nul'],
    ['x'.repeat(5000), 'too-long'],
  ])('"%s" is malformed (%s)', (path, reason) => {
    expect(checkRelPath(path)).toEqual({ kind: 'malformed', reason })
  })

  test('join and parent are inverse around the root', () => {
    expect(joinRelPath('', 'a')).toBe('a')
    expect(joinRelPath('a', 'b')).toBe('a/b')
    expect(parentPath('a/b')).toBe('a')
    expect(parentPath('a')).toBe('')
  })
})

test('a copy is named "(copy)", then "(copy N)", before the extension', () => {
  expect(copyName('notes.md', 1)).toBe('notes (copy).md')
  expect(copyName('notes.md', 3)).toBe('notes (copy 3).md')
  expect(copyName('Makefile', 1)).toBe('Makefile (copy)')
  expect(copyName('.env', 2)).toBe('.env (copy 2)')
})
