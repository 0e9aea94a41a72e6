import { expect, test } from 'vitest'
import { TabsModel } from './tabs'

const names = (model: TabsModel) =>
  model.state.tabs.map((t) => (t.kind === 'file' ? `${t.path}${t.preview ? '*' : ''}` : 'review'))

test('a single click replaces the preview tab; a double click (or an edit) pins it; a second open focuses', () => {
  const model = new TabsModel()
  model.openFile('a.ts')
  model.openFile('b.ts')
  expect(names(model)).toEqual(['b.ts*'])
  model.openFile('b.ts', { pinned: true })
  model.openFile('c.ts')
  expect(names(model)).toEqual(['b.ts', 'c.ts*'])
  model.openFile('b.ts')
  expect(names(model)).toEqual(['b.ts', 'c.ts*'])
  expect(model.state.activeId).toBe('file:b.ts')
})

test('closing the active tab activates the most recently used one; close others keeps one', () => {
  const model = new TabsModel()
  for (const path of ['a.ts', 'b.ts', 'c.ts']) model.openFile(path, { pinned: true })
  model.openReview()
  model.activate('file:a.ts')
  model.close('file:a.ts')
  expect(model.state.activeId).toBe('review')
  model.closeOthers('file:b.ts')
  expect(names(model)).toEqual(['b.ts'])
})

test('view states survive the tab; a rename carries them, a delete drops the tab', () => {
  const model = new TabsModel()
  model.openFile('a.ts', { pinned: true })
  model.saveViewState('file:a.ts', { scrollTop: 120 })
  model.pathGone('a.ts', 'renamed.ts')
  expect(names(model)).toEqual(['renamed.ts'])
  expect(model.viewState('file:renamed.ts')).toEqual({ scrollTop: 120 })
  model.pathGone('renamed.ts', null)
  expect(model.state.tabs).toEqual([])
  expect(model.state.activeId).toBeNull()
})
