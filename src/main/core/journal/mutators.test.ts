import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { journalFixture } from '../../../../test/support/journal'
import { tempDir } from '../../../../test/support/temp'
import { treeFingerprint } from '../../../../test/support/tree'
import { digestOf } from '../store'
import { planEdit, planWrite } from './mutators'

const rev = (s: string | Buffer) => digestOf(Buffer.isBuffer(s) ? s : Buffer.from(s))

describe('edit', () => {
  test('replaces a unique old_string, or every occurrence with replace_all', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'a.ts'), 'let a = 1\nlet b = 1\n')
    const unique = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planEdit(f.context, {
        path: 'a.ts',
        old_string: 'a = 1',
        new_string: 'a = 2',
        replace_all: false,
        expected: rev('let a = 1\nlet b = 1\n'),
      }),
    )
    expect(unique).toMatchObject({
      kind: 'ok',
      result: { files: [{ stats: { added: 1, removed: 1, binary: false } }] },
    })
    const all = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planEdit(f.context, {
        path: 'a.ts',
        old_string: 'let',
        new_string: 'const',
        replace_all: true,
        expected: rev('let a = 2\nlet b = 1\n'),
      }),
    )
    expect(all.kind).toBe('ok')
    expect(readFileSync(join(f.root, 'a.ts'), 'utf8')).toBe('const a = 2\nconst b = 1\n')
  })

  test.each([
    ['an ambiguous old_string', 'x', false, 'INVALID_REQUEST', 'old-string-not-unique'],
    ['a missing old_string', 'zzz', false, 'NOT_FOUND', 'old-string-not-found'],
  ])('%s is refused and writes nothing', async (_name, oldString, replaceAll, code, reason) => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'a.txt'), 'x x\n')
    const before = treeFingerprint(f.root)
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planEdit(f.context, {
        path: 'a.txt',
        old_string: oldString,
        new_string: 'y',
        replace_all: replaceAll,
        expected: rev('x x\n'),
      }),
    )
    expect(outcome).toMatchObject({ kind: 'error', error: { code, details: { reason } } })
    expect(treeFingerprint(f.root)).toEqual(before)
  })

  test('a binary file is not edited as text', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'b.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x41]))
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planEdit(f.context, {
        path: 'b.bin',
        old_string: 'A',
        new_string: 'B',
        replace_all: false,
        expected: rev(Buffer.from([0xff, 0xfe, 0x00, 0x41])),
      }),
    )
    expect(outcome).toMatchObject({ kind: 'error', error: { code: 'UNSUPPORTED', details: { reason: 'binary' } } })
  })
})

describe('write from source_path', () => {
  test('publishes a generated file byte for byte, never converted to text', async () => {
    const f = journalFixture()
    const generated = join(tempDir(), 'out.pdf')
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x0d, 0x0a, 0x00, 0xff, 0x80])
    writeFileSync(generated, bytes)
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planWrite(f.context, { path: 'docs/out.pdf', source: { source_path: generated }, expected: null }),
    )
    expect(outcome).toMatchObject({ kind: 'ok', result: { files: [{ operation: 'create', stats: { binary: true } }] } })
    expect(readFileSync(join(f.root, 'docs', 'out.pdf')).equals(bytes)).toBe(true)
  })

  test.each([
    ['a missing source', (dir: string) => join(dir, 'missing.bin'), 'NOT_FOUND'],
    ['a relative source', () => 'relative.bin', 'INVALID_REQUEST'],
    [
      'a folder',
      (dir: string) => {
        mkdirSync(join(dir, 'folder'))
        return join(dir, 'folder')
      },
      'INVALID_REQUEST',
    ],
    [
      'a symlink',
      (dir: string) => {
        writeFileSync(join(dir, 'real'), 'r')
        symlinkSync(join(dir, 'real'), join(dir, 'link'))
        return join(dir, 'link')
      },
      'PERMISSION_DENIED',
    ],
    [
      'a source over 64 MiB',
      (dir: string) => {
        writeFileSync(join(dir, 'big'), '')
        truncateSync(join(dir, 'big'), 64 * 1024 * 1024 + 1)
        return join(dir, 'big')
      },
      'TOO_LARGE',
    ],
  ])('%s is refused before the target is touched', async (_name, makeSource, code) => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'target.bin'), 'keep')
    const before = treeFingerprint(f.root)
    const source = makeSource(tempDir())
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planWrite(f.context, { path: 'target.bin', source: { source_path: source }, expected: rev('keep') }),
    )
    expect(outcome).toMatchObject({ kind: 'error', error: { code } })
    expect(treeFingerprint(f.root)).toEqual(before)
  })

  test('the target itself as source_path is refused', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'self.txt'), 'me')
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planWrite(f.context, {
        path: 'self.txt',
        source: { source_path: join(f.root, 'self.txt') },
        expected: rev('me'),
      }),
    )
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { code: 'INVALID_REQUEST', details: { reason: 'source-is-target' } },
    })
  })
})

describe('approval fingerprints', () => {
  test('a target that changed after approval is refused before publish, with zero writes', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'a.txt'), 'seen at approval')
    const approved = new Map([['a.txt', rev('seen at approval')]])
    writeFileSync(join(f.root, 'a.txt'), 'changed since')
    const before = treeFingerprint(f.root)
    const outcome = await f.journal.mutate(
      f.workspace,
      { kind: 'edit' },
      () =>
        planWrite(f.context, {
          path: 'a.txt',
          source: { content: Buffer.from('new') },
          expected: rev('changed since'),
        }),
      { approved },
    )
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { code: 'CONFLICT', details: { reason: 'changed-since-approval' } },
    })
    expect(treeFingerprint(f.root)).toEqual(before)
    expect(f.journal.receipts({ workspace_id: f.workspace.workspace_id })).toEqual([])
  })

  test('a file over the recovery budget is journaled as unavailable (with a reason), never as absent', async () => {
    const f = journalFixture({ limits: { recoveryBudgetBytes: 1024, statsBudgetBytes: 1024 } })
    writeFileSync(join(f.root, 'big.txt'), 'x'.repeat(2048))
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planWrite(f.context, {
        path: 'big.txt',
        source: { content: Buffer.from('y'.repeat(2048)) },
        expected: rev('x'.repeat(2048)),
      }),
    )
    expect(outcome).toMatchObject({
      kind: 'ok',
      result: {
        files: [
          {
            operation: 'modify',
            before: { kind: 'regular', digest: rev('x'.repeat(2048)), blob_ref: null },
            recoverability: 'unavailable',
            unavailable_reason: 'over-recovery-budget',
            stats: { unknown: true },
            diff_state: 'large',
          },
        ],
      },
    })
  })
})
