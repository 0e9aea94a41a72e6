import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { hostileRepo, markerProgram } from '../../../../test/support/hostile-repo'
import { tempDir } from '../../../../test/support/temp'
import { diffRaw } from './diff-raw'
import { listTrackedFiles, listUntrackedFiles } from './ls-files'
import { git, runGit } from './runner'
import { status } from './status'
import { addWorktree } from './worktree'

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

test('inherited variables that would redirect git reach no run, with or without an explicit git dir', async () => {
  const root = realpathSync(tempDir('retrace-runner-'))
  execFileSync('git', ['init', '-q', root])
  process.env.GIT_INDEX_FILE = join(root, 'elsewhere-index')
  process.env.GIT_DIR = join(root, 'elsewhere')
  try {
    const shadow = await git(root, ['rev-parse', '--git-path', 'index'], 'rev-parse', {
      gitDir: join(root, '.git'),
      workTree: root,
    })
    expect(shadow.kind === 'ok' && shadow.result.toString('utf8').trim()).toBe(join(root, '.git', 'index'))
    const plain = await git(root, ['rev-parse', '--path-format=absolute', '--git-path', 'index'], 'rev-parse')
    expect(plain.kind === 'ok' && plain.result.toString('utf8').trim()).toBe(join(root, '.git', 'index'))
  } finally {
    delete process.env.GIT_INDEX_FILE
    delete process.env.GIT_DIR
  }
})

describe('nothing but git runs (issue 23 items 1 and 19)', () => {
  test('the verbs Retrace runs on a hostile repository run none of the programs its configuration names', async () => {
    const repo = hostileRepo()
    const changed = await status(repo.root)
    expect(changed.kind === 'ok' && changed.result.entries.map((e) => [e.path, e.staged, e.unstaged])).toEqual([
      ['b.txt', 'M', '.'],
      ['notes.md', '.', 'M'],
      ['new.txt', '.', '?'],
    ])
    expect((await diffRaw(repo.root, 'HEAD')).kind).toBe('ok')
    expect((await listTrackedFiles(repo.root)).kind).toBe('ok')
    expect((await listUntrackedFiles(repo.root)).kind).toBe('ok')
    const attributes = await runGit(repo.root, ['check-attr', '-a', '--', 'a.txt'], 'check-attr')
    expect(attributes.kind).toBe('ok')
    // A filter would run on content git reads from the work tree.
    for (const path of ['a.txt', 'notes.md', 'x.inc', 'y.cond', 'z.weird']) {
      const hashed = await runGit(repo.root, ['hash-object', '--path', path, '--stdin'], 'hash-object', {
        stdin: 'x\n',
      })
      expect(hashed.kind).toBe('ok')
    }
    // A porcelain diff that forgot --no-textconv fails instead of running the driver.
    const diff = await runGit(repo.root, ['diff', 'HEAD~1', 'HEAD'], 'diff')
    expect(diff.kind).toBe('error')
    expect(repo.ran()).toEqual([])
  })

  test('a .git file pointing at another hostile repository: its programs do not run either', async () => {
    const repo = hostileRepo({ gitfile: true })
    expect((await status(repo.root)).kind).toBe('ok')
    expect((await diffRaw(repo.root, 'HEAD')).kind).toBe('ok')
    expect((await listTrackedFiles(repo.root)).kind).toBe('ok')
    expect(repo.ran()).toEqual([])
  })

  test('a worktree made from a hostile repository runs neither its hooks nor its smudge filter', async () => {
    const repo = hostileRepo()
    const dir = join(realpathSync(tempDir('retrace-runner-')), 'fork')
    expect(await addWorktree(repo.root, dir)).toEqual({ kind: 'ok', result: undefined })
    // The bytes of the commit, unfiltered.
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('two\n')
    expect(repo.ran()).toEqual([])
  })

  test('a driver added after the first run, or one a conditional include turns on, is neutralised too', async () => {
    const repo = hostileRepo()
    expect((await status(repo.root)).kind).toBe('ok')
    // Config re-read: a new file included from an included file, defining a new filter.
    const late = markerProgram(realpathSync(tempDir('retrace-runner-')), repo.markers, 'filter-late', 'cat')
    appendFileSync(join(repo.root, '.git', 'included.cfg'), '[include]\n\tpath = late.cfg\n')
    writeFileSync(join(repo.root, '.git', 'late.cfg'), `[filter "late"]\n\tclean = ${late}\n`)
    appendFileSync(join(repo.root, '.gitattributes'), '*.late filter=late\n')
    const hashed = await runGit(repo.root, ['hash-object', '--path', 'q.late', '--stdin'], 'hash-object', {
      stdin: 'x\n',
    })
    expect(hashed.kind).toBe('ok')
    // The branch the conditional include waits for, checked out behind Retrace's back.
    execFileSync('git', ['-C', repo.root, 'symbolic-ref', 'HEAD', 'refs/heads/other'])
    const onOther = await runGit(repo.root, ['hash-object', '--path', 'y.cond', '--stdin'], 'hash-object', {
      stdin: 'x\n',
    })
    expect(onOther.kind).toBe('ok')
    expect(repo.ran().filter((name) => name.startsWith('filter-'))).toEqual([])
  })

  test('a caller cannot turn a neutralised setting back on', async () => {
    const repo = hostileRepo()
    const hooks = join(repo.root, '.git', 'hooks')
    const read = await runGit(repo.root, ['config', '--get', 'core.hooksPath'], 'config', {
      config: { 'core.hooksPath': hooks, 'core.fsmonitor': join(repo.root, 'x') },
    })
    expect(read.kind === 'ok' && read.result.stdout.toString('utf8').trim()).toBe('/dev/null')
  })

  test('git and what it starts see only the variables git needs: no key, token or inherited GIT_ variable', async () => {
    const dir = realpathSync(tempDir('retrace-runner-'))
    // `git <name>` runs `git-<name>` from PATH: a child of git that writes the environment it got.
    const bin = join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(join(bin, 'git-retrace-env-probe'), '#!/bin/sh\nenv > "$1"\n')
    chmodSync(join(bin, 'git-retrace-env-probe'), 0o755)
    const secrets = {
      OPENAI_API_KEY: 'sk-openai',
      GITHUB_TOKEN: 'ghp-token',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      RETRACE_API_KEY: 'retrace-key',
      GIT_SSH_COMMAND: 'touch /nowhere',
      GIT_EXTERNAL_DIFF: 'touch /nowhere',
      GIT_CONFIG_PARAMETERS: "'core.hookspath'='/nowhere'",
    }
    for (const [name, value] of Object.entries(secrets)) vi.stubEnv(name, value)
    vi.stubEnv('PATH', `${bin}:${process.env.PATH ?? ''}`)
    try {
      const out = await runGit(dir, ['retrace-env-probe', join(dir, 'env.txt')], 'probe', {
        env: { GIT_LITERAL_PATHSPECS: '1' },
      })
      expect(out.kind).toBe('ok')
    } finally {
      vi.unstubAllEnvs()
    }
    const seen = new Map(
      readFileSync(join(dir, 'env.txt'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
    )
    for (const name of Object.keys(secrets)) expect(seen.has(name), name).toBe(false)
    for (const value of Object.values(secrets)) expect([...seen.values()]).not.toContain(value)
    expect(seen.get('GIT_LITERAL_PATHSPECS')).toBe('1')
    expect(seen.get('GIT_TERMINAL_PROMPT')).toBe('0')
    // Besides what git adds for its children (GIT_EXEC_PATH, GIT_PREFIX…), only what was passed.
    const allowed = /^(PATH|HOME|XDG_CONFIG_HOME|TMPDIR|LC_ALL|PWD|SHLVL|_|OLDPWD|GIT_[A-Z_0-9]+)$/
    expect([...seen.keys()].filter((name) => !allowed.test(name))).toEqual([])
  })
})

test("comparing with the worktree never rewrites the person's index, and touched-but-unchanged files are not changes", async () => {
  const root = realpathSync(tempDir('retrace-runner-'))
  const run = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  run('init', '-q')
  for (const name of ['a', 'b', 'c']) writeFileSync(join(root, name), `${name}\n`)
  run('add', '-A')
  run('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'one')
  writeFileSync(join(root, 'c'), 'changed\n')
  const later = new Date(Date.now() + 5_000)
  for (const name of ['a', 'b']) utimesSync(join(root, name), later, later)
  const index = () => {
    const info = statSync(join(root, '.git', 'index'), { bigint: true })
    return `${info.ino}:${info.mtimeNs}:${info.ctimeNs}`
  }
  const before = index()
  const changes = await diffRaw(root, 'HEAD')
  expect(changes.kind === 'ok' && changes.result.map((c) => c.path)).toEqual(['c'])
  expect(index()).toBe(before)
})
