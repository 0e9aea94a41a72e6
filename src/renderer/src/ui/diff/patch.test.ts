import { describe, expect, test } from 'vitest'
import { parsePatch } from './patch'

describe('an approval patch read into hunks', () => {
  test('hunk counts decide where a hunk ends, so "--" content is still a removal', () => {
    const patch = [
      '--- a/x.md',
      '+++ b/x.md',
      '@@ -1,2 +1,2 @@',
      ' keep',
      '--- a horizontal rule',
      '+new',
      '--- a/y.md',
      '+++ b/y.md',
      '@@ -0,0 +1 @@',
      '+again',
      '',
    ].join('\n')
    const files = parsePatch(patch)
    expect(files.map((f) => f.header)).toEqual([
      ['--- a/x.md', '+++ b/x.md'],
      ['--- a/y.md', '+++ b/y.md'],
    ])
    expect(files[0]?.hunks[0]?.lines).toEqual([
      { kind: 'context', text: 'keep', old_line: 1, new_line: 1 },
      { kind: 'del', text: '-- a horizontal rule', old_line: 2, new_line: null },
      { kind: 'add', text: 'new', old_line: null, new_line: 2 },
    ])
    expect(files[1]?.hunks[0]?.lines).toEqual([{ kind: 'add', text: 'again', old_line: null, new_line: 1 }])
  })

  test('notes between files, a binary file and a patch cut mid-hunk are shown, never dropped', () => {
    const patch = [
      '--- a/logo.png',
      '+++ b/logo.png',
      'Binary file: 10 → 12 bytes',
      '--- a/long.txt',
      '+++ b/long.txt',
      '@@ -1,5 +1,5 @@',
      '-one',
      '+ONE',
      ' two',
      '',
      '… diff cut at 200000 characters',
      '',
    ].join('\n')
    const files = parsePatch(patch)
    expect(files).toHaveLength(2)
    expect(files[0]).toEqual({
      header: ['--- a/logo.png', '+++ b/logo.png', 'Binary file: 10 → 12 bytes'],
      hunks: [],
      notes: [],
    })
    expect(files[1]?.hunks[0]?.lines.map((l) => l.kind)).toEqual(['del', 'add', 'context', 'context'])
    expect(files[1]?.notes).toEqual(['… diff cut at 200000 characters'])
  })
})
