import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { BinaryAutosave } from './binary-autosave'
import type { BytePublisher, PublishOutcome } from './byte-publisher'

function harness(outcomes: Array<PublishOutcome | ((baseline: string) => PublishOutcome)> = []) {
  let version = 0
  const calls: Array<{ bytes: string; baseline: string; key: string }> = []
  let gate: Promise<void> = Promise.resolve()
  const publisher: BytePublisher = {
    async saveBytes(bytes, baseline, attempt) {
      calls.push({ bytes: new TextDecoder().decode(bytes), baseline, key: attempt })
      await gate
      const next = outcomes.shift()
      if (next) return typeof next === 'function' ? next(baseline) : next
      return { kind: 'saved', revision: `r${++version}` }
    },
  }
  let content = 'v0'
  let keys = 0
  const autosave = new BinaryAutosave({
    exportBytes: async () => new TextEncoder().encode(content),
    publisher,
    baseline: 'r0',
    newKey: () => `k${++keys}`,
  })
  return {
    autosave,
    calls,
    edit(next: string) {
      content = next
      autosave.changed()
    },
    hold() {
      let release!: () => void
      gate = new Promise((resolve) => (release = resolve))
      return release
    },
  }
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('autosave of exported bytes', () => {
  test('publishes once, about a second after the last change, with the baseline and a key', async () => {
    const h = harness()
    h.edit('a')
    await vi.advanceTimersByTimeAsync(600)
    h.edit('ab')
    await vi.advanceTimersByTimeAsync(600)
    expect(h.calls).toEqual([])
    expect(h.autosave.store.get().status.kind).toBe('pending')
    await vi.advanceTimersByTimeAsync(500)
    expect(h.calls).toEqual([{ bytes: 'ab', baseline: 'r0', key: 'k1' }])
    expect(h.autosave.store.get()).toEqual({ status: { kind: 'clean' }, baseline: 'r1' })
    h.edit('abc')
    await vi.advanceTimersByTimeAsync(1100)
    expect(h.calls[1]).toEqual({ bytes: 'abc', baseline: 'r1', key: 'k2' })
  })

  test('a change during a publish is published after it, against the new baseline (never out of order)', async () => {
    const h = harness()
    const release = h.hold()
    h.edit('one')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.autosave.store.get().status.kind).toBe('saving')
    h.edit('two')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.calls).toHaveLength(1)
    release()
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.calls.map((c) => [c.bytes, c.baseline])).toEqual([
      ['one', 'r0'],
      ['two', 'r1'],
    ])
    expect(h.autosave.store.get().status.kind).toBe('clean')
  })

  test('a failed publish keeps the bytes and retries them with the same key', async () => {
    const h = harness([{ kind: 'failed', message: 'disk full' }])
    h.edit('note')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.autosave.store.get().status).toEqual({ kind: 'failed', message: 'disk full' })
    expect(h.autosave.unpublished).toBe(true)
    h.autosave.retry()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.calls.map((c) => c.key)).toEqual(['k1', 'k1'])
    expect(h.autosave.store.get()).toEqual({ status: { kind: 'clean' }, baseline: 'r1' })
  })

  test('a conflict stops publishing until the person overwrites or discards', async () => {
    const h = harness([{ kind: 'conflict', message: 'changed' }])
    h.edit('mine')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.autosave.store.get().status.kind).toBe('conflict')
    h.edit('mine 2')
    await vi.advanceTimersByTimeAsync(5000)
    expect(h.calls).toHaveLength(1)
    h.autosave.overwrite('disk-7')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.calls[1]).toMatchObject({ bytes: 'mine 2', baseline: 'disk-7' })
    expect(h.autosave.store.get().status.kind).toBe('clean')
  })

  test('flush publishes at once and says whether everything reached the disk', async () => {
    const h = harness()
    h.edit('closing')
    expect(await h.autosave.flush()).toBe(true)
    expect(h.calls).toHaveLength(1)
    const failing = harness([{ kind: 'failed', message: 'offline' }])
    failing.edit('x')
    expect(await failing.autosave.flush()).toBe(false)
    expect(failing.autosave.unpublished).toBe(true)
  })
})
