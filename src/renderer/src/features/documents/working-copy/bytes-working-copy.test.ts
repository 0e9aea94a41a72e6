import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { BytesWorkingCopy } from './bytes-working-copy'
import type { PublishResult } from './publisher'

function harness(outcomes: Array<PublishResult | ((baseline: string | null) => PublishResult)> = []) {
  let version = 0
  const calls: Array<{ bytes: string; baseline: string | null; key: string }> = []
  let gate: Promise<void> = Promise.resolve()
  let content = 'v0'
  let keys = 0
  const copy = new BytesWorkingCopy({
    exportBytes: async () => new TextEncoder().encode(content),
    publisher: {
      projectId: 'prj_test',
      path: 'a.pdf',
      noteEdit: () => {},
      endEditSession: () => {},
      async publish(published, baseline, attempt) {
        calls.push({
          bytes: published.kind === 'bytes' ? new TextDecoder().decode(published.bytes) : published.text,
          baseline,
          key: attempt,
        })
        await gate
        const next = outcomes.shift()
        if (next) return typeof next === 'function' ? next(baseline) : next
        return { kind: 'saved', revision: `r${++version}` }
      },
    },
    drafts: null,
    mime: 'application/pdf',
    baseline: { revision: 'r0', size: 2 },
    newKey: () => `k${++keys}`,
  })
  return {
    copy,
    calls,
    edit(next: string) {
      content = next
      copy.changed()
    },
    hold() {
      let release!: () => void
      gate = new Promise((resolve) => (release = resolve))
      return release
    },
  }
}

const CLEAN = { dirty: false, publishing: false, problem: null }

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
    expect(h.copy.getState()).toMatchObject({ dirty: true, publishing: false, problem: null })
    await vi.advanceTimersByTimeAsync(500)
    expect(h.calls).toEqual([{ bytes: 'ab', baseline: 'r0', key: 'k1' }])
    expect(h.copy.getState()).toEqual({ ...CLEAN, baseline: 'r1' })
    h.edit('abc')
    await vi.advanceTimersByTimeAsync(1100)
    expect(h.calls[1]).toEqual({ bytes: 'abc', baseline: 'r1', key: 'k2' })
  })

  test('a change during a publish is published after it, against the new baseline (never out of order)', async () => {
    const h = harness()
    const release = h.hold()
    h.edit('one')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.copy.getState().publishing).toBe(true)
    h.edit('two')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.calls).toHaveLength(1)
    release()
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.calls.map((c) => [c.bytes, c.baseline])).toEqual([
      ['one', 'r0'],
      ['two', 'r1'],
    ])
    expect(h.copy.getState()).toMatchObject(CLEAN)
  })

  test('a failed publish keeps the bytes and retries them with the same key', async () => {
    const h = harness([{ kind: 'failed', message: 'disk full' }])
    h.edit('note')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.copy.getState().problem).toEqual({ kind: 'failed', message: 'disk full' })
    expect(h.copy.dirty).toBe(true)
    void h.copy.retry()
    await vi.advanceTimersByTimeAsync(0)
    expect(h.calls.map((c) => c.key)).toEqual(['k1', 'k1'])
    expect(h.copy.getState()).toEqual({ ...CLEAN, baseline: 'r1' })
  })

  test('a conflict stops publishing until the person overwrites or discards', async () => {
    const h = harness([{ kind: 'conflict', actualRevision: 'disk-7', message: 'changed' }])
    h.edit('mine')
    await vi.advanceTimersByTimeAsync(1000)
    expect(h.copy.getState().problem).toEqual({ kind: 'conflict', actualRevision: 'disk-7' })
    h.edit('mine 2')
    await vi.advanceTimersByTimeAsync(5000)
    expect(h.calls).toHaveLength(1)
    void h.copy.overwrite('disk-7')
    await vi.advanceTimersByTimeAsync(0)
    expect(h.calls[1]).toMatchObject({ bytes: 'mine 2', baseline: 'disk-7' })
    expect(h.copy.getState()).toMatchObject(CLEAN)
  })

  test('save publishes at once and says whether everything reached the disk', async () => {
    const h = harness()
    h.edit('closing')
    expect(await h.copy.save()).toBe(true)
    expect(h.calls).toHaveLength(1)
    const failing = harness([{ kind: 'failed', message: 'offline' }])
    failing.edit('x')
    expect(await failing.copy.save()).toBe(false)
    expect(failing.copy.dirty).toBe(true)
  })
})
