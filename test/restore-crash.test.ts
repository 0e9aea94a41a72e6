import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { startCore } from './support/core'
import { tempDir } from './support/temp'
import { runFaultChild } from './support/fault-child'
import { send } from './support/protocol'

const runChild = (dataDir: string, root: string, fault: string) =>
  runFaultChild('restore-child.mts', dataDir, root, fault)

async function afterRestart(dataDir: string) {
  const core = startCore({ dataDir })
  await core.ready
  const projects = await send(core, 'project.list', {})
  const projectId =
    (projects as { result: { projects: Array<{ project_id: string }> } }).result.projects[0]?.project_id ?? ''
  const listed = await send(core, 'journal.transactions', {}, { owner: { project_id: projectId } })
  const transactions = (listed as { result: { transactions: Array<{ kind: string; status: string }> } }).result
    .transactions
  const { DatabaseSync } = await import('node:sqlite')
  const raw = new DatabaseSync(join(dataDir, 'retrace.db'))
  const intents = raw.prepare('SELECT status FROM restore_intents').all() as Array<{ status: string }>
  raw.close()
  return { transactions, intents: intents.map((i) => i.status) }
}

function tree(root: string) {
  return Object.fromEntries(['a.txt', 'b.txt'].map((name) => [name, readFileSync(join(root, name), 'utf8')]))
}

/** Phase occurrences are counted in the undoing process only: @1 is a.txt, @2 is b.txt. */
const CASES: Array<[string, 'committed' | 'rolled_back', Record<string, string>]> = [
  ['after-intent', 'rolled_back', { 'a.txt': 'A\n', 'b.txt': 'B\n' }],
  ['after-prepare', 'rolled_back', { 'a.txt': 'A\n', 'b.txt': 'B\n' }],
  ['after-publish-file@1', 'rolled_back', { 'a.txt': 'A\n', 'b.txt': 'B\n' }],
  ['after-temp-write@2', 'rolled_back', { 'a.txt': 'A\n', 'b.txt': 'B\n' }],
  ['after-publish-file@2', 'committed', { 'a.txt': 'a\n', 'b.txt': 'b\n' }],
  ['before-commit', 'committed', { 'a.txt': 'a\n', 'b.txt': 'b\n' }],
  ['after-commit', 'committed', { 'a.txt': 'a\n', 'b.txt': 'b\n' }],
]

describe('crash during an undo (restore intent), SIGKILLed child, then recovery', () => {
  test.each(CASES)(
    'killed %s: the intent ends %s and both files are exactly one proven state',
    async (fault, intent, files) => {
      const root = tempDir()
      const dataDir = tempDir()
      writeFileSync(join(root, 'a.txt'), 'a\n')
      writeFileSync(join(root, 'b.txt'), 'b\n')
      const child = runChild(dataDir, root, fault)
      expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
      expect(child.stdout).toContain('applying')
      const state = await afterRestart(dataDir)
      expect(state.intents).toEqual([intent])
      expect(tree(root)).toEqual(files)
      expect(readdirSync(root).filter((n) => n.startsWith('.retrace-tmp-'))).toEqual([])
    },
  )

  test('an external write in the crash window is never overwritten: the intent is recovery_required', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    const child = runChild(dataDir, root, 'after-publish-file@1')
    expect(child.signal).toBe('SIGKILL')
    // a.txt was already restored to "a" by the killed undo; the user edits it before Retrace restarts.
    writeFileSync(join(root, 'a.txt'), 'typed while Retrace was down\n')
    const state = await afterRestart(dataDir)
    expect(state.intents).toEqual(['recovery_required'])
    expect(tree(root)).toEqual({ 'a.txt': 'typed while Retrace was down\n', 'b.txt': 'B\n' })
    expect(state.transactions.map((t) => [t.kind, t.status])).toEqual([
      ['edit', 'committed'],
      ['revert', 'recovery_required'],
    ])
  })
})

describe('crash while a failed undo is being rolled back', () => {
  test('killed during rollback: recovery keeps the external bytes and reports recovery_required', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    // The undo restores a.txt, then another program writes b.txt, so publishing b.txt fails and the
    // engine rolls a.txt back — and is killed right there.
    const child = runChild(dataDir, root, `after-publish-file@1:external=${join(root, 'b.txt')},during-rollback`)
    expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
    const state = await afterRestart(dataDir)
    expect(tree(root)).toEqual({ 'a.txt': 'A\n', 'b.txt': 'written by another program during the crash test\n' })
    expect(state.intents).toEqual(['recovery_required'])
    expect(state.transactions.map((t) => [t.kind, t.status])).toEqual([
      ['edit', 'committed'],
      ['revert', 'recovery_required'],
    ])
  })
})
