import { expect, test } from 'vitest'
import { pastedCopyPath } from './file-clipboard'

test('a pasted copy keeps its name elsewhere, then takes "(copy)", "(copy 2)"… before the extension', () => {
  expect(pastedCopyPath('docs/a.md', 'src', 0)).toBe('src/a.md')
  expect(pastedCopyPath('docs/a.md', 'docs', 1)).toBe('docs/a (copy).md')
  expect(pastedCopyPath('docs/a.md', '', 2)).toBe('a (copy 2).md')
  expect(pastedCopyPath('Makefile', '', 1)).toBe('Makefile (copy)')
  expect(pastedCopyPath('.env', 'cfg', 1)).toBe('cfg/.env (copy)')
  expect(pastedCopyPath('a.tar.gz', '', 1)).toBe('a.tar (copy).gz')
})
