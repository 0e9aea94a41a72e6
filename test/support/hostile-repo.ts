import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './temp'

/**
 * Issue 23 item 1: a repository whose configuration names programs. Each program only creates a
 * marker file named after itself in `markers`, so a test asserts that the folder stays empty.
 */
export interface HostileRepo {
  /** The project folder (its `.git` a folder, or a gitfile pointing at another hostile repository). */
  readonly root: string
  readonly markers: string
  /** The marker files present now, sorted. */
  ran(): string[]
  /** Makes every tracked file's stat data stale, so git has to read (and filter) its content. */
  touchTracked(): void
}

/** Hooks git runs around the operations Retrace uses (checkout for a forked worktree, index writes…). */
const HOOKS = [
  'post-checkout',
  'post-index-change',
  'reference-transaction',
  'pre-auto-gc',
  'pre-commit',
  'post-commit',
  'post-rewrite',
  'fsmonitor-watchman',
]

/** An executable shell script that creates `markers/<name>` and then does what `tail` says. */
export function markerProgram(dir: string, markers: string, name: string, tail = 'exit 0'): string {
  const file = join(dir, name)
  writeFileSync(file, `#!/bin/sh\n: > '${join(markers, name)}'\n${tail}\n`)
  chmodSync(file, 0o755)
  return file
}

function run(cwd: string, ...args: string[]): void {
  // The fixture's own git runs before any hostile setting exists, with no global config or hooks.
  execFileSync('git', ['-C', cwd, '-c', 'core.hooksPath=/dev/null', ...args], {
    stdio: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  })
}

/**
 * A repository on branch `feature` (one commit past `main`), with a staged and an unstaged change
 * and an untracked file — every sub-scope of Review's git workspace has something to show — and
 * then, with every commit made, a configuration whose programs mark: `core.fsmonitor`, filters
 * (clean/smudge, and a long-running `process` one), textconv and diff drivers, `diff.external`,
 * a merge driver, pager, editor, askpass, credential helper, ssh command, gpg program, hooks in
 * `.git/hooks`, and an included file (and a conditional one for a branch not checked out) that
 * define more filters.
 */
export function hostileRepo(options: { gitfile?: boolean } = {}): HostileRepo {
  const base = realpathSync(tempDir('retrace-hostile-'))
  const markers = join(base, 'markers')
  const bin = join(base, 'bin')
  mkdirSync(markers)
  mkdirSync(bin)
  const repo = join(base, options.gitfile ? 'elsewhere' : 'project')
  mkdirSync(repo)
  run(repo, 'init', '-q', '-b', 'main')
  writeFileSync(
    join(repo, '.gitattributes'),
    [
      '*.txt filter=evil diff=evil merge=evil',
      '*.md filter=proc diff=evil',
      '*.inc filter=included',
      '*.cond filter=conditional',
      '*.weird filter=a=b',
      '',
    ].join('\n'),
  )
  writeFileSync(join(repo, 'a.txt'), 'one\n')
  writeFileSync(join(repo, 'b.txt'), 'bee\n')
  writeFileSync(join(repo, 'notes.md'), '# notes\n')
  writeFileSync(join(repo, 'x.inc'), 'included\n')
  writeFileSync(join(repo, 'y.cond'), 'conditional\n')
  writeFileSync(join(repo, 'z.weird'), 'weird\n')
  const commit = (message: string) =>
    run(repo, '-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', message)
  run(repo, 'add', '-A')
  commit('initial')
  run(repo, 'checkout', '-q', '-b', 'feature')
  writeFileSync(join(repo, 'a.txt'), 'two\n')
  run(repo, 'add', 'a.txt')
  commit('on feature')
  writeFileSync(join(repo, 'b.txt'), 'bee staged\n')
  run(repo, 'add', 'b.txt')
  writeFileSync(join(repo, 'notes.md'), '# notes, unstaged\n')
  writeFileSync(join(repo, 'new.txt'), 'untracked\n')

  const program = (name: string, tail?: string) => markerProgram(bin, markers, name, tail)
  const gitDir = join(repo, '.git')
  // A long-running filter that marks, then fails its handshake (git would otherwise wait on it).
  const processFilter = program('filter-process', 'exit 1')
  const config = [
    '[core]',
    `\tfsmonitor = ${program('fsmonitor', 'exit 1')}`,
    `\tpager = ${program('pager', 'cat')}`,
    `\teditor = ${program('editor')}`,
    `\taskPass = ${program('askpass')}`,
    `\tsshCommand = ${program('ssh-command')}`,
    '[credential]',
    `\thelper = ${program('credential-helper')}`,
    '[gpg]',
    `\tprogram = ${program('gpg')}`,
    '[log]',
    '\tshowSignature = true',
    '[diff]',
    `\texternal = ${program('diff-external', 'exit 0')}`,
    '[filter "evil"]',
    `\tclean = ${program('filter-clean', 'cat')}`,
    `\tsmudge = ${program('filter-smudge', 'cat')}`,
    '\trequired = true',
    '[filter "proc"]',
    `\tprocess = ${processFilter}`,
    '[filter "a=b"]',
    `\tclean = ${program('filter-weird-name', 'cat')}`,
    '[diff "evil"]',
    `\ttextconv = ${program('textconv', 'cat "$1"')}`,
    `\tcommand = ${program('diff-driver')}`,
    '[merge "evil"]',
    `\tdriver = ${program('merge-driver')}`,
    '[include]',
    '\tpath = included.cfg',
    '[includeIf "onbranch:other"]',
    '\tpath = conditional.cfg',
    '',
  ].join('\n')
  appendFileSync(join(gitDir, 'config'), config)
  writeFileSync(join(gitDir, 'included.cfg'), `[filter "included"]\n\tclean = ${program('filter-included', 'cat')}\n`)
  writeFileSync(
    join(gitDir, 'conditional.cfg'),
    `[filter "conditional"]\n\tclean = ${program('filter-conditional', 'cat')}\n`,
  )
  mkdirSync(join(gitDir, 'hooks'), { recursive: true })
  for (const hook of HOOKS) markerProgram(join(gitDir, 'hooks'), markers, `hook-${hook}`)

  let root = repo
  if (options.gitfile) {
    // The project folder holds the same files and a `.git` file that points at the hostile repository.
    root = join(base, 'project')
    mkdirSync(root)
    for (const name of readdirSync(repo)) {
      if (name !== '.git') writeFileSync(join(root, name), readFileSync(join(repo, name)))
    }
    writeFileSync(join(root, '.git'), `gitdir: ${gitDir}\n`)
  }
  const tracked = ['.gitattributes', 'a.txt', 'b.txt', 'notes.md', 'x.inc', 'y.cond', 'z.weird']
  const fixture: HostileRepo = {
    root,
    markers,
    ran: () => readdirSync(markers).sort(),
    touchTracked: () => {
      const later = new Date(Date.now() + 5_000)
      for (const name of tracked) utimesSync(join(root, name), later, later)
    },
  }
  fixture.touchTracked()
  return fixture
}
