import { execFileSync } from 'node:child_process'
import { linkSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { digestOf } from '../src/main/core/store'
import { openProject, startCore } from './support/core'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'
import { sendUntyped } from './support/protocol'

const rev = (s: string | Buffer) => digestOf(Buffer.isBuffer(s) ? s : Buffer.from(s))

/** A project with every awkward thing a refusal must leave exactly as it was. */
async function hostileProject() {
  const root = tempDir()
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  writeFileSync(join(root, 'plain.txt'), 'plain')
  writeFileSync(join(root, 'crlf.txt'), 'a\r\nb\r\n')
  writeFileSync(join(root, 'empty.txt'), '')
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out.txt'))
  symlinkSync(join(root, 'plain.txt'), join(root, 'link-in.txt'))
  symlinkSync(outside, join(root, 'dir-link'))
  writeFileSync(join(root, 'hard-a.txt'), 'shared')
  linkSync(join(root, 'hard-a.txt'), join(root, 'hard-b.txt'))
  execFileSync('mkfifo', [join(root, 'fifo')])
  mkdirSync(join(root, 'folder'))
  writeFileSync(join(root, 'folder', 'inside.txt'), 'in')
  const big = join(root, 'big.bin')
  writeFileSync(big, '')
  truncateSync(big, 64 * 1024 * 1024 + 1)
  const core = startCore()
  const project = await openProject(core, root)
  const mutate = (action: string, payload: unknown) =>
    sendUntyped(core, action, payload, { owner: { project_id: project.projectId } })
  return { root, outside, project, mutate }
}

describe('bad input to trusted mutations: a precise code and zero writes', () => {
  const cases: Array<[string, string, (p: Awaited<ReturnType<typeof hostileProject>>) => unknown, string, string?]> = [
    [
      '".." escape',
      'files.write',
      () => ({ path: '../escape.txt', content: 'x', expected_revision: null }),
      'PERMISSION_DENIED',
      'dot-segment',
    ],
    [
      'absolute path',
      'files.write',
      () => ({ path: '/tmp/abs.txt', content: 'x', expected_revision: null }),
      'PERMISSION_DENIED',
      'absolute',
    ],
    [
      'symlink leaf (out)',
      'files.write',
      () => ({ path: 'link-out.txt', content: 'x', expected_revision: rev('secret') }),
      'PERMISSION_DENIED',
      'symlink-leaf',
    ],
    [
      'symlink leaf (in)',
      'files.write',
      () => ({ path: 'link-in.txt', content: 'x', expected_revision: rev('plain') }),
      'PERMISSION_DENIED',
      'symlink-leaf',
    ],
    [
      'symlink parent',
      'files.write',
      () => ({ path: 'dir-link/new.txt', content: 'x', expected_revision: null }),
      'PERMISSION_DENIED',
      'symlink-parent',
    ],
    [
      'hard link',
      'files.write',
      () => ({ path: 'hard-a.txt', content: 'x', expected_revision: rev('shared') }),
      'PERMISSION_DENIED',
      'hard-link',
    ],
    [
      'FIFO',
      'files.write',
      () => ({ path: 'fifo', content: 'x', expected_revision: null }),
      'PERMISSION_DENIED',
      'not-regular',
    ],
    [
      'directory as file',
      'files.write',
      () => ({ path: 'folder', content: 'x', expected_revision: null }),
      'INVALID_REQUEST',
      'is-directory',
    ],
    [
      'file as parent',
      'files.write',
      () => ({ path: 'plain.txt/child', content: 'x', expected_revision: null }),
      'INVALID_REQUEST',
      'parent-not-directory',
    ],
    [
      'lone surrogate in name',
      'files.write',
      () => ({ path: 'bad-\ud800.txt', content: 'x', expected_revision: null }),
      'INVALID_REQUEST',
      'not-unicode',
    ],
    [
      '.git internals',
      'files.write',
      () => ({ path: '.git/config', content: 'x', expected_revision: null }),
      'PERMISSION_DENIED',
      'forbidden-folder',
    ],
    [
      '64 MiB + 1 target',
      'files.write',
      () => ({ path: 'big.bin', content: 'x', expected_revision: null }),
      'TOO_LARGE',
    ],
    [
      'content and base64 both',
      'files.write',
      () => ({ path: 'n.txt', content: 'x', content_base64: 'eA==', expected_revision: null }),
      'INVALID_REQUEST',
      'content-xor-base64',
    ],
    [
      'neither content nor base64',
      'files.write',
      () => ({ path: 'n.txt', expected_revision: null }),
      'INVALID_REQUEST',
      'content-xor-base64',
    ],
    [
      'invalid base64',
      'files.write',
      () => ({ path: 'n.txt', content_base64: '***', expected_revision: null }),
      'INVALID_REQUEST',
      'bad-base64',
    ],
    [
      'stale CRLF baseline',
      'files.write',
      () => ({ path: 'crlf.txt', content: 'x', expected_revision: rev('a\nb\n') }),
      'CONFLICT',
      'baseline-mismatch',
    ],
    [
      '"must not exist" on an existing empty file',
      'files.write',
      () => ({ path: 'empty.txt', content: 'x', expected_revision: null }),
      'CONFLICT',
    ],
    ['delete a missing file', 'files.delete', () => ({ path: 'nope.txt', expected_revision: rev('x') }), 'NOT_FOUND'],
    [
      'delete a non-empty folder',
      'files.delete',
      () => ({ path: 'folder', expected_revision: null }),
      'UNSUPPORTED',
      'directory-not-empty',
    ],
    [
      'rename onto itself',
      'files.rename',
      () => ({ from: 'plain.txt', to: 'plain.txt', expected_revision: rev('plain') }),
      'INVALID_REQUEST',
    ],
    [
      'rename a missing source',
      'files.rename',
      () => ({ from: 'nope.txt', to: 'b.txt', expected_revision: rev('x') }),
      'NOT_FOUND',
    ],
    [
      'rename out of the project',
      'files.rename',
      () => ({ from: 'plain.txt', to: '../plain.txt', expected_revision: rev('plain') }),
      'PERMISSION_DENIED',
    ],
    [
      'copy a symlink',
      'files.copy',
      () => ({ from: 'link-out.txt', to: 'copy.txt' }),
      'PERMISSION_DENIED',
      'symlink-leaf',
    ],
    [
      'create in a symlinked folder',
      'files.create',
      () => ({ path: 'dir-link/x', kind: 'file' }),
      'PERMISSION_DENIED',
      'symlink-parent',
    ],
    ['create the project root', 'files.create', () => ({ path: '', kind: 'dir' }), 'INVALID_REQUEST'],
  ]

  test.each(cases.map(([name, action, payload, code, reason]) => ({ name, action, payload, code, reason })))(
    '$name ($action) → $code',
    async ({ action, payload, code, reason }) => {
      const p = await hostileProject()
      const before = [treeFingerprint(p.root), treeFingerprint(p.outside)]
      const response = await p.mutate(action, payload(p))
      expect(response.status).toBe('error')
      if (response.status !== 'error') return
      expect(response.error.code).toBe(code)
      if (reason) expect(response.error.details?.reason).toBe(reason)
      expect([treeFingerprint(p.root), treeFingerprint(p.outside)]).toEqual(before)
      const receipts = await p.project.call('journal.transactions', {})
      expect(receipts).toMatchObject({ result: { transactions: [], revision: 0 } })
    },
  )

  test('zero-byte and CRLF content are published byte for byte', async () => {
    const p = await hostileProject()
    expect(
      await p.mutate('files.write', { path: 'crlf.txt', content: 'x\r\ny\r\n', expected_revision: rev('a\r\nb\r\n') }),
    ).toMatchObject({ status: 'ok' })
    expect(
      await p.mutate('files.write', { path: 'plain.txt', content: '', expected_revision: rev('plain') }),
    ).toMatchObject({ status: 'ok' })
    const { readFileSync } = await import('node:fs')
    expect(readFileSync(join(p.root, 'crlf.txt')).equals(Buffer.from('x\r\ny\r\n'))).toBe(true)
    expect(readFileSync(join(p.root, 'plain.txt')).length).toBe(0)
  })
})
