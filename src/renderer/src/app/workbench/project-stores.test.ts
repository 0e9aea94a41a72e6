import { afterEach, expect, test, vi } from 'vitest'
import { gitStoreSlot } from '../../features/explorer'
import { treeStoreSlot } from '../../features/explorer/tree-store'
import { reviewTurn } from '../../features/review'
import { reviewStoreSlot } from '../../features/review/review-store'
import { loopbackClient } from '../../ui/loopback-client'
import { Workbench } from './workbench'

const listing = (path: string, names: readonly string[]) => ({
  path,
  entries: names.map((name) => ({ name, path: name, kind: 'file', size: 1, mtime_ms: 0 })),
  next_cursor: null,
  total: names.length,
  page_size: 100,
})

afterEach(() => {
  vi.useRealTimers()
})

test('two projects get separate explorer trees, git colours and Review choices, each asking for its own project', () => {
  const host = loopbackClient()
  const workbench = new Workbench(host.client)
  const one = workbench.scopeFor('prj_1')
  const two = workbench.scopeFor('prj_2')
  expect(one.get(treeStoreSlot)).not.toBe(two.get(treeStoreSlot))
  expect(one.get(gitStoreSlot)).not.toBe(two.get(gitStoreSlot))
  expect(one.get(treeStoreSlot)).toBe(one.get(treeStoreSlot))

  one.get(treeStoreSlot).ensure('')
  two.get(treeStoreSlot).ensure('')
  expect(host.sent.map((frame) => [frame.action, frame.owner.project_id])).toEqual([
    ['files.list', 'prj_1'],
    ['files.list', 'prj_2'],
  ])

  reviewTurn(one, 'turn_1')
  expect(one.get(reviewStoreSlot).get()).toMatchObject({ scope: 'turn', pinnedTurnId: 'turn_1' })
  expect(two.get(reviewStoreSlot).get()).toMatchObject({ scope: null, pinnedTurnId: null })
})

test('closing a project releases its stores: listings in flight are forgotten, a pending git re-read never runs', async () => {
  vi.useFakeTimers()
  const host = loopbackClient()
  const workbench = new Workbench(host.client)
  const scope = workbench.scopeFor('prj_1')
  const tree = scope.get(treeStoreSlot)
  const git = scope.get(gitStoreSlot)
  reviewTurn(scope, 'turn_1')

  tree.ensure('')
  const [firstListing] = host.sent
  if (!firstListing) throw new Error('no files.list sent')
  git.refreshSoon(300)
  workbench.closeProject('prj_1')

  // The listing's late answer finds no request waiting: dropped, and the tree stays as it was.
  host.answer(firstListing, listing('', ['late.txt']))
  await vi.runAllTimersAsync()
  expect(host.dropped.map((drop) => drop.reason)).toEqual(['unknown-id'])
  expect(tree.folder('').entries).toEqual([])
  // The debounced git re-read was cancelled with the scope, and a later one does not start.
  git.refreshSoon(0)
  await vi.runAllTimersAsync()
  expect(host.sent.map((frame) => frame.action)).toEqual(['files.list'])
  // Nothing listens to or times anything for the closed project any more.
  expect(vi.getTimerCount()).toBe(0)

  // Opening the project again starts fresh stores: a new tree, no Review choice kept.
  const again = workbench.scopeFor('prj_1')
  expect(again.get(treeStoreSlot)).not.toBe(tree)
  expect(again.get(reviewStoreSlot).get()).toMatchObject({ scope: null, pinnedTurnId: null })
})

test('a project the engine stops listing is closed: its stores are released, the listed one keeps its own', () => {
  const host = loopbackClient()
  const workbench = new Workbench(host.client)
  const project = (id: string) => ({ project_id: id, root: `/tmp/${id}`, name: id, is_git: false })
  workbench.setProjects([project('prj_1'), project('prj_2')])
  const kept = workbench.scopeFor('prj_1')
  const gone = workbench.scopeFor('prj_2')
  const tree = gone.get(treeStoreSlot)
  workbench.setProjects([project('prj_1')])
  expect(gone.isDisposed).toBe(true)
  expect(kept.isDisposed).toBe(false)
  // A disposed tree asks for nothing more.
  tree.ensure('')
  expect(host.sent).toEqual([])
})
