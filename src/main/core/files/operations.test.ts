import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { openProject, startCore } from '../../../../test/support/core'
import { tempDir } from '../../../../test/support/temp'
import { treeFingerprint } from '../../../../test/support/tree'
import { digestOf, fingerprintOf } from '../store'
import { send, sendUntyped } from '../../../../test/support/protocol'

async function project(files: Record<string, string> = {}) {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  const dataDir = tempDir()
  const core = startCore({ dataDir })
  const opened = await openProject(core, root)
  const mutate = (action: string, payload: unknown, key: string = randomUUID()) =>
    sendUntyped(core, action, payload, { owner: { project_id: opened.projectId }, key: key })
  return { ...opened, core, dataDir, mutate }
}

const rev = (text: string | Buffer) => digestOf(Buffer.isBuffer(text) ? text : Buffer.from(text))

describe('human file operations', () => {
  test('files.write replaces a file at its expected revision and journals a human receipt', async () => {
    const p = await project({ 'a.txt': 'one\ntwo\n' })
    const response = await p.mutate('files.write', {
      path: 'a.txt',
      content: 'one\n2\nthree\n',
      expected_revision: rev('one\ntwo\n'),
    })
    expect(response).toMatchObject({ status: 'ok', result: { revision: rev('one\n2\nthree\n') } })
    expect(readFileSync(join(p.root, 'a.txt'), 'utf8')).toBe('one\n2\nthree\n')
    const receipts = await p.call('journal.transactions', {})
    expect(receipts).toMatchObject({
      status: 'ok',
      result: {
        revision: 1,
        transactions: [
          {
            kind: 'human',
            status: 'committed',
            workspace_sequence: 1,
            files: [
              {
                path: 'a.txt',
                operation: 'modify',
                before: { kind: 'regular', digest: rev('one\ntwo\n') },
                after: { kind: 'regular', digest: rev('one\n2\nthree\n') },
                stats: { added: 2, removed: 1, binary: false },
                diff_state: 'available',
                recoverability: 'exact',
              },
            ],
          },
        ],
      },
    })
  })

  test('a stale expected revision is CONFLICT and writes nothing', async () => {
    const p = await project({ 'a.txt': 'mine' })
    const before = treeFingerprint(p.root)
    const response = await p.mutate('files.write', { path: 'a.txt', content: 'x', expected_revision: rev('old') })
    expect(response).toMatchObject({
      status: 'error',
      error: { code: 'CONFLICT', details: { actual_revision: rev('mine') } },
    })
    expect(treeFingerprint(p.root)).toEqual(before)
    expect(await p.call('journal.transactions', {})).toMatchObject({ result: { transactions: [], revision: 0 } })
  })

  test('binary content round-trips byte for byte through content_base64', async () => {
    const p = await project()
    const bytes = Buffer.from([0, 255, 13, 10, 128, 0, 1])
    const response = await p.mutate('files.write', {
      path: 'bin/data.bin',
      content_base64: bytes.toString('base64'),
      expected_revision: null,
    })
    expect(response).toMatchObject({ status: 'ok', result: { revision: rev(bytes) } })
    expect(readFileSync(join(p.root, 'bin', 'data.bin')).equals(bytes)).toBe(true)
    const receipts = await p.call('journal.transactions', {})
    expect(receipts).toMatchObject({
      result: { transactions: [{ files: [{ operation: 'create', stats: { binary: true }, diff_state: 'binary' }] }] },
    })
  })

  test('create, rename, copy and delete are each one journaled transaction; the lineage follows a rename', async () => {
    const p = await project()
    expect(await p.mutate('files.create', { path: 'notes/todo.md', kind: 'file', content: '# todo\n' })).toMatchObject({
      status: 'ok',
    })
    expect(await p.mutate('files.create', { path: 'empty', kind: 'dir' })).toMatchObject({ status: 'ok' })
    expect(
      await p.mutate('files.rename', {
        from: 'notes/todo.md',
        to: 'notes/done.md',
        expected_revision: rev('# todo\n'),
      }),
    ).toMatchObject({ status: 'ok' })
    expect(await p.mutate('files.copy', { from: 'notes/done.md', to: 'copy.md' })).toMatchObject({ status: 'ok' })
    expect(await p.mutate('files.delete', { path: 'notes/done.md', expected_revision: rev('# todo\n') })).toMatchObject(
      { status: 'ok' },
    )
    expect(await p.mutate('files.delete', { path: 'empty', expected_revision: null })).toMatchObject({ status: 'ok' })
    expect(existsSync(join(p.root, 'notes', 'done.md'))).toBe(false)
    expect(readFileSync(join(p.root, 'copy.md'), 'utf8')).toBe('# todo\n')
    const listed = await p.call('journal.transactions', {})
    if (listed.status !== 'ok') throw new Error('no receipts')
    const receipts = (
      listed.result as {
        transactions: Array<{
          workspace_sequence: number
          files: Array<{ operation: string; path: string; old_path: string | null; file_lineage_id: string }>
        }>
      }
    ).transactions
    expect(receipts.map((r) => r.workspace_sequence)).toEqual([1, 2, 3, 4, 5, 6])
    const [created, , renamed, copied, deleted] = receipts.map((r) => r.files[0])
    expect(renamed).toMatchObject({ operation: 'rename', path: 'notes/done.md', old_path: 'notes/todo.md' })
    expect(renamed?.file_lineage_id).toBe(created?.file_lineage_id)
    expect(deleted?.file_lineage_id).toBe(created?.file_lineage_id)
    expect(copied?.file_lineage_id).not.toBe(created?.file_lineage_id)
  })

  test('create refuses an existing path; rename refuses to clobber; both write nothing', async () => {
    const p = await project({ 'a.txt': 'a', 'b.txt': 'b' })
    const before = treeFingerprint(p.root)
    expect(await p.mutate('files.create', { path: 'a.txt', kind: 'file' })).toMatchObject({
      error: { code: 'CONFLICT' },
    })
    expect(await p.mutate('files.rename', { from: 'a.txt', to: 'b.txt', expected_revision: rev('a') })).toMatchObject({
      error: { code: 'CONFLICT' },
    })
    expect(await p.mutate('files.copy', { from: 'a.txt', to: 'b.txt' })).toMatchObject({ error: { code: 'CONFLICT' } })
    expect(treeFingerprint(p.root)).toEqual(before)
  })
})

describe('idempotency', () => {
  test('the same key and payload replays the stored result without writing again', async () => {
    const p = await project({ 'a.txt': 'v1' })
    const key = randomUUID()
    const payload = { path: 'a.txt', content: 'v2', expected_revision: rev('v1') }
    const first = await p.mutate('files.write', payload, key)
    writeFileSync(join(p.root, 'a.txt'), 'external')
    const again = await p.mutate('files.write', payload, key)
    expect(again).toMatchObject({ status: 'ok', result: first.status === 'ok' ? first.result : {} })
    expect(readFileSync(join(p.root, 'a.txt'), 'utf8')).toBe('external')
    expect(await p.call('journal.transactions', {})).toMatchObject({ result: { revision: 1 } })
  })

  test('the same key with a different payload is IDEMPOTENCY_KEY_CONFLICT with zero writes', async () => {
    const p = await project({ 'a.txt': 'v1' })
    const key = randomUUID()
    await p.mutate('files.write', { path: 'a.txt', content: 'v2', expected_revision: rev('v1') }, key)
    const before = treeFingerprint(p.root)
    const other = await p.mutate('files.write', { path: 'a.txt', content: 'v3', expected_revision: rev('v2') }, key)
    expect(other).toMatchObject({ status: 'error', error: { code: 'IDEMPOTENCY_KEY_CONFLICT' } })
    expect(treeFingerprint(p.root)).toEqual(before)
  })

  test('two concurrent requests with one key run once; both get the same answer', async () => {
    const p = await project({ 'a.txt': 'v1' })
    const key = randomUUID()
    const payload = { path: 'a.txt', content: 'v2', expected_revision: rev('v1') }
    const [a, b] = await Promise.all([p.mutate('files.write', payload, key), p.mutate('files.write', payload, key)])
    expect(a).toMatchObject({ status: 'ok' })
    expect(b.status === 'ok' && a.status === 'ok' && b.result).toEqual(a.status === 'ok' && a.result)
    expect(await p.call('journal.transactions', {})).toMatchObject({ result: { revision: 1 } })
  })

  test('replays survive a restart', async () => {
    const p = await project({ 'a.txt': 'v1' })
    const key = randomUUID()
    const payload = { path: 'a.txt', content: 'v2', expected_revision: rev('v1') }
    const first = await p.mutate('files.write', payload, key)
    p.core.dispose()
    const core = startCore({ dataDir: p.dataDir })
    const again = await send(core, 'files.write', payload, { owner: { project_id: p.projectId }, key: key })
    expect(again).toMatchObject({ status: 'ok', result: first.status === 'ok' ? first.result : {} })
  })

  test('a key another process is still running answers IN_PROGRESS with its operation id, and writes nothing', async () => {
    const p = await project({ 'a.txt': 'v1' })
    const key = randomUUID()
    const payload = { path: 'a.txt', content: 'v2', expected_revision: rev('v1') }
    // What another Retrace process sharing the data directory leaves while it works on this key.
    const { DatabaseSync } = await import('node:sqlite')
    const raw = new DatabaseSync(join(p.dataDir, 'retrace.db'))
    const fingerprint = fingerprintOf(
      'files.write',
      { project_id: p.projectId, session_id: null },
      { path: 'a.txt', content: rev('v2') },
      { expected_revision: rev('v1') },
    )
    raw
      .prepare(
        "INSERT INTO idempotency_records VALUES (?, 'files.write', ?, ?, 'mtx_elsewhere', 'running', NULL, 0, NULL)",
      )
      .run(`${p.projectId}/`, key, fingerprint)
    raw.close()
    const before = treeFingerprint(p.root)
    expect(await p.mutate('files.write', payload, key)).toMatchObject({
      status: 'error',
      error: { code: 'IN_PROGRESS', details: { operation_id: 'mtx_elsewhere' } },
    })
    expect(treeFingerprint(p.root)).toEqual(before)
  })

  test('a mutating action without an idempotency key is refused', async () => {
    const p = await project()
    expect(await p.call('files.create', { path: 'x', kind: 'file' })).toMatchObject({
      error: { code: 'INVALID_REQUEST' },
    })
    expect(existsSync(join(p.root, 'x'))).toBe(false)
  })
})
