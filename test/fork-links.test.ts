import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { startCore } from './support/core'
import { add, historyHarness, okResult } from './support/history'
import { tempDir } from './support/temp'

/*
 * Issue 23 review: "Fork to new task" with files checks out the repository's HEAD into a new
 * worktree and then copies the parent's uncommitted files over it. A hostile repository whose HEAD
 * holds a link where the working tree holds a real folder (an archive, or a checkout the person
 * changed) must not turn that copy into a write or a delete outside the new worktree.
 */

function repoWithLinkInHead(outside: string) {
  const root = realpathSync(tempDir('retrace-fork-links-'))
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', root, '-c', 'core.hooksPath=/dev/null', ...args], {
      stdio: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(root, 'a.txt'), 'v0\n')
  // Committed as links: a folder link leading out, and a link a later path goes through.
  symlinkSync(outside, join(root, 'docs'))
  symlinkSync(outside, join(root, 'gone'))
  writeFileSync(join(root, 'victim-name.txt'), 'x\n')
  git('add', '-A')
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'links')
  // The working tree the person has: real folders where HEAD has links, with files in them.
  rmSync(join(root, 'docs'))
  mkdirSync(join(root, 'docs'))
  writeFileSync(join(root, 'docs', 'authorized_keys'), 'ssh-ed25519 ATTACKER\n')
  rmSync(join(root, 'gone'))
  mkdirSync(join(root, 'gone'))
  writeFileSync(join(root, 'gone', 'keep.txt'), 'mine\n')
  return root
}

describe('fork with files never follows a link of the checked-out HEAD', () => {
  test('a folder that is a link in HEAD and a real folder in the working tree: the files land in the new worktree, nothing outside is written or removed', async () => {
    const outside = realpathSync(tempDir('retrace-fork-outside-'))
    writeFileSync(join(outside, 'authorized_keys'), 'ssh-ed25519 PERSON\n')
    writeFileSync(join(outside, 'keep.txt'), "the person's own\n")
    const root = repoWithLinkInHead(outside)
    const core = startCore()
    const h = await historyHarness(core, root)
    const t1 = await h.turn(add('gone/made.txt', 'by the turn'), 'one')

    const forked = okResult<{ worktree: { path: string } }>(
      await h.session('session.fork', { node_id: t1, with_files: true }),
    )
    const dir = forked.worktree.path
    // Outside: byte-identical, nothing added.
    expect(readFileSync(join(outside, 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 PERSON\n')
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe("the person's own\n")
    expect(existsSync(join(outside, 'made.txt'))).toBe(false)
    // The new worktree mirrors the parent's working tree: real folders with the parent's files.
    expect(lstatSync(join(dir, 'docs')).isDirectory()).toBe(true)
    expect(readFileSync(join(dir, 'docs', 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 ATTACKER\n')
    expect(lstatSync(join(dir, 'gone')).isDirectory()).toBe(true)
    expect(readFileSync(join(dir, 'gone', 'keep.txt'), 'utf8')).toBe('mine\n')
    expect(readFileSync(join(dir, 'gone', 'made.txt'), 'utf8')).toBe('by the turn\n')
  })

  test('a link the parent changed is copied as a link, not followed', async () => {
    const outside = realpathSync(tempDir('retrace-fork-outside-'))
    const root = realpathSync(tempDir('retrace-fork-links-'))
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    git('init', '-q', '-b', 'main')
    writeFileSync(join(root, 'a.txt'), 'v0\n')
    symlinkSync('a.txt', join(root, 'current'))
    git('add', '-A')
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'link')
    rmSync(join(root, 'current'))
    symlinkSync(join(outside, 'target'), join(root, 'current'))
    const core = startCore()
    const h = await historyHarness(core, root)
    const t1 = await h.turn(add('b.txt', 'b'), 'one')
    const forked = okResult<{ worktree: { path: string } }>(
      await h.session('session.fork', { node_id: t1, with_files: true }),
    )
    expect(readlinkSync(join(forked.worktree.path, 'current'))).toBe(join(outside, 'target'))
    expect(existsSync(join(outside, 'target'))).toBe(false)
  })
})
