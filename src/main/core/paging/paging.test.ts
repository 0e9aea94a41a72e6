import { describe, expect, test } from 'vitest'
import { createCursorSigner } from './cursor'
import { createSnapshotStore } from './snapshot-store'

const claims = {
  query_kind: 'directory' as const,
  snapshot_id: 'snp_1',
  project_id: 'prj_1',
  basis: 'b1',
  query: '{"path":""}',
  offset: 100,
}

describe('cursors', () => {
  test('a signed cursor opens to its claims; a tampered, truncated or foreign one does not', () => {
    const signer = createCursorSigner()
    const token = signer.sign(claims)
    expect(signer.open(token)).toEqual(claims)
    expect(token).not.toContain('prj_1')
    const [body = '', mac = ''] = token.split('.')
    const forged = Buffer.from(JSON.stringify({ ...claims, offset: 0 })).toString('base64url')
    expect(signer.open(`${forged}.${mac}`)).toBeUndefined()
    expect(signer.open(body)).toBeUndefined()
    expect(signer.open(`${body}.${mac.slice(1)}`)).toBeUndefined()
    // Another process (a restart) has another key.
    expect(createCursorSigner().open(token)).toBeUndefined()
  })
})

describe('snapshots', () => {
  test('are evicted by total item count, oldest first, and by age', async () => {
    const store = createSnapshotStore<number>({ maxItems: 10, ttlMs: 60_000 })
    const first = store.put('b', [1, 2, 3, 4, 5, 6])
    const second = store.put('b', [7, 8, 9, 10, 11, 12])
    expect(store.get(first.snapshot_id)).toBeUndefined()
    expect(store.get(second.snapshot_id)?.items).toHaveLength(6)
    const short = createSnapshotStore<number>({ maxItems: 10, ttlMs: 20 })
    const aging = short.put('b', [1])
    await new Promise((resolve) => setTimeout(resolve, 40))
    expect(short.get(aging.snapshot_id)).toBeUndefined()
  })
})
