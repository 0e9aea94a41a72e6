import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { tempDir } from './support/temp'

const CHILD = join(__dirname, 'support', 'crash-patch-child.mts')

test('a 1 500-file patch commits as one transaction even with only 256 file descriptors', () => {
  const root = tempDir()
  const dataDir = tempDir()
  mkdirSync(join(root, 'src'))
  const count = 1500
  for (let i = 0; i < count; i++) writeFileSync(join(root, 'src', `f${i}.txt`), `${i}\n`)
  const patch = [
    '*** Begin Patch',
    ...Array.from({ length: count }, (_, i) => [`*** Update File: src/f${i}.txt`, `-${i}`, `+${i}+`]).flat(),
    '*** End Patch',
  ].join('\n')
  const patchFile = join(dataDir, '..', `${root.split('/').pop()}.patch`)
  writeFileSync(patchFile, patch)
  const child = spawnSync(
    'bash',
    [
      '-c',
      'ulimit -n 256 && exec "$0" --import tsx "$1" "$2" "$3" "$(cat "$4")"',
      process.execPath,
      CHILD,
      dataDir,
      root,
      patchFile,
    ],
    {
      encoding: 'utf8',
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  )
  expect(child.status, child.stderr).toBe(0)
  expect(child.stdout.trim()).toBe('"ok"')
  expect(readFileSync(join(root, 'src', 'f1499.txt'), 'utf8')).toBe('1499+\n')
}, 120_000)
