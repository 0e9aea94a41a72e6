import { expect, test } from 'vitest'
import { matchFiles } from './file-index'

test('quick open ranks file-name matches above path matches, and needs the letters in order', () => {
  const paths = [
    'src/main/core/index.ts',
    'docs/guide.md',
    'src/renderer/src/main.tsx',
    'test/main.test.ts',
    'README.md',
  ]
  const main = matchFiles(paths, 'main')
  // Both files named main… come before the file that is only in a folder named main.
  expect(main.slice(0, 2).sort()).toEqual(['src/renderer/src/main.tsx', 'test/main.test.ts'])
  expect(main[2]).toBe('src/main/core/index.ts')
  expect(matchFiles(paths, 'gd')).toEqual(['docs/guide.md'])
  expect(matchFiles(paths, 'zz')).toEqual([])
  expect(matchFiles(paths, '')).toHaveLength(paths.length)
})
