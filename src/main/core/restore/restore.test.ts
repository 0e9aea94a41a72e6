import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sendUntyped } from '../../../../test/support/protocol'
import { describe, expect, test } from 'vitest'
import { openProject, startCore } from '../../../../test/support/core'
import { tempDir } from '../../../../test/support/temp'
import { treeFingerprint } from '../../../../test/support/tree'
import { planApplyPatch } from '../journal'
import { digestOf } from '../store'
import { parseKnownEvent } from '../../../shared/protocol'
import { send } from '../../../../test/support/protocol'

async function setup(files: Record<string, string>) {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content)
  const core = startCore()
  const project = await openProject(core, root)
  const created = await project.call('session.create', {})
  const sessionId = (created as { result: { session_id: string } }).result.session_id
  const owner = { project_id: project.projectId, session_id: sessionId }
  const call = (action: string, payload: unknown, key?: string) =>
    sendUntyped(core, action, payload, { owner, ...(key ? { key } : {}) })
  /** One finished turn that applies `patch`. */
  const turn = async (patch: string) => {
    const begun = await core.turns.begin(project.projectId, sessionId, 'do it')
    if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun))
    const applied = await core.turns.mutate(project.projectId, begun.result, (context) =>
      planApplyPatch(context, patch),
    )
    if (applied.kind !== 'ok') throw new Error(JSON.stringify(applied))
    await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
    return begun.result.turn_id
  }
  const plan = async (operation: string, turnId?: string) => {
    const response = await call('history.plan', turnId ? { operation, turn_id: turnId } : { operation })
    return response
  }
  const planAndApply = async (operation: string, turnId?: string) => {
    const planned = await plan(operation, turnId)
    if (planned.status !== 'ok') return planned
    return call('history.apply', { plan_hash: (planned.result as { plan_hash: string }).plan_hash }, randomUUID())
  }
  const read = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : null)
  return { root, core, project, sessionId, call, turn, plan, planAndApply, read }
}

const PATCH = [
  '*** Begin Patch',
  '*** Update File: keep.txt',
  '-v1',
  '+v2',
  '*** Add File: new.txt',
  '+fresh',
  '*** Delete File: doomed.txt',
  '*** Update File: old-name.txt',
  '*** Move to: new-name.txt',
  '*** End Patch',
].join('\n')

describe('undo and redo', () => {
  test('undo restores every file of the turn — modified, created, deleted, renamed — and redo re-applies it', async () => {
    const h = await setup({ 'keep.txt': 'v1\n', 'doomed.txt': 'bye\n', 'old-name.txt': 'moving\n' })
    const original = treeFingerprint(h.root)
    await h.turn(PATCH)
    const after = treeFingerprint(h.root)

    const planned = await h.plan('undo')
    expect(planned).toMatchObject({
      status: 'ok',
      result: { status: 'ready', operation: 'undo', conflicts: [], impact: { files: 5 } },
    })
    // Planning is read-only.
    expect(treeFingerprint(h.root)).toEqual(after)

    const undone = await h.call(
      'history.apply',
      { plan_hash: (planned as { result: { plan_hash: string } }).result.plan_hash },
      randomUUID(),
    )
    expect(undone).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(treeFingerprint(h.root)).toEqual(original)

    expect(await h.planAndApply('redo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(treeFingerprint(h.root)).toEqual(after)

    const receipts = await h.project.call('journal.transactions', {})
    const kinds = (
      receipts as { result: { transactions: Array<{ kind: string; status: string }> } }
    ).result.transactions.map((t) => [t.kind, t.status])
    expect(kinds).toEqual([
      ['edit', 'committed'],
      ['revert', 'committed'],
      ['reapply', 'committed'],
    ])
  })

  test('undo of a created file deletes it only while its digest still matches; otherwise BLOCKED with zero writes', async () => {
    const h = await setup({})
    await h.turn('*** Begin Patch\n*** Add File: notes.md\n+draft\n*** End Patch')
    writeFileSync(join(h.root, 'notes.md'), 'the user kept typing\n')
    const before = treeFingerprint(h.root)
    const planned = await h.plan('undo')
    expect(planned).toMatchObject({
      status: 'ok',
      result: { status: 'blocked', conflicts: [{ path: 'notes.md', reason: 'changed-since' }] },
    })
    const applied = await h.call(
      'history.apply',
      { plan_hash: (planned as { result: { plan_hash: string } }).result.plan_hash },
      randomUUID(),
    )
    expect(applied).toMatchObject({
      status: 'error',
      error: { code: 'BLOCKED', details: { conflicts: [{ path: 'notes.md' }] } },
    })
    expect(treeFingerprint(h.root)).toEqual(before)
    expect(h.read('notes.md')).toBe('the user kept typing\n')
  })

  test('apply re-checks: an external write since the preview is BLOCKED, a journal change is STALE_PLAN; nothing is written', async () => {
    const h = await setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    const hashOf = (planned: unknown) => (planned as { result: { plan_hash: string } }).result.plan_hash

    const first = await h.plan('undo')
    writeFileSync(join(h.root, 'a.txt'), 'someone else\n')
    expect(await h.call('history.apply', { plan_hash: hashOf(first) }, randomUUID())).toMatchObject({
      status: 'error',
      error: { code: 'BLOCKED', details: { conflicts: [{ path: 'a.txt', reason: 'changed-since' }] } },
    })
    expect(h.read('a.txt')).toBe('someone else\n')

    writeFileSync(join(h.root, 'a.txt'), 'A\n')
    const second = await h.plan('undo')
    // The workspace revision moves when any trusted change commits, even to another file.
    await send(
      h.core,
      'files.write',
      { path: 'b.txt', content: 'b2\n', expected_revision: digestOf(Buffer.from('b\n')) },
      { owner: { project_id: h.project.projectId } },
    )
    expect(await h.call('history.apply', { plan_hash: hashOf(second) }, randomUUID())).toMatchObject({
      error: { code: 'STALE_PLAN' },
    })
    expect(h.read('a.txt')).toBe('A\n')
    expect(await h.call('history.apply', { plan_hash: 'f'.repeat(64) }, randomUUID())).toMatchObject({
      error: { code: 'STALE_PLAN' },
    })
  })

  test('apply is idempotent: the same key replays the intent, it never restores twice', async () => {
    const h = await setup({ 'a.txt': 'a\n' })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    const planned = await h.plan('undo')
    const key = randomUUID()
    const hash = (planned as { result: { plan_hash: string } }).result.plan_hash
    const first = await h.call('history.apply', { plan_hash: hash }, key)
    const again = await h.call('history.apply', { plan_hash: hash }, key)
    expect(again).toMatchObject({ status: 'ok', result: first.status === 'ok' ? first.result : {} })
    const receipts = await h.project.call('journal.transactions', {})
    expect((receipts as { result: { transactions: unknown[] } }).result.transactions).toHaveLength(2)
  })

  test('undo and redo are offered only when spec 04 says so', async () => {
    const h = await setup({ 'a.txt': 'a\n' })
    expect(await h.plan('undo')).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    expect(await h.plan('redo')).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
    await h.planAndApply('undo')
    expect(await h.plan('undo')).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
    expect(await h.call('history.plan', { operation: 'rewind' })).toMatchObject({ error: { code: 'INVALID_REQUEST' } })
  })
})

describe('revert and reapply', () => {
  test('revert restores just one historical turn and keeps later turns; reapply brings it back', async () => {
    const h = await setup({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const first = await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    await h.turn('*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** End Patch')
    expect(await h.planAndApply('revert', first)).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect([h.read('a.txt'), h.read('b.txt')]).toEqual(['a\n', 'B\n'])
    expect(await h.planAndApply('reapply', first)).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect([h.read('a.txt'), h.read('b.txt')]).toEqual(['A\n', 'B\n'])
  })

  test('revert is blocked while a later turn changed the same file, and writes nothing', async () => {
    const h = await setup({ 'a.txt': 'a\n' })
    const first = await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    await h.turn('*** Begin Patch\n*** Update File: a.txt\n-A\n+AA\n*** End Patch')
    const before = treeFingerprint(h.root)
    const planned = await h.plan('revert', first)
    expect(planned).toMatchObject({ status: 'ok', result: { status: 'blocked' } })
    const reasons = (planned as { result: { conflicts: Array<{ reason: string }> } }).result.conflicts.map(
      (c) => c.reason,
    )
    expect(reasons.some((r) => r === 'changed-since' || r === 'later-mutation')).toBe(true)
    expect(treeFingerprint(h.root)).toEqual(before)
  })

  test('a turn whose receipts are not exact is UNAVAILABLE for code restore', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(4096))
    // A core whose recovery budget is tiny: the before-blob of a 4 KiB file is not kept.
    const { createCore } = await import('..')
    const { testHost } = await import('../../../../test/support/core')
    const small = createCore({ dataDir: tempDir(), host: testHost(), journalLimits: { recoveryBudgetBytes: 1024 } })
    try {
      const project = await openProject(small, root)
      const created = await project.call('session.create', {})
      const sessionId = (created as { result: { session_id: string } }).result.session_id
      const begun = await small.turns.begin(project.projectId, sessionId, 'grow it')
      if (begun.kind !== 'ok') throw new Error('no turn')
      await small.turns.mutate(project.projectId, begun.result, (context) =>
        planApplyPatch(context, `*** Begin Patch\n*** Update File: big.txt\n-${'x'.repeat(4096)}\n+y\n*** End Patch`),
      )
      await small.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
      const planned = await send(
        small,
        'history.plan',
        { operation: 'undo' },
        { owner: { project_id: project.projectId, session_id: sessionId } },
      )
      expect(planned).toMatchObject({
        status: 'ok',
        result: { status: 'unavailable', unavailable: [{ path: 'big.txt', reason: 'over-recovery-budget' }] },
      })
    } finally {
      small.dispose()
    }
  })
})

describe('progress of a large restore', () => {
  test('apply streams intent.progress for preflight and apply, ending at done = total', async () => {
    const files = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f${i}.txt`, `${i}\n`]))
    const h = await setup(files)
    const patch = [
      '*** Begin Patch',
      ...Array.from({ length: 250 }, (_, i) => [`*** Update File: f${i}.txt`, `-${i}`, `+${i}!`]).flat(),
      '*** End Patch',
    ].join('\n')
    await h.turn(patch)
    const progress: Array<{ phase: string; done: number; total: number }> = []
    const subscription = h.core.onEvent((frame) => {
      const known = parseKnownEvent(frame)
      if (known?.event === 'intent.progress') progress.push(known.data)
    })
    expect(await h.planAndApply('undo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    subscription.dispose()
    expect(progress.filter((p) => p.phase === 'preflight').map((p) => p.done)).toEqual([0, 100, 200, 250])
    expect(progress.filter((p) => p.phase === 'apply').map((p) => [p.done, p.total])).toEqual([
      [100, 250],
      [200, 250],
      [250, 250],
    ])
    expect(h.read('f7.txt')).toBe('7\n')
  })
})

describe('a turn with more transactions than one receipt page', () => {
  test('undo and the turn summary see all 1 005 of them, not the first 1 000', async () => {
    const { planWrite } = await import('../journal')
    const h = await setup({})
    const begun = await h.core.turns.begin(h.project.projectId, h.sessionId, 'create many files one by one')
    if (begun.kind !== 'ok') throw new Error('no turn')
    for (let i = 0; i < 1005; i++) {
      const written = await h.core.turns.mutate(h.project.projectId, begun.result, (context) =>
        planWrite(context, { path: `f${i}.txt`, source: { content: Buffer.from(`${i}\n`) }, expected: null }),
      )
      if (written.kind !== 'ok') throw new Error(JSON.stringify(written))
    }
    const finished = await h.core.turns.finalize(h.project.projectId, begun.result, { parts: [], status: 'complete' })
    expect(finished).toMatchObject({
      result: { summary: { files: 1005, transactions: 1005, added: 1005, removed: 0 } },
    })
    expect(await h.plan('undo')).toMatchObject({ result: { status: 'ready', impact: { files: 1005 } } })
    expect(await h.planAndApply('undo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect([h.read('f0.txt'), h.read('f1004.txt')]).toEqual([null, null])
  }, 120_000)
})

describe('restores of the same turn compose', () => {
  test('undo → redo → revert of one turn is allowed: its own restores are not "later changes"', async () => {
    const h = await setup({ 'x.ts': 'one\n' })
    const turnId = await h.turn(
      ['*** Begin Patch', '*** Update File: x.ts', '-one', '+two', '*** End Patch'].join('\n'),
    )
    expect(await h.planAndApply('undo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('one\n')
    expect(await h.planAndApply('redo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('two\n')
    const revert = await h.plan('revert', turnId)
    expect(revert).toMatchObject({ status: 'ok', result: { status: 'ready', conflicts: [] } })
    expect(await h.planAndApply('revert', turnId)).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('one\n')
    expect(await h.planAndApply('reapply', turnId)).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('two\n')
  })

  test('a later turn that was undone no longer blocks reverting an earlier one; one that stands still does', async () => {
    const h = await setup({ 'x.ts': 'a\n' })
    const first = await h.turn(['*** Begin Patch', '*** Update File: x.ts', '-a', '+b', '*** End Patch'].join('\n'))
    await h.turn(['*** Begin Patch', '*** Update File: x.ts', '-b', '+c', '*** End Patch'].join('\n'))
    const blocked = await h.plan('revert', first)
    expect(blocked).toMatchObject({ result: { status: 'blocked', conflicts: [{ path: 'x.ts' }] } })
    expect(await h.planAndApply('undo')).toMatchObject({ result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('b\n')
    expect(await h.planAndApply('revert', first)).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(h.read('x.ts')).toBe('a\n')
  })
})

describe('Review marks an undone turn (issue 23 item 14)', () => {
  test('This turn’s rows carry undone after an Undo, and lose it after the Redo', async () => {
    const h = await setup({ 'a.txt': 'a\n' })
    const turnId = await h.turn(
      '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: gen/b.txt\n+b\n*** End Patch',
    )
    const rows = async () =>
      (
        (await h.call('review.files', { scope: 'turn', turn_id: turnId })) as {
          result: { files: Array<{ path: string; undone?: boolean }> }
        }
      ).result.files.map((f) => [f.path, f.undone === true])
    expect(await rows()).toEqual([
      ['a.txt', false],
      ['gen/b.txt', false],
    ])
    expect(await h.planAndApply('undo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(await rows()).toEqual([
      ['a.txt', true],
      ['gen/b.txt', true],
    ])
    expect(await h.planAndApply('redo')).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(await rows()).toEqual([
      ['a.txt', false],
      ['gen/b.txt', false],
    ])
  })
})

describe('history.plan is one planner with two kinds of answer (issue 24)', () => {
  test('a turn card restore answers kind "turn", a rewind kind "rewind", each with its own fields only', async () => {
    const h = await setup({ 'a.txt': 'a\n' })
    const turnId = await h.turn('*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** End Patch')
    const undo = await h.plan('undo')
    expect(undo).toMatchObject({ status: 'ok', result: { kind: 'turn', operation: 'undo', turn_id: turnId } })
    expect(Object.keys((undo as { result: object }).result)).not.toContain('mode')
    const rewind = await h.call('history.plan', { operation: 'rewind', turn_id: turnId, mode: 'code' })
    expect(rewind).toMatchObject({
      status: 'ok',
      result: { kind: 'rewind', operation: 'rewind', mode: 'code', boundary: 'before_turn', kept: [] },
    })
    expect(Object.keys((rewind as { result: object }).result)).not.toContain('command_held')
    // The Redo of a Rewind is the multi-turn inverse, so it answers as a rewind.
    const applied = await h.call(
      'history.apply',
      { plan_hash: (rewind as { result: { plan_hash: string } }).result.plan_hash },
      randomUUID(),
    )
    expect(applied).toMatchObject({ status: 'ok', result: { status: 'committed' } })
    expect(await h.plan('redo')).toMatchObject({ status: 'ok', result: { kind: 'rewind', operation: 'redo' } })
  })
})
