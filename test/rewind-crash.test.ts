import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { startCore } from './support/core'
import { tempDir } from './support/temp'
import { runFaultChild } from './support/fault-child'
import { resultOrThrow } from './support/protocol'

const runChild = (dataDir: string, root: string, fault: string) =>
  runFaultChild('rewind-child.mts', dataDir, root, fault)

/** Restarts on the data directory: recovery has run before the first answer. */
async function afterRestart(dataDir: string) {
  const core = startCore({ dataDir })
  await core.ready
  const ask = (action: string, owner: Record<string, string>, payload: unknown) =>
    resultOrThrow(core, action, owner, payload)
  const projectId = ((await ask('project.list', {}, {})).projects as Array<{ project_id: string }>)[0]?.project_id ?? ''
  const sessions = (await ask('session.list', { project_id: projectId }, {})).sessions as Array<{ session_id: string }>
  const sessionId = sessions[0]?.session_id ?? ''
  const transcript = (await ask('session.resume', { project_id: projectId }, { session_id: sessionId })) as {
    session: { active_branch_id: string; root_node_id: string }
    branches: Array<{ branch_id: string; head_node_id: string; parent_branch_id: string | null }>
  }
  const transactions = (
    (await ask('journal.transactions', { project_id: projectId }, {})).transactions as Array<{
      kind: string
      status: string
      recovery_detail: string | null
    }>
  ).map((t) => [t.kind, t.status, t.recovery_detail])
  const { DatabaseSync } = await import('node:sqlite')
  const raw = new DatabaseSync(join(dataDir, 'retrace.db'))
  const intents = raw.prepare('SELECT status, effects_applied FROM restore_intents').all() as Array<{
    status: string
    effects_applied: number
  }>
  raw.close()
  return { transcript, transactions, intents }
}

const tree = (root: string) =>
  Object.fromEntries(['a.txt', 'b.txt'].map((name) => [name, readFileSync(join(root, name), 'utf8')]))

const BEFORE = { 'a.txt': 'a\n', 'b.txt': 'b\n' }
const AFTER = { 'a.txt': 'AA\n', 'b.txt': 'BB\n' }

/** Phase occurrences count in the rewinding process only: @1 is a.txt, @2 is b.txt. */
const CASES: Array<[string, 'committed' | 'rolled_back', Record<string, string>]> = [
  ['after-intent', 'rolled_back', AFTER],
  ['after-prepare', 'rolled_back', AFTER],
  ['after-blobs', 'rolled_back', AFTER],
  ['after-temp-write@1', 'rolled_back', AFTER],
  ['after-publish-file@1', 'rolled_back', AFTER],
  ['after-temp-write@2', 'rolled_back', AFTER],
  ['after-publish-file@2', 'committed', BEFORE],
  ['before-commit', 'committed', BEFORE],
  ['after-commit', 'committed', BEFORE],
]

describe('crash during a rewind (code + conversation), SIGKILLed child, then recovery', () => {
  test.each(CASES)(
    'killed %s: the intent ends %s, the files are one proven state and the branches match it',
    async (fault, intent, files) => {
      const root = tempDir()
      const dataDir = tempDir()
      writeFileSync(join(root, 'a.txt'), 'a\n')
      writeFileSync(join(root, 'b.txt'), 'b\n')
      const child = runChild(dataDir, root, fault)
      expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
      expect(child.stdout).toContain('applying')
      const state = await afterRestart(dataDir)
      expect(state.intents.map((i) => i.status)).toEqual([intent])
      expect(tree(root)).toEqual(files)
      expect(readdirSync(root).filter((n) => n.startsWith('.retrace-tmp-'))).toEqual([])
      const { session, branches } = state.transcript
      if (intent === 'committed') {
        // The conversation moved with the files: a new active branch at ROOT, the source head kept.
        expect(state.intents[0]?.effects_applied).toBe(1)
        expect(branches).toHaveLength(2)
        const active = branches.find((b) => b.branch_id === session.active_branch_id)
        expect(active?.head_node_id).toBe(session.root_node_id)
        expect(active?.parent_branch_id).toBe(branches[0]?.branch_id)
      } else {
        expect(branches).toHaveLength(1)
        expect(session.active_branch_id).toBe(branches[0]?.branch_id)
        expect(branches[0]?.head_node_id).not.toBe(session.root_node_id)
      }
    },
  )

  test('an external write in the crash window is kept: the intent is recovery_required with the exact path', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    const child = runChild(dataDir, root, 'after-publish-file@1')
    expect(child.signal).toBe('SIGKILL')
    writeFileSync(join(root, 'a.txt'), 'typed while Retrace was down\n')
    const state = await afterRestart(dataDir)
    expect(state.intents.map((i) => i.status)).toEqual(['recovery_required'])
    expect(tree(root)).toEqual({ 'a.txt': 'typed while Retrace was down\n', 'b.txt': 'BB\n' })
    const rewind = state.transactions.find(([kind]) => kind === 'rewind')
    expect(rewind?.[1]).toBe('recovery_required')
    expect(rewind?.[2]).toContain('a.txt')
    // The conversation did not move.
    expect(state.transcript.branches).toHaveLength(1)
  })

  test('killed while a failed rewind is rolled back: recovery keeps the external bytes, recovery_required', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    // The rewind restores a.txt, another program writes b.txt, publishing b.txt fails, and the
    // engine is killed while it puts a.txt back.
    const child = runChild(dataDir, root, `after-publish-file@1:external=${join(root, 'b.txt')},during-rollback`)
    expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
    const state = await afterRestart(dataDir)
    expect(tree(root)).toEqual({ 'a.txt': 'AA\n', 'b.txt': 'written by another program during the crash test\n' })
    expect(state.intents.map((i) => i.status)).toEqual(['recovery_required'])
    expect(state.transcript.branches).toHaveLength(1)
  })
})
