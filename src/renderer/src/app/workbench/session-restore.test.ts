import { expect, test } from 'vitest'
import {
  captureWindowSession,
  loadWindowSession,
  MAX_RESTORED_TABS,
  MAX_SESSION_BYTES,
  storeWindowSession,
  WINDOW_SESSION_KEY,
} from './session-restore'
import { TabsModel } from './tabs'

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> & { items: Map<string, string> } {
  const items = new Map<string, string>()
  return { items, getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) }
}

test('a captured window round-trips: tabs in strip order, pinned or preview, the active one, view states', () => {
  const tabs = new TabsModel()
  tabs.openFile('a.ts', { pinned: true })
  tabs.openFile('b.ts')
  tabs.saveViewState('file:a.ts', { scrollTop: 120 })
  const storage = memoryStorage()
  storeWindowSession(storage, captureWindowSession('p1', tabs))
  const loaded = loadWindowSession(storage)
  expect(loaded).toEqual({
    kind: 'found',
    session: {
      version: 1,
      projectId: 'p1',
      tabs: [
        { path: 'a.ts', pinned: true },
        { path: 'b.ts', pinned: false },
      ],
      activePath: 'b.ts',
      viewStates: { 'a.ts': { scrollTop: 120 } },
    },
  })
  const restored = new TabsModel()
  if (loaded.kind === 'found')
    restored.restore(loaded.session.tabs, loaded.session.activePath, (path) => loaded.session.viewStates[path])
  expect(restored.state.tabs.map((t) => (t.kind === 'file' ? [t.path, t.preview] : t.id))).toEqual([
    ['a.ts', false],
    ['b.ts', true],
  ])
  expect(restored.state.activeId).toBe('file:b.ts')
  expect(restored.viewState('file:a.ts')).toEqual({ scrollTop: 120 })
})

test('past the tab cap the most recently used tabs are kept; an oversized view state is dropped', () => {
  const tabs = new TabsModel()
  for (let i = 0; i < MAX_RESTORED_TABS + 10; i++) tabs.openFile(`f${i}.ts`, { pinned: true })
  tabs.activate('file:f0.ts')
  tabs.saveViewState('file:f0.ts', { blob: 'x'.repeat(20_000) })
  const session = captureWindowSession('p1', tabs)
  expect(session.tabs).toHaveLength(MAX_RESTORED_TABS)
  expect(session.tabs.map((t) => t.path)).toContain('f0.ts')
  expect(session.tabs.map((t) => t.path)).not.toContain('f1.ts')
  expect(session.activePath).toBe('f0.ts')
  expect(session.viewStates).toEqual({})
})

test('a missing, oversized, non-JSON or off-schema record loads as none', () => {
  const storage = memoryStorage()
  expect(loadWindowSession(storage)).toEqual({ kind: 'none' })
  for (const raw of [
    'x'.repeat(MAX_SESSION_BYTES + 1),
    '{"version":1',
    JSON.stringify({ version: 2, projectId: 'p', tabs: [], activePath: null, viewStates: {} }),
    JSON.stringify({
      version: 1,
      projectId: 'p',
      tabs: [{ path: '', pinned: true }],
      activePath: null,
      viewStates: {},
    }),
  ]) {
    storage.items.set(WINDOW_SESSION_KEY, raw)
    expect(loadWindowSession(storage)).toEqual({ kind: 'none' })
  }
  const throwing = {
    getItem: () => {
      throw new Error('SecurityError')
    },
  }
  expect(loadWindowSession(throwing)).toEqual({ kind: 'none' })
})

test('a restored model that already has tabs is left alone', () => {
  const tabs = new TabsModel()
  tabs.openFile('mine.ts', { pinned: true })
  tabs.restore([{ path: 'old.ts', pinned: true }], 'old.ts', () => undefined)
  expect(tabs.state.tabs.map((t) => t.id)).toEqual(['file:mine.ts'])
})
