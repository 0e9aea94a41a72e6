// Issue 23's restore promise probed with sequences, as a person and other agent tools' test suites
// run them: "every restore lists exactly what it will write and never overwrites or drops a
// person's change"; Redo is the exact inverse of the last restore, whichever kind; a path whose
// bytes are not what the turns left blocks the restore with zero writes.
//
// Every apply goes through `applyChecked`, which proves the preview lists every path the apply
// writes (the paths changed on disk ⊆ the plan's actions and folders) and that each action's path
// holds exactly its target bytes afterwards.
import { execFileSync } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import { agentFixture, resultOf } from './support/agent'
import { startCore } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { runFaultChild } from './support/fault-child'
import { add, edit, historyHarness, okResult } from './support/history'
import { send } from './support/protocol'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

type PathState = { kind: 'absent' } | { kind: 'regular'; digest: string }
interface PlanView {
  status: 'ready' | 'blocked' | 'unavailable'
  plan_hash: string
  operation: string
  actions: Array<{ path: string; expected: PathState; target: PathState; source?: string }>
  conflicts: Array<{ path: string; reason: string; message: string; source?: string }>
  unavailable: Array<{ path: string; reason: string }>
  folders: { removed: string[]; created: string[] }
  command_held?: Array<{ path: string; reason: string }>
}
type Harness = Awaited<ReturnType<typeof historyHarness>>

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`
const ancestorsOf = (path: string) => {
  const parts = path.split('/')
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'))
}

/** The paths whose type, mode or bytes differ between two fingerprints of one tree. */
function changedPaths(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => before[p] !== after[p]).sort()
}

async function planOf(h: Harness, payload: Record<string, unknown>): Promise<PlanView> {
  return okResult<PlanView>(await h.plan(payload))
}

/**
 * Applies a ready plan and proves its preview was complete: every path that changed on disk is one
 * of its actions or folders, and every action's path holds its target bytes afterwards.
 * Decision: a parent folder made for a listed file (a Reapply or Redo writing into a folder that is
 * gone) counts as listed — the file's path names it, as a sheet row shows it.
 */
async function applyChecked(h: Harness, root: string, planned: PlanView) {
  expect(planned.status, JSON.stringify({ conflicts: planned.conflicts, unavailable: planned.unavailable })).toBe(
    'ready',
  )
  const before = treeFingerprint(root)
  const applied = okResult<{ status: string; transaction_id: string | null }>(await h.apply(planned.plan_hash))
  expect(applied.status).toBe('committed')
  const after = treeFingerprint(root)
  const listed = new Set([
    ...planned.actions.map((a) => a.path),
    ...planned.folders.removed,
    ...planned.folders.created,
  ])
  for (const action of planned.actions) {
    if (action.target.kind === 'regular') for (const folder of ancestorsOf(action.path)) listed.add(folder)
  }
  expect(changedPaths(before, after).filter((path) => !listed.has(path))).toEqual([])
  for (const action of planned.actions) {
    const abs = join(root, action.path)
    if (action.target.kind === 'absent') expect(existsSync(abs), `${action.path} absent`).toBe(false)
    else expect(sha256(readFileSync(abs)), `${action.path} bytes`).toBe(action.target.digest)
  }
  for (const folder of planned.folders.removed) expect(existsSync(join(root, folder)), folder).toBe(false)
  for (const folder of planned.folders.created) expect(existsSync(join(root, folder)), folder).toBe(true)
  return applied
}

/** A plan that must be refused: blocked with these paths, and its apply writes nothing. */
async function expectRefused(h: Harness, root: string, planned: PlanView, paths: Array<[string, string]>) {
  expect(planned.status).toBe('blocked')
  expect(planned.conflicts.map((c) => [c.path, c.reason]).sort()).toEqual([...paths].sort())
  const tree = treeFingerprint(root)
  const branches = (await h.transcript()).branches
  expect(await h.apply(planned.plan_hash)).toMatchObject({ status: 'error', error: { code: 'BLOCKED' } })
  expect(treeFingerprint(root)).toEqual(tree)
  expect((await h.transcript()).branches).toEqual(branches)
}

async function project(files: Record<string, string>) {
  const root = realpathSync(tempDir('retrace-sequences-'))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  const core = startCore()
  const h = await historyHarness(core, root)
  return { root, core, h, read: (path: string) => h.read(path) }
}

/** The person's save in Retrace's editor: a journaled human write (not the session's). */
async function personSaves(core: Core, h: Harness, path: string, to: string) {
  const current = h.read(path)
  okResult(
    await send(
      core,
      'files.write',
      { path, content: to, expected_revision: current === null ? null : sha256(Buffer.from(current)) },
      { owner: { project_id: h.project.projectId } },
    ),
  )
}

describe('Undo and Redo with the person’s edits in between', () => {
  test('undo → the person edits the file outside Retrace → redo is blocked with the diff, zero writes; once the bytes are back it goes', async () => {
    const { root, h, read } = await project({ 'a.txt': 'v0\n' })
    const t1 = await h.turn(edit('a.txt', 'v0', 'v1'))
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    expect(read('a.txt')).toBe('v0\n')

    writeFileSync(join(root, 'a.txt'), 'v0\nmine, typed in another editor\n')
    const redo = await planOf(h, { operation: 'redo' })
    // The sheet's diff of a single-turn restore, as RestorePanel asks for it (Redo expects the turn's before).
    const diff = okResult<{ diff_state: string; hunks: Array<{ lines: Array<{ kind: string; text: string }> }> }>(
      await h.call('history.conflict_diff', { turn_id: t1, path: 'a.txt', expected: 'before' }),
    )
    expect(diff.diff_state).toBe('available')
    expect(diff.hunks.flatMap((x) => x.lines.filter((l) => l.kind === 'add').map((l) => l.text))).toContain(
      'mine, typed in another editor',
    )
    await expectRefused(h, root, redo, [['a.txt', 'changed-since']])
    expect(read('a.txt')).toBe('v0\nmine, typed in another editor\n')

    // The person takes their line out again: the Redo is what it was.
    writeFileSync(join(root, 'a.txt'), 'v0\n')
    await applyChecked(h, root, await planOf(h, { operation: 'redo' }))
    expect(read('a.txt')).toBe('v1\n')
  })

  test('undo → the person edits that file → Undo of the earlier turn restores only its own file; Redo then goes back one step', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    await h.turn(edit('a.txt', 'a0', 'a1'), 'one')
    await h.turn(edit('b.txt', 'b0', 'b1'), 'two')
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    expect(read('b.txt')).toBe('b0\n')
    writeFileSync(join(root, 'b.txt'), 'b0 and mine\n')

    const older = await planOf(h, { operation: 'undo' })
    expect(older.actions.map((a) => a.path)).toEqual(['a.txt'])
    await applyChecked(h, root, older)
    expect([read('a.txt'), read('b.txt')]).toEqual(['a0\n', 'b0 and mine\n'])

    // Redo is the inverse of the last restore (the Undo of turn one), not of turn two's.
    const redo = await planOf(h, { operation: 'redo' })
    expect(redo.actions.map((a) => a.path)).toEqual(['a.txt'])
    await applyChecked(h, root, redo)
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b0 and mine\n'])
    expect(await h.plan({ operation: 'redo' })).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
  })

  test('undo → the person saves the same file in Retrace → Undo of the earlier turn that also changed it is blocked, zero writes', async () => {
    const { root, core, h, read } = await project({ 'a.txt': 'v0\n' })
    await h.turn(edit('a.txt', 'v0', 'v1'), 'one')
    await h.turn(edit('a.txt', 'v1', 'v2'), 'two')
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    await personSaves(core, h, 'a.txt', 'v1\nsaved in Retrace\n')
    await expectRefused(h, root, await planOf(h, { operation: 'undo' }), [['a.txt', 'changed-since']])
    // …and the Redo of turn two would overwrite it just as well.
    await expectRefused(h, root, await planOf(h, { operation: 'redo' }), [['a.txt', 'changed-since']])
    expect(read('a.txt')).toBe('v1\nsaved in Retrace\n')
  })

  test('undo → a new turn on another file → Redo still only puts back what the Undo wrote', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n' })
    await h.turn(edit('a.txt', 'a0', 'a1'), 'one')
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    await h.turn(add('c.txt', 'c'), 'two')
    const redo = await h.plan({ operation: 'redo' })
    // Decision (spec 04 "right after an Undo"): after another turn, Redo may be withdrawn; if it is
    // still offered it may write a.txt alone.
    if (redo.status === 'ok') {
      const planned = redo.result as PlanView
      expect(planned.actions.map((a) => a.path)).toEqual(['a.txt'])
      await applyChecked(h, root, planned)
      expect([read('a.txt'), read('c.txt')]).toEqual(['a1\n', 'c\n'])
    } else {
      expect(redo).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
    }
  })
})

describe('Rewind, then the person, then Redo or Undo', () => {
  async function threeTurns(extra: Record<string, string> = {}) {
    const p = await project({ 'a.txt': 'v0\n', ...extra })
    const t1 = await p.h.turn(edit('a.txt', 'v0', 'v1'), 'first')
    const t2 = await p.h.turn(edit('a.txt', 'v1', 'v2'), 'second')
    const t3 = await p.h.turn(edit('a.txt', 'v2', 'v3'), 'third')
    return { ...p, t1, t2, t3 }
  }

  test('code rewind → the person saves a rewound file in Retrace → Redo of the rewind is blocked, zero writes, the alignment unchanged', async () => {
    const { root, core, h, read, t2 } = await threeTurns()
    await applyChecked(h, root, await planOf(h, { operation: 'rewind', turn_id: t2, mode: 'code' }))
    expect(read('a.txt')).toBe('v1\n')
    await personSaves(core, h, 'a.txt', 'v1 and my fix\n')
    const session = (await h.transcript()).session
    await expectRefused(h, root, await planOf(h, { operation: 'redo' }), [['a.txt', 'changed-since']])
    expect((await h.transcript()).session).toEqual(session)
    expect(read('a.txt')).toBe('v1 and my fix\n')
  })

  test('code + conversation rewind → the person edits a file the rewind did not touch → Redo writes only the rewind’s files', async () => {
    const { root, h, read, t2 } = await threeTurns({ 'notes.txt': 'n0\n' })
    const source = (await h.transcript()).session.active_branch_id
    await applyChecked(h, root, await planOf(h, { operation: 'rewind', turn_id: t2 }))
    writeFileSync(join(root, 'notes.txt'), 'my notes\n')
    const redo = await planOf(h, { operation: 'redo' })
    expect(redo.actions.map((a) => a.path)).toEqual(['a.txt'])
    await applyChecked(h, root, redo)
    expect([read('a.txt'), read('notes.txt')]).toEqual(['v3\n', 'my notes\n'])
    expect((await h.transcript()).session.active_branch_id).toBe(source)
  })

  test('rewind that includes the person’s edit → Redo brings the person’s bytes back exactly', async () => {
    const { root, core, h, read, t2 } = await threeTurns()
    await personSaves(core, h, 'a.txt', 'v3\nmy own line\n')
    const blocked = await planOf(h, { operation: 'rewind', turn_id: t2, mode: 'code' })
    expect(blocked.status).toBe('blocked')
    const included = await planOf(h, { operation: 'rewind', turn_id: t2, mode: 'code', include_conflicting: ['a.txt'] })
    await applyChecked(h, root, included)
    expect(read('a.txt')).toBe('v1\n')
    await applyChecked(h, root, await planOf(h, { operation: 'redo' }))
    expect(read('a.txt')).toBe('v3\nmy own line\n')
  })

  test('rewind with include → a new turn → Undo of that turn returns to the rewound bytes; Redo forward again', async () => {
    const { root, core, h, read, t2 } = await threeTurns({ 'b.txt': 'b0\n' })
    await personSaves(core, h, 'a.txt', 'v3\nmine\n')
    await applyChecked(
      h,
      root,
      await planOf(h, { operation: 'rewind', turn_id: t2, mode: 'code', include_conflicting: ['a.txt'] }),
    )
    expect(read('a.txt')).toBe('v1\n')
    await h.turn(
      '*** Begin Patch\n*** Update File: a.txt\n-v1\n+v4\n*** Update File: b.txt\n-b0\n+b4\n*** End Patch',
      'fourth',
    )
    const undo = await planOf(h, { operation: 'undo' })
    expect(undo.actions.map((a) => a.path).sort()).toEqual(['a.txt', 'b.txt'])
    await applyChecked(h, root, undo)
    expect([read('a.txt'), read('b.txt')]).toEqual(['v1\n', 'b0\n'])
    await applyChecked(h, root, await planOf(h, { operation: 'redo' }))
    expect([read('a.txt'), read('b.txt')]).toEqual(['v4\n', 'b4\n'])
  })

  test('right after a code rewind, Undo of the newest turn (whose bytes the rewind replaced) writes nothing of the person’s', async () => {
    const { root, h, read, t2 } = await threeTurns()
    await applyChecked(h, root, await planOf(h, { operation: 'rewind', turn_id: t2, mode: 'code' }))
    const undo = await h.plan({ operation: 'undo' })
    // Turn three's file no longer holds what it left: refused (or not offered), never written.
    if (undo.status === 'ok') {
      const planned = undo.result as PlanView
      expect(planned.status).not.toBe('ready')
      const tree = treeFingerprint(root)
      expect((await h.apply(planned.plan_hash)).status).toBe('error')
      expect(treeFingerprint(root)).toEqual(tree)
    }
    expect(read('a.txt')).toBe('v1\n')
  })
})

describe('Revert and Reapply across turns that share a file', () => {
  test('revert 2 is refused while 3 changed the same file; revert 3, revert 2, reapply 3 (refused), reapply 2, reapply 3', async () => {
    const { root, h, read } = await project({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' })
    await h.turn(edit('a.txt', 'v0', 'v1'), 'one')
    const t2 = await h.turn(
      '*** Begin Patch\n*** Update File: a.txt\n-v1\n+v2\n*** Update File: b.txt\n-b0\n+b2\n*** End Patch',
      'two',
    )
    const t3 = await h.turn(edit('a.txt', 'v2', 'v3'), 'three')
    const state = () => [read('a.txt'), read('b.txt')]

    // Refused for a.txt. The reason is `changed-since` (the bytes differ from what turn two left)
    // before the `later-mutation` check is reached; either way nothing is written.
    await expectRefused(h, root, await planOf(h, { operation: 'revert', turn_id: t2 }), [['a.txt', 'changed-since']])
    expect(state()).toEqual(['v3\n', 'b2\n'])

    await applyChecked(h, root, await planOf(h, { operation: 'revert', turn_id: t3 }))
    expect(state()).toEqual(['v2\n', 'b2\n'])
    await applyChecked(h, root, await planOf(h, { operation: 'revert', turn_id: t2 }))
    expect(state()).toEqual(['v1\n', 'b0\n'])
    // Turn three's before (v2) is not on disk: reapplying it alone would drop turn one's state.
    await expectRefused(h, root, await planOf(h, { operation: 'reapply', turn_id: t3 }), [['a.txt', 'changed-since']])
    await applyChecked(h, root, await planOf(h, { operation: 'reapply', turn_id: t2 }))
    expect(state()).toEqual(['v2\n', 'b2\n'])
    await applyChecked(h, root, await planOf(h, { operation: 'reapply', turn_id: t3 }))
    expect(state()).toEqual(['v3\n', 'b2\n'])
  })

  test('revert of an older turn whose file the person edited since is refused, zero writes', async () => {
    const { root, h } = await project({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' })
    const t1 = await h.turn(edit('a.txt', 'v0', 'v1'), 'one')
    await h.turn(edit('b.txt', 'b0', 'b1'), 'two')
    writeFileSync(join(root, 'a.txt'), 'v1 plus mine\n')
    await expectRefused(h, root, await planOf(h, { operation: 'revert', turn_id: t1 }), [['a.txt', 'changed-since']])
  })
})

describe('Two sessions on one project', () => {
  test('A’s Undo is refused while B’s later turn changed the same file; B undoes, A undoes; the Redos in reverse order put both back', async () => {
    const { root, core, h: a, read } = await project({ 's.txt': 'v0\n' })
    const b = await historyHarness(core, root)
    expect(b.project.projectId).toBe(a.project.projectId)
    await a.turn(edit('s.txt', 'v0', 'A'), 'A writes')
    await b.turn(edit('s.txt', 'A', 'B'), 'B writes over it')

    const refused = await planOf(a, { operation: 'undo' })
    expect(refused.status).toBe('blocked')
    expect(refused.conflicts.map((c) => c.path)).toEqual(['s.txt'])
    const tree = treeFingerprint(root)
    expect(await a.apply(refused.plan_hash)).toMatchObject({ status: 'error', error: { code: 'BLOCKED' } })
    expect(treeFingerprint(root)).toEqual(tree)

    await applyChecked(b, root, await planOf(b, { operation: 'undo' }))
    expect(read('s.txt')).toBe('A\n')
    await applyChecked(a, root, await planOf(a, { operation: 'undo' }))
    expect(read('s.txt')).toBe('v0\n')
    // B's Redo expects what B's Undo left (A's bytes): refused until A has redone.
    await expectRefused(b, root, await planOf(b, { operation: 'redo' }), [['s.txt', 'changed-since']])
    await applyChecked(a, root, await planOf(a, { operation: 'redo' }))
    expect(read('s.txt')).toBe('A\n')
    await applyChecked(b, root, await planOf(b, { operation: 'redo' }))
    expect(read('s.txt')).toBe('B\n')
  })

  test('interleaved Undo and Redo in A and B on their own files each write only their own file', async () => {
    const { root, core, h: a, read } = await project({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    const b = await historyHarness(core, root)
    await a.turn(edit('a.txt', 'a0', 'a1'), 'A')
    await b.turn(edit('b.txt', 'b0', 'b1'), 'B')
    const state = () => [read('a.txt'), read('b.txt')]
    const undoA = await planOf(a, { operation: 'undo' })
    expect(undoA.actions.map((x) => x.path)).toEqual(['a.txt'])
    await applyChecked(a, root, undoA)
    expect(state()).toEqual(['a0\n', 'b1\n'])
    await applyChecked(b, root, await planOf(b, { operation: 'undo' }))
    expect(state()).toEqual(['a0\n', 'b0\n'])
    await applyChecked(a, root, await planOf(a, { operation: 'redo' }))
    expect(state()).toEqual(['a1\n', 'b0\n'])
    // Each session's Redo follows its own last restore, whatever the other did in between.
    await applyChecked(b, root, await planOf(b, { operation: 'redo' }))
    expect(state()).toEqual(['a1\n', 'b1\n'])
    await applyChecked(a, root, await planOf(a, { operation: 'undo' }))
    expect(state()).toEqual(['a0\n', 'b1\n'])
  })

  test('B’s rewind lists only B’s files; A’s Undo and then B’s Redo of the rewind each write only their own', async () => {
    const { root, core, h: a, read } = await project({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    const b = await historyHarness(core, root)
    const bt1 = await b.turn(edit('b.txt', 'b0', 'b1'), 'B one')
    await a.turn(edit('a.txt', 'a0', 'a1'), 'A one')
    await b.turn(edit('b.txt', 'b1', 'b2'), 'B two')
    const rewind = await planOf(b, { operation: 'rewind', turn_id: bt1 })
    expect(rewind.actions.map((x) => x.path)).toEqual(['b.txt'])
    await applyChecked(b, root, rewind)
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b0\n'])
    await applyChecked(a, root, await planOf(a, { operation: 'undo' }))
    expect([read('a.txt'), read('b.txt')]).toEqual(['a0\n', 'b0\n'])
    await applyChecked(b, root, await planOf(b, { operation: 'redo' }))
    expect([read('a.txt'), read('b.txt')]).toEqual(['a0\n', 'b2\n'])
  })
})

describe('The person deleted or renamed a file after the turn', () => {
  // Decision: a path that already holds what the restore would put there has nothing to write and
  // loses nothing of the person's — the person deleted the file the Undo would delete. The Undo goes
  // (restoring the turn's other files) and writes nothing at that path; refusing would leave the
  // person no way to undo the rest of the turn (single-turn restores have no "keep mine").
  test('a file the turn created and the person deleted: Undo restores the rest and does not recreate it', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a0\n+a1\n*** Add File: new.txt\n+new\n*** End Patch', 'one')
    rmSync(join(root, 'new.txt'))
    const undo = await planOf(h, { operation: 'undo' })
    await applyChecked(h, root, undo)
    expect([read('a.txt'), read('new.txt')]).toEqual(['a0\n', null])
  })

  test('a file the turn created and the person renamed: Undo leaves the person’s file under its new name', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a0\n+a1\n*** Add File: new.txt\n+new\n*** End Patch', 'one')
    renameSync(join(root, 'new.txt'), join(root, 'kept.txt'))
    const undo = await planOf(h, { operation: 'undo' })
    expect(undo.actions.map((a) => a.path)).not.toContain('kept.txt')
    await applyChecked(h, root, undo)
    expect([read('a.txt'), read('new.txt'), read('kept.txt')]).toEqual(['a0\n', null, 'new\n'])
  })

  test('a file the turn edited and the person renamed away: Undo is refused for that path (it would bring back a file the person moved)', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n' })
    await h.turn(edit('a.txt', 'a0', 'a1'))
    renameSync(join(root, 'a.txt'), join(root, 'moved.txt'))
    await expectRefused(h, root, await planOf(h, { operation: 'undo' }), [['a.txt', 'changed-since']])
    expect([read('a.txt'), read('moved.txt')]).toEqual([null, 'a1\n'])
  })

  test('after Undo the person typed the turn’s bytes back themselves: Redo has nothing to overwrite there and goes', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a0\n+a1\n*** Update File: b.txt\n-b0\n+b1\n*** End Patch')
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    writeFileSync(join(root, 'a.txt'), 'a1\n')
    await applyChecked(h, root, await planOf(h, { operation: 'redo' }))
    expect([read('a.txt'), read('b.txt')]).toEqual(['a1\n', 'b1\n'])
  })
})

describe('Folders a turn created, and the person', () => {
  const GEN = '*** Begin Patch\n*** Add File: gen/a/b.txt\n+b\n*** Add File: gen/c.txt\n+c\n*** End Patch'

  test('the person puts a file into the turn’s folder: Undo keeps the folder and the file; Redo makes no folder and writes only the turn’s files', async () => {
    const { root, h, read } = await project({ 'keep.txt': 'k\n' })
    await h.turn(GEN)
    writeFileSync(join(root, 'gen/a/mine.txt'), 'mine\n')
    const undo = await planOf(h, { operation: 'undo' })
    expect(undo.folders).toEqual({ removed: [], created: [] })
    await applyChecked(h, root, undo)
    expect([read('gen/a/b.txt'), read('gen/c.txt'), read('gen/a/mine.txt')]).toEqual([null, null, 'mine\n'])
    const redo = await planOf(h, { operation: 'redo' })
    expect(redo.folders).toEqual({ removed: [], created: [] })
    await applyChecked(h, root, redo)
    expect([read('gen/a/b.txt'), read('gen/c.txt'), read('gen/a/mine.txt')]).toEqual(['b\n', 'c\n', 'mine\n'])
  })

  test('Undo removed gen/; the person makes gen/ again with a file; Redo keeps it as it is, and the next Undo removes only gen/a', async () => {
    const { root, h, read } = await project({ 'keep.txt': 'k\n' })
    await h.turn(GEN)
    await applyChecked(h, root, await planOf(h, { operation: 'undo' }))
    expect(existsSync(join(root, 'gen'))).toBe(false)
    mkdirSync(join(root, 'gen'))
    writeFileSync(join(root, 'gen/mine.txt'), 'mine\n')
    const redo = await planOf(h, { operation: 'redo' })
    await applyChecked(h, root, redo)
    expect([read('gen/a/b.txt'), read('gen/c.txt'), read('gen/mine.txt')]).toEqual(['b\n', 'c\n', 'mine\n'])
    const undo = await planOf(h, { operation: 'undo' })
    expect(undo.folders.removed).toEqual(['gen/a'])
    await applyChecked(h, root, undo)
    expect(treeFingerprint(root)).toMatchObject({ 'gen/mine.txt': expect.stringMatching(/^file:/) })
    expect(existsSync(join(root, 'gen/a'))).toBe(false)
  })

  test('the person removes the turn’s folder with its files after the turn: Undo has nothing of the person’s to lose', async () => {
    const { root, h, read } = await project({ 'a.txt': 'a0\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a0\n+a1\n*** Add File: gen/a/b.txt\n+b\n*** End Patch')
    rmSync(join(root, 'gen'), { recursive: true })
    const undo = await planOf(h, { operation: 'undo' })
    await applyChecked(h, root, undo)
    expect([read('a.txt'), existsSync(join(root, 'gen'))]).toEqual(['a0\n', false])
  })
})

describe('A restore while a command of another session runs', () => {
  const fakes: FakeLlmServer[] = []
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close()
  })

  test('A’s Undo goes while B’s command runs; B’s own restore is refused (turn running); B’s Undo later never takes A’s restored file', async () => {
    const root = realpathSync(tempDir('retrace-sequences-git-'))
    const signals = tempDir('retrace-sequences-signals-')
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    git('init', '-q', '-b', 'main')
    writeFileSync(join(root, 'a.txt'), 'a0\n')
    writeFileSync(join(root, 'b.txt'), 'b0\n')
    git('add', '-A')
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')

    const llm = await startFakeOpenAI()
    fakes.push(llm)
    const release = join(signals, 'release')
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          { text: 'B writes a file.' },
          { toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'bnew.txt', content: 'b1\n' } }] },
        ],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              {
                id: 'c1',
                name: 'bash',
                input: {
                  command: `echo gen > made.txt && while [ ! -e ${release} ]; do sleep 0.02; done && echo late > late.txt`,
                  timeout_ms: 20_000,
                },
              },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    // Session B is the agent's; session A is driven by the in-process turn API on the same engine.
    const agentB = await agentFixture(root, llm, { mode: 'auto' })
    const a = await historyHarness(agentB.core, root)
    await a.turn(edit('a.txt', 'a0', 'a1'), 'A edits a.txt')

    const turnB = await agentB.prompt('B works')
    for (let i = 0; i < 1_000 && !existsSync(join(root, 'made.txt')); i++) await new Promise((r) => setTimeout(r, 10))
    expect(existsSync(join(root, 'made.txt'))).toBe(true)

    // B's own turn is running: its restores are refused with the reason, nothing written.
    const ownB = resultOf(await agentB.session('history.plan', { operation: 'revert', turn_id: turnB })) as PlanView
    expect(ownB.conflicts.map((c) => c.reason)).toContain('turn-running')
    const tree = treeFingerprint(root)
    expect(await agentB.session('history.apply', { plan_hash: ownB.plan_hash })).toMatchObject({
      status: 'error',
      error: { code: 'BLOCKED' },
    })
    expect(treeFingerprint(root)).toEqual(tree)

    // Decision: another session's running command does not hold the workspace lock, and A's Undo
    // writes only A's own file (checked under the lock), so it goes rather than waiting for a
    // command that may run for minutes; B's turn then shows a.txt as not its commands' change.
    const undoA = await planOf(a, { operation: 'undo' })
    expect(undoA.actions.map((x) => x.path)).toEqual(['a.txt'])
    await applyChecked(a, root, undoA)
    expect(a.read('a.txt')).toBe('a0\n')

    writeFileSync(release, '')
    const finished = (await agentB.finished(turnB)) as unknown as {
      summary: { command_files?: number; command_held?: Array<{ reason: string; files: number }> }
    }
    expect(finished.summary).toMatchObject({ command_files: 2, command_held: [{ reason: 'person', files: 1 }] })

    const undoB = resultOf(
      await agentB.session('history.plan', { operation: 'undo', turn_id: turnB, include_commands: true }),
    ) as PlanView
    expect(undoB.actions.map((x) => x.path).sort()).toEqual(['bnew.txt', 'late.txt', 'made.txt'])
    expect(undoB.command_held).toEqual([{ path: 'a.txt', reason: 'person' }])
    const before = treeFingerprint(root)
    resultOf(await agentB.session('history.apply', { plan_hash: undoB.plan_hash }))
    expect(changedPaths(before, treeFingerprint(root))).toEqual(['bnew.txt', 'late.txt', 'made.txt'])
    expect([a.read('a.txt'), a.read('bnew.txt'), a.read('made.txt'), a.read('late.txt')]).toEqual([
      'a0\n',
      null,
      null,
      null,
    ])
    // A's Redo is unaffected by B's restore of other files.
    await applyChecked(a, root, await planOf(a, { operation: 'redo' }))
    expect(a.read('a.txt')).toBe('a1\n')
  })
})

describe('Redo of an Undo that included command-made files', () => {
  const fakes: FakeLlmServer[] = []
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close()
  })

  test('the person makes side.txt again after the Undo deleted it: Redo is blocked with the diff the sheet asks for, zero writes', async () => {
    const root = realpathSync(tempDir('retrace-sequences-git-'))
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    git('init', '-q', '-b', 'main')
    writeFileSync(join(root, 'keep.txt'), 'keep\n')
    git('add', '-A')
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          { toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'echo side > side.txt', timeout_ms: 20_000 } }] },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('make side.txt')
    await agent.finished(turnId)
    const undo = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as PlanView
    expect(undo.actions.map((a) => a.path)).toEqual(['side.txt'])
    resultOf(await agent.session('history.apply', { plan_hash: undo.plan_hash }))
    expect(existsSync(join(root, 'side.txt'))).toBe(false)

    writeFileSync(join(root, 'side.txt'), 'my own side notes\n')
    const redo = resultOf(await agent.session('history.plan', { operation: 'redo' })) as PlanView
    expect(redo.status).toBe('blocked')
    expect(redo.conflicts.map((c) => [c.path, c.reason])).toEqual([['side.txt', 'changed-since']])
    const tree = treeFingerprint(root)
    expect(await agent.session('history.apply', { plan_hash: redo.plan_hash })).toMatchObject({
      status: 'error',
      error: { code: 'BLOCKED' },
    })
    expect(treeFingerprint(root)).toEqual(tree)
    // The Undo/Redo sheet asks for a conflict's diff by its plan (RestorePanel): for a file only a
    // command made, that must still say what stands in the way.
    const diff = await agent.session('history.conflict_diff', { plan_hash: redo.plan_hash, path: 'side.txt' })
    expect(diff, JSON.stringify(diff)).toMatchObject({
      status: 'ok',
      result: { expected_kind: 'absent', current_kind: 'file' },
    })
  })
})

describe('crash mid-restore, then an outside edit, then restart', () => {
  test('killed after the Undo restored a.txt; the person edits b.txt (not yet restored); recovery puts a.txt back and keeps b.txt; the next Undo is refused', async () => {
    const root = realpathSync(tempDir('retrace-sequences-crash-'))
    const dataDir = tempDir('retrace-sequences-data-')
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    // restore-child.mts: one turn a→A, b→B, then an Undo killed at the named phase.
    const child = runFaultChild('restore-child.mts', dataDir, root, 'after-publish-file@1')
    expect(child.signal, `${child.stdout}\n${child.stderr}`).toBe('SIGKILL')
    expect([readFileSync(join(root, 'a.txt'), 'utf8'), readFileSync(join(root, 'b.txt'), 'utf8')]).toEqual([
      'a\n',
      'B\n',
    ])
    writeFileSync(join(root, 'b.txt'), 'B and mine, while Retrace was down\n')

    const core = startCore({ dataDir })
    await core.ready
    const projects = okResult<{ projects: Array<{ project_id: string }> }>(await send(core, 'project.list', {}))
    const projectId = projects.projects[0]?.project_id ?? ''
    const sessions = okResult<{ sessions: Array<{ session_id: string }> }>(
      await send(core, 'session.list', {}, { owner: { project_id: projectId } }),
    )
    const owner = { project_id: projectId, session_id: sessions.sessions[0]?.session_id ?? '' }
    // Spec 04 step 5: what still holds the restore's bytes goes back, the person's bytes stay, and
    // the restore says it needs a look (recovery_required) rather than standing half-applied.
    expect([readFileSync(join(root, 'a.txt'), 'utf8'), readFileSync(join(root, 'b.txt'), 'utf8')]).toEqual([
      'A\n',
      'B and mine, while Retrace was down\n',
    ])
    const receipts = okResult<{ transactions: Array<{ kind: string; status: string }> }>(
      await send(core, 'journal.transactions', {}, { owner: { project_id: projectId } }),
    ).transactions
    expect(receipts.map((r) => [r.kind, r.status])).toEqual([
      ['edit', 'committed'],
      ['revert', 'recovery_required'],
    ])
    const plan = okResult<PlanView>(await send(core, 'history.plan', { operation: 'undo' }, { owner }))
    expect(plan.status).toBe('blocked')
    expect(plan.conflicts.map((c) => [c.path, c.reason])).toEqual([['b.txt', 'changed-since']])
    const tree = treeFingerprint(root)
    expect(
      await send(core, 'history.apply', { plan_hash: plan.plan_hash }, { owner, key: randomUUID() }),
    ).toMatchObject({
      status: 'error',
      error: { code: 'BLOCKED' },
    })
    expect(treeFingerprint(root)).toEqual(tree)
    // The killed Undo never committed: there is nothing to redo.
    expect(await send(core, 'history.plan', { operation: 'redo' }, { owner })).toMatchObject({
      status: 'error',
      error: { code: 'UNAVAILABLE' },
    })
  })
})
