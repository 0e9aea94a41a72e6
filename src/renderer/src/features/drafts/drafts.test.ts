import 'fake-indexeddb/auto'
import { describe, expect, test } from 'vitest'
import { createAutosave, type PublishFn, type PublishOutcome } from './autosave'
import { draftKey, openDraftStore, type DraftInput } from './draft-store'
import { ReadCache } from './read-cache'

let counter = 0
const freshStore = (limits?: { maxDrafts: number; maxBytes: number }) =>
  openDraftStore({ name: `drafts-test-${++counter}`, ...(limits ? { limits } : {}) })

const input = (path: string, text: string, project = 'prj_a'): DraftInput => ({
  project_id: project,
  path,
  content: { kind: 'text', text },
  baseline_revision: 'sha256:0',
  baseline_size: 1,
  baseline_mtime: null,
  state: 'dirty',
})

describe('draft store (IndexedDB)', () => {
  test('a draft and its project aggregate are written together and survive reopening', async () => {
    const name = `drafts-test-${++counter}`
    const store = await openDraftStore({ name })
    const written = await store.put(input('a.md', 'héllo'))
    expect(written.kind).toBe('ok')
    store.close()
    const again = await openDraftStore({ name })
    const listed = await again.list('prj_a')
    expect(listed.map((d) => [d.path, d.content])).toEqual([['a.md', { kind: 'text', text: 'héllo' }]])
    const usage = await again.usage()
    expect(usage.count).toBe(1)
    expect(usage.bytes).toBe(listed[0]?.bytes)
    // UTF-8 bytes, not code units: "é" counts two.
    expect(listed[0]?.bytes).toBeGreaterThan(6)
  })

  test('the quota (drafts or bytes) refuses a write and leaves every earlier draft as it was', async () => {
    const store = await freshStore({ maxDrafts: 3, maxBytes: 2000 })
    for (const path of ['a', 'b', 'c']) expect((await store.put(input(path, path))).kind).toBe('ok')
    const fourth = await store.put(input('d', 'd'))
    expect(fourth).toMatchObject({ kind: 'quota', count: 3 })
    // Updating an existing draft is still allowed while it fits…
    expect((await store.put(input('a', 'a2'))).kind).toBe('ok')
    // …but not past the byte limit; the stored version stays the last that fitted.
    expect((await store.put(input('a', 'x'.repeat(5000)))).kind).toBe('quota')
    expect((await store.get('prj_a', 'a'))?.content).toEqual({ kind: 'text', text: 'a2' })
    expect((await store.list('prj_a')).map((d) => d.path).sort()).toEqual(['a', 'b', 'c'])
  })

  test('rename moves the key; discard removes draft and aggregate together; a stale discard keeps a newer draft', async () => {
    const store = await freshStore()
    await store.put(input('old.md', 'text'))
    await store.rename('prj_a', 'old.md', 'new.md')
    expect(await store.get('prj_a', 'old.md')).toBeUndefined()
    const moved = await store.get('prj_a', 'new.md')
    expect(moved?.key).toBe(draftKey('prj_a', 'new.md'))
    await store.put(input('new.md', 'newer'))
    await store.discard('prj_a', 'new.md', moved?.updated_at)
    expect((await store.get('prj_a', 'new.md'))?.content).toEqual({ kind: 'text', text: 'newer' })
    await store.discard('prj_a', 'new.md')
    expect(await store.list('prj_a')).toEqual([])
    expect(await store.usage()).toEqual({ count: 0, bytes: 0 })
  })

  test('a missing or wrong project index is rebuilt by scanning, never by deleting drafts', async () => {
    const name = `drafts-test-${++counter}`
    const store = await openDraftStore({ name })
    await store.put(input('a', '1'))
    await store.put(input('b', '2'))
    await store.put(input('x', '3', 'prj_other'))
    store.close()
    // Break the index the way a crash between two versions of the app might.
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(name)
      open.onsuccess = () => {
        const tx = open.result.transaction('project_index', 'readwrite')
        tx.objectStore('project_index').put({ project_id: 'prj_a', keys: ['gone'], count: 7, bytes: 1 })
        tx.oncomplete = () => {
          open.result.close()
          resolve()
        }
        tx.onerror = () => reject(tx.error)
      }
    })
    const again = await openDraftStore({ name })
    expect((await again.list('prj_a')).map((d) => d.path).sort()).toEqual(['a', 'b'])
    expect((await again.list('prj_other')).map((d) => d.path)).toEqual(['x'])
    expect((await again.usage()).count).toBe(3)
  })

  test('drafts of the same path in two projects never share a record', async () => {
    const store = await freshStore()
    await store.put(input('README.md', 'one', 'prj_a'))
    await store.put(input('README.md', 'two', 'prj_b'))
    expect((await store.get('prj_a', 'README.md'))?.content).toEqual({ kind: 'text', text: 'one' })
    expect((await store.get('prj_b', 'README.md'))?.content).toEqual({ kind: 'text', text: 'two' })
  })
})

/** A publish endpoint the test answers by hand, in any order. */
function manualPublisher() {
  const calls: Array<{ payload: Parameters<PublishFn>[0]; key: string; answer: (o: PublishOutcome) => void }> = []
  const publish: PublishFn = (payload, key) =>
    new Promise((resolve) => {
      calls.push({ payload, key, answer: resolve })
    })
  return { calls, publish }
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms))
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await tick(5)
  expect(check()).toBe(true)
}

describe('autosave', () => {
  test('a change is stored first and published after the quiet delay with the baseline and a key', async () => {
    const store = await freshStore()
    const { calls, publish } = manualPublisher()
    const autosave = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.md',
      baseline: { revision: 'sha256:b0', size: 1 },
      delayMs: 20,
    })
    await autosave.change({ kind: 'text', text: 'hello' })
    expect((await store.get('p', 'a.md'))?.content).toEqual({ kind: 'text', text: 'hello' })
    expect(autosave.getState().dirty).toBe(true)
    await until(() => calls.length === 1)
    expect(calls[0]?.payload).toMatchObject({ content: 'hello', expected_revision: 'sha256:b0' })
    calls[0]?.answer({ kind: 'ok', result: { transaction_id: 't1', revision: 'sha256:b1' } })
    await until(() => !autosave.getState().dirty)
    expect(autosave.getState().baseline).toBe('sha256:b1')
    expect(await store.get('p', 'a.md')).toBeUndefined()
  })

  test('an answer that arrives after newer typing never drops the newer draft; it is published next on the new baseline', async () => {
    const store = await freshStore()
    const { calls, publish } = manualPublisher()
    const autosave = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.md',
      baseline: { revision: 'sha256:b0', size: 1 },
      delayMs: 10,
    })
    await autosave.change({ kind: 'text', text: 'one' })
    await until(() => calls.length === 1)
    await autosave.change({ kind: 'text', text: 'one two' })
    calls[0]?.answer({ kind: 'ok', result: { transaction_id: 't1', revision: 'sha256:b1' } })
    await until(() => calls.length === 2)
    expect((await store.get('p', 'a.md'))?.content).toEqual({ kind: 'text', text: 'one two' })
    expect(calls[1]?.payload).toMatchObject({ content: 'one two', expected_revision: 'sha256:b1' })
    expect(calls[1]?.key).not.toBe(calls[0]?.key)
    calls[1]?.answer({ kind: 'ok', result: { transaction_id: 't2', revision: 'sha256:b2' } })
    await until(() => !autosave.getState().dirty)
  })

  test('a failed publish keeps the draft and retries with the same key; a conflict waits for the person', async () => {
    const store = await freshStore()
    const { calls, publish } = manualPublisher()
    const autosave = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.md',
      baseline: { revision: 'sha256:b0', size: 1 },
      delayMs: 10,
    })
    await autosave.change({ kind: 'text', text: 'mine' })
    await until(() => calls.length === 1)
    calls[0]?.answer({ kind: 'timeout' })
    await until(() => autosave.getState().problem?.kind === 'failed')
    expect((await store.get('p', 'a.md'))?.content).toEqual({ kind: 'text', text: 'mine' })
    const retried = autosave.retry()
    await until(() => calls.length === 2)
    expect(calls[1]?.key).toBe(calls[0]?.key)
    calls[1]?.answer({
      kind: 'error',
      error: { code: 'CONFLICT', message: 'changed', details: { actual_revision: 'sha256:disk' } },
    })
    expect(await retried).toBe(false)
    expect(autosave.getState().problem).toEqual({ kind: 'conflict', actualRevision: 'sha256:disk' })
    expect((await store.get('p', 'a.md'))?.state).toBe('conflict')
    // More typing keeps the conflict and publishes nothing on its own.
    await autosave.change({ kind: 'text', text: 'mine, more' })
    await tick(40)
    expect(calls).toHaveLength(2)
    // Keep mine and overwrite: explicitly over the disk revision.
    const overwritten = autosave.overwrite('sha256:disk')
    await until(() => calls.length === 3)
    expect(calls[2]?.payload).toMatchObject({ content: 'mine, more', expected_revision: 'sha256:disk' })
    calls[2]?.answer({ kind: 'ok', result: { transaction_id: 't3', revision: 'sha256:b3' } })
    expect(await overwritten).toBe(true)
    expect(await store.get('p', 'a.md')).toBeUndefined()
  })

  test('a reload finds the draft and publishes it; flush waits for the final publish', async () => {
    const store = await freshStore()
    const { calls, publish } = manualPublisher()
    const first = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.md',
      baseline: { revision: 'sha256:b0', size: 1 },
      delayMs: 10_000,
    })
    await first.change({ kind: 'text', text: 'typed before the reload' })
    first.dispose()
    const second = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.md',
      baseline: { revision: 'sha256:other', size: 1 },
      delayMs: 10_000,
    })
    const restored = await second.restore()
    expect(restored?.content).toEqual({ kind: 'text', text: 'typed before the reload' })
    expect(second.getState()).toMatchObject({ dirty: true, baseline: 'sha256:b0' })
    const flushed = second.flush()
    await until(() => calls.length === 1)
    expect(calls[0]?.payload.expected_revision).toBe('sha256:b0')
    calls[0]?.answer({ kind: 'ok', result: { transaction_id: 't', revision: 'sha256:b1' } })
    expect(await flushed).toBe(true)
    second.dispose()
  })

  test('bytes drafts publish as base64; the quota pauses growth with a visible problem', async () => {
    const store = await freshStore({ maxDrafts: 32, maxBytes: 600 })
    const { calls, publish } = manualPublisher()
    const autosave = createAutosave({
      store,
      publish,
      projectId: 'p',
      path: 'a.pdf',
      baseline: { revision: 'sha256:b0', size: 1 },
      delayMs: 10,
    })
    expect((await autosave.saveBytes(new Uint8Array([1, 2, 3]), 'application/pdf')).kind).toBe('ok')
    const big = await autosave.saveBytes(new Uint8Array(5000), 'application/pdf')
    expect(big.kind).toBe('quota')
    expect(autosave.getState().problem?.kind).toBe('quota')
    await until(() => calls.length === 1)
    expect(calls[0]?.payload.content_base64).toBe('AQID')
    autosave.dispose()
  })
})

describe('read cache', () => {
  test('keeps at most 64 entries, is keyed by project, path and revision, and is invalidated by path', () => {
    const cache = new ReadCache()
    for (let i = 0; i < 70; i++) cache.set('p', `f${i}`, { kind: 'text', text: 'x', revision: `r${i}`, size: 1 })
    expect(cache.size).toBe(64)
    expect(cache.get('p', 'f0')).toBeUndefined()
    expect(cache.get('p', 'f69')?.revision).toBe('r69')
    expect(cache.get('q', 'f69')).toBeUndefined()
    cache.set('p', 'f69', { kind: 'text', text: 'y', revision: 'r70', size: 1 })
    expect(cache.get('p', 'f69')).toMatchObject({ text: 'y', revision: 'r70' })
    cache.invalidate('p', 'f69')
    expect(cache.get('p', 'f69')).toBeUndefined()
    cache.invalidateProject('p')
    expect(cache.size).toBe(0)
  })

  test('holds at most 16 MiB', () => {
    const cache = new ReadCache()
    const text = 'x'.repeat(3 * 1024 * 1024)
    for (let i = 0; i < 4; i++) cache.set('p', `big${i}`, { kind: 'text', text, revision: `r${i}`, size: text.length })
    expect(cache.bytes).toBeLessThanOrEqual(16 * 1024 * 1024)
    expect(cache.get('p', 'big0')).toBeUndefined()
    expect(cache.get('p', 'big3')).toBeDefined()
  })
})
