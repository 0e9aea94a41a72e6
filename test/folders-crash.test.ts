import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { createCore } from '../src/main/core'
import type { FaultPhase } from '../src/main/core/journal'
import { startCore, testHost } from './support/core'
import { runFaultChild } from './support/fault-child'
import { historyHarness, okResult } from './support/history'
import { send } from './support/protocol'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

const GEN = '*** Begin Patch\n*** Add File: gen/a/b.txt\n+b\n*** Add File: gen/c.txt\n+c\n*** End Patch'

/** Every entry under `root` (folders end in "/"), for comparing trees by shape and content. */
function tree(root: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(treeFingerprint(root)).map(([path, value]) =>
      value.startsWith('dir:') ? [`${path}/`, 'dir'] : [path, readFileSync(join(root, path), 'utf8')],
    ),
  )
}

const TURN_LEFT = { 'gen/': 'dir', 'gen/a/': 'dir', 'gen/a/b.txt': 'b\n', 'gen/c.txt': 'c\n' }

describe('a crash while a patch creates folders: recovery leaves none of them behind', () => {
  const CASES: Array<[string, 'aborted' | 'rolled_back']> = [
    // Killed with gen/ and gen/a/ made and a temp file in gen/a/: nothing of the patch is published.
    ['after-temp-write@1', 'aborted'],
    // Killed with gen/a/b.txt published: it is put back (removed), then the folders go.
    ['after-publish-file@1', 'rolled_back'],
    ['after-temp-write@2', 'rolled_back'],
  ]
  test.each(CASES)('killed %s: restart settles it %s and gen/ is gone', async (fault, expected) => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'keep.txt'), 'keep\n')
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'crash-patch-child.mts'), dataDir, root, GEN],
      { env: { ...process.env, RETRACE_FAULT: fault }, encoding: 'utf8', timeout: 60_000 },
    )
    expect(child.signal, child.stderr).toBe('SIGKILL')
    expect(existsSync(join(root, 'gen/a'))).toBe(true)
    const core = startCore({ dataDir })
    const report = await core.ready
    expect(report[expected]).toHaveLength(1)
    expect(tree(root)).toEqual({ 'keep.txt': 'keep\n' })
  })

  test('a folder the person filled while Retrace was down is kept, with what they put there', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'crash-patch-child.mts'), dataDir, root, GEN],
      { env: { ...process.env, RETRACE_FAULT: 'after-publish-file@1' }, encoding: 'utf8', timeout: 60_000 },
    )
    expect(child.signal, child.stderr).toBe('SIGKILL')
    writeFileSync(join(root, 'gen/mine.txt'), 'mine\n')
    const core = startCore({ dataDir })
    expect((await core.ready).rolled_back).toHaveLength(1)
    expect(tree(root)).toEqual({ 'gen/': 'dir', 'gen/mine.txt': 'mine\n' })
  })
})

describe('a crash during an Undo that removes folders (the folders are the last steps of its transaction)', () => {
  // Publish order: gen/a/b.txt, gen/c.txt, then the folders gen/a, gen (deepest first).
  const CASES: Array<[string, 'committed' | 'rolled_back', Record<string, string>]> = [
    ['after-publish-file@1', 'rolled_back', TURN_LEFT],
    // Every file is gone but no folder yet: all or nothing, so the files come back.
    ['after-publish-file@2', 'rolled_back', TURN_LEFT],
    // gen/a is removed, gen not yet: recovery makes gen/a again before putting the files back.
    ['after-publish-file@3', 'rolled_back', TURN_LEFT],
    ['after-publish-file@4', 'committed', {}],
    ['before-commit', 'committed', {}],
  ]
  test.each(CASES)(
    'killed %s: the intent ends %s; files and folders are exactly one state',
    async (fault, intent, files) => {
      const root = tempDir()
      const dataDir = tempDir()
      writeFileSync(join(root, 'keep.txt'), 'keep\n')
      const child = runFaultChild('folders-restore-child.mts', dataDir, root, fault)
      expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
      expect(child.stdout).toContain('applying')
      const core = startCore({ dataDir })
      await core.ready
      const { DatabaseSync } = await import('node:sqlite')
      const raw = new DatabaseSync(join(dataDir, 'retrace.db'))
      const intents = raw.prepare('SELECT status FROM restore_intents').all() as Array<{ status: string }>
      raw.close()
      expect(intents.map((i) => i.status)).toEqual([intent])
      expect(tree(root)).toEqual({ 'keep.txt': 'keep\n', ...files })
      expect(readdirSync(root).filter((name) => name.startsWith('.retrace-tmp-'))).toEqual([])
    },
  )

  test('killed after gen/a was removed, then the person made gen/a again with a file: nothing of theirs is touched', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    const child = runFaultChild('folders-restore-child.mts', dataDir, root, 'after-publish-file@3')
    expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
    mkdirSync(join(root, 'gen/a'))
    writeFileSync(join(root, 'gen/a/mine.txt'), 'mine\n')
    const core = startCore({ dataDir })
    const report = await core.ready
    expect(report.recovery_required).toHaveLength(1)
    // The Undo never committed: its files go back (spec 04 step 5, into the folder the person
    // made), the person's file and folder stay, and the restore is recovery_required.
    expect(tree(root)).toEqual({
      'gen/': 'dir',
      'gen/a/': 'dir',
      'gen/a/b.txt': 'b\n',
      'gen/a/mine.txt': 'mine\n',
      'gen/c.txt': 'c\n',
    })
  })
})

describe('an Undo that fails after removing a folder is rolled back whole', () => {
  test('a file another program drops into gen/ just before it goes: CONFLICT, files and folders back, theirs kept', async () => {
    const root = tempDir()
    let armed = false
    let published = 0
    const fault = (phase: FaultPhase) => {
      if (!armed || phase !== 'after-publish-file') return
      // The third step removed gen/a; before gen goes, another program writes into it.
      if (++published === 3) writeFileSync(join(root, 'gen/x.txt'), 'theirs\n')
    }
    const core = createCore({
      dataDir: tempDir('retrace-data-'),
      host: testHost(),
      agent: { env: {}, ollamaUrl: null },
      fault,
    })
    try {
      const h = await historyHarness(core, root)
      await h.turn(GEN)
      const planned = okResult<{ plan_hash: string; folders: { removed: string[] } }>(
        await h.plan({ operation: 'undo' }),
      )
      expect(planned.folders.removed).toEqual(['gen/a', 'gen'])
      armed = true
      const applied = await h.apply(planned.plan_hash, randomUUID())
      expect(applied).toMatchObject({ status: 'error', error: { code: 'CONFLICT', details: { path: 'gen' } } })
      expect(tree(root)).toEqual({ ...TURN_LEFT, 'gen/x.txt': 'theirs\n' })
      const listed = await send(core, 'journal.transactions', {}, { owner: { project_id: h.project.projectId } })
      const kinds = okResult<{ transactions: Array<{ kind: string; status: string }> }>(listed).transactions
      expect(kinds.map((t) => [t.kind, t.status])).toEqual([
        ['edit', 'committed'],
        ['revert', 'rolled_back'],
      ])
    } finally {
      core.dispose()
    }
  })
})
