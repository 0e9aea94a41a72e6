import { execFileSync } from 'node:child_process'
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { git, runGit } from './runner'

test('exit codes named as answers come back with the code; others stay failures', async () => {
  const dir = realpathSync(tempDir('retrace-runner-'))
  writeFileSync(join(dir, 'a'), 'one\n')
  writeFileSync(join(dir, 'b'), 'two\n')
  const differs = await runGit(dir, ['diff', '--no-index', '--quiet', 'a', 'b'], 'diff', { acceptExitCodes: [1] })
  expect(differs).toMatchObject({ kind: 'ok', result: { exitCode: 1 } })
  const refused = await runGit(dir, ['diff', '--no-index', '--quiet', 'a', 'b'], 'diff')
  expect(refused).toMatchObject({ kind: 'error', error: { details: { reason: 'git-failed', verb: 'diff' } } })
})

test('standard input is written and closed', async () => {
  const dir = realpathSync(tempDir('retrace-runner-'))
  const out = await git(dir, ['hash-object', '--stdin'], 'hash-object', { stdin: 'hi\n' })
  expect(out.kind === 'ok' && out.result.toString('utf8').trim()).toBe('45b983be36b73c0788dc9cbcb76cbb80fc7bb057')
})

test('an explicit git dir ignores inherited variables that would redirect it; without options nothing changes', async () => {
  const root = realpathSync(tempDir('retrace-runner-'))
  execFileSync('git', ['init', '-q', root])
  const other = join(root, 'elsewhere-index')
  process.env.GIT_INDEX_FILE = other
  try {
    const shadow = await git(root, ['rev-parse', '--git-path', 'index'], 'rev-parse', {
      gitDir: join(root, '.git'),
      workTree: root,
    })
    expect(shadow.kind === 'ok' && shadow.result.toString('utf8').trim()).toBe(join(root, '.git', 'index'))
    const plain = await git(root, ['rev-parse', '--git-path', 'index'], 'rev-parse')
    expect(plain.kind === 'ok' && plain.result.toString('utf8').trim()).toBe(other)
  } finally {
    delete process.env.GIT_INDEX_FILE
  }
})
