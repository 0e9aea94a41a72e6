import { expect, test } from 'vitest'
import type { ScopeSlot } from '../../ui/project-scope'
import { loopbackClient } from '../../ui/loopback-client'
import { Workbench } from './workbench'

test('a project keeps its scope across switches; closing it disposes its slots once, newest first', () => {
  const workbench = new Workbench(loopbackClient().client)
  const released: string[] = []
  const slot = (name: string): ScopeSlot<{ projectId: string }> => ({
    name,
    create: ({ projectId }) => ({ projectId }),
    dispose: (value) => released.push(`${name}:${value.projectId}`),
  })
  const workingCopy = slot('working-copy')
  const other = slot('other')
  const scope = workbench.scopeFor('prj_1')
  scope.tabs.openFile('a.txt', { pinned: true })
  expect(scope.get(workingCopy)).toBe(scope.get(workingCopy))
  scope.get(other)
  scope.onDispose(() => released.push('cleanup'))

  workbench.selectProject('prj_2')
  workbench.selectProject('prj_1')
  expect(workbench.scopeFor('prj_1')).toBe(scope)
  expect(workbench.currentScope()?.tabs.state.activeId).toBe('file:a.txt')

  workbench.closeProject('prj_1')
  workbench.closeProject('prj_1')
  expect(released).toEqual(['other:prj_1', 'working-copy:prj_1', 'cleanup'])
  expect(scope.isDisposed).toBe(true)
  expect(() => scope.get(workingCopy)).toThrow(/disposed/)
  // Opening the project again starts a fresh scope.
  expect(workbench.scopeFor('prj_1').tabs.state.tabs).toEqual([])
})
