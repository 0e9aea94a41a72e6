import { expect, test } from 'vitest'
import { layoutHunks, type DiffLine } from './diff-model'

const line = (kind: DiffLine['kind'], text: string, old_line: number | null, new_line: number | null): DiffLine => ({
  kind,
  text,
  old_line,
  new_line,
})

test('side by side pairs each deleted line with the line that replaced it and marks the changed words', () => {
  const { hunks, changes } = layoutHunks([
    {
      old_start: 1,
      new_start: 1,
      continued: false,
      lines: [
        line('context', 'a', 1, 1),
        line('del', 'const greeting = "hello"', 2, null),
        line('add', 'const greeting = "planet"', null, 2),
        line('add', 'extra()', null, 3),
        line('context', 'b', 3, 4),
        line('del', 'gone', 4, null),
      ],
    },
  ])
  expect(changes).toBe(2)
  const split = hunks[0]?.split ?? []
  expect(split.map((row) => [row.left?.text ?? null, row.right?.text ?? null])).toEqual([
    ['a', 'a'],
    ['const greeting = "hello"', 'const greeting = "planet"'],
    [null, 'extra()'],
    ['b', 'b'],
    ['gone', null],
  ])
  expect(split[1]?.changeStart).toBe(0)
  expect(split[4]?.changeStart).toBe(1)
  const changedLeft = split[1]?.left?.segments?.filter((s) => s.changed).map((s) => s.text)
  const changedRight = split[1]?.right?.segments?.filter((s) => s.changed).map((s) => s.text)
  expect(changedLeft).toEqual(['hello'])
  expect(changedRight).toEqual(['planet'])
  // A line with no counterpart is shown whole.
  expect(split[2]?.right?.segments).toBeNull()
})

test('lines that share almost nothing are not split into words', () => {
  const { hunks } = layoutHunks([
    {
      old_start: 1,
      new_start: 1,
      continued: false,
      lines: [line('del', 'completely different', 1, null), line('add', 'xyz 123 qq', null, 1)],
    },
  ])
  expect(hunks[0]?.unified.map((l) => l.segments)).toEqual([null, null])
  expect(hunks[0]?.unified.map((l) => l.changeStart)).toEqual([0, null])
})
