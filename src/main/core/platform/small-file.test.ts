import { execFileSync } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { readSmallRegularFile } from './small-file'

test('reads a small regular file and nothing else: no FIFO, device, folder, oversized file or refused link', () => {
  const dir = tempDir('retrace-small-file-')
  writeFileSync(join(dir, 'ignore'), '*.log\n')
  writeFileSync(join(dir, 'big'), 'x'.repeat(2048))
  symlinkSync(join(dir, 'ignore'), join(dir, 'link'))
  execFileSync('mkfifo', [join(dir, 'fifo')])
  const follow = { maxBytes: 1024, followLinks: true }
  expect(readSmallRegularFile(join(dir, 'ignore'), follow)).toBe('*.log\n')
  expect(readSmallRegularFile(join(dir, 'link'), follow)).toBe('*.log\n')
  expect(readSmallRegularFile(join(dir, 'link'), { ...follow, followLinks: false })).toBeUndefined()
  expect(readSmallRegularFile(join(dir, 'big'), follow)).toBeUndefined()
  expect(readSmallRegularFile(join(dir, 'absent'), follow)).toBeUndefined()
  expect(readSmallRegularFile(dir, follow)).toBeUndefined()
  // Without the type check these would block for good (no writer) or never end (/dev/zero).
  expect(readSmallRegularFile(join(dir, 'fifo'), follow)).toBeUndefined()
  expect(readSmallRegularFile('/dev/zero', follow)).toBeUndefined()
})
