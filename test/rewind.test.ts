import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { createCore, type Core } from '../src/main/core'
import { startCore, testHost } from './support/core'
import { add, edit, historyHarness, okResult, type BranchView } from './support/history'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'
import { send } from './support/protocol'
import { digestOf } from '../src/main/core/store'

const extra: Core[] = []
afterEach(() => {
  for (const core of extra.splice(0)) core.dispose()
})

function withoutGit(tree: Record<string, string>) {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => path !== '.git' && !path.startsWith('.git/')))
}

async function threeTurns(files: Record<string, string> = { 'a.txt': 'v0\n' }) {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content)
  const core = startCore()
  const h = await historyHarness(core, root)
  const t1 = await h.turn(edit('a.txt', 'v0', 'v1'), 'first: make it v1')
  const t2 = await h.turn(edit('a.txt', 'v1', 'v2'), 'second: make it v2')
  const t3 = await h.turn(edit('a.txt', 'v2', 'v3'), 'third: make it v3')
  return { root, core, h, t1, t2, t3 }
}

describe('multi-turn rewind (code + conversation)', () => {
  test('one file changed in three turns, rewound to before the first: original bytes, one action, a new branch at ROOT', async () => {
    const { root, h, t1 } = await threeTurns()
    const before = await h.transcript()
    const source = before.branches[0] as BranchView
    const planned = okResult<{
      status: string
      actions: Array<{ path: string }>
      impact: { files: number; turns: number; branch: { outcome: string; head_is_root: boolean } }
      prompt_text: string
      plan_hash: string
    }>(await h.plan({ operation: 'rewind', turn_id: t1, boundary: 'before_turn', mode: 'code_and_conversation' }))
    expect(planned.status).toBe('ready')
    expect(planned.actions).toHaveLength(1)
    expect(planned.impact).toMatchObject({ files: 1, turns: 3, branch: { outcome: 'new_branch', head_is_root: true } })
    expect(planned.prompt_text).toBe('first: make it v1')
    // Planning is read-only.
    expect(h.read('a.txt')).toBe('v3\n')

    const applied = okResult<{ status: string; branch_id: string; prompt_text: string }>(
      await h.apply(planned.plan_hash),
    )
    expect(applied).toMatchObject({ status: 'committed', prompt_text: 'first: make it v1' })
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v0\n')

    const after = await h.transcript()
    const target = after.branches.find((b) => b.branch_id === applied.branch_id) as BranchView
    expect(after.session.active_branch_id).toBe(applied.branch_id)
    expect(target.head_node_id).toBe(after.session.root_node_id)
    expect(target.parent_branch_id).toBe(source.branch_id)
    // The source head never moves; its writer epoch is bumped so stale work cannot write to it.
    const sourceAfter = after.branches.find((b) => b.branch_id === source.branch_id) as BranchView
    expect(sourceAfter.head_node_id).toBe(source.head_node_id)
    expect(sourceAfter.head_version).toBe(source.head_version)
    expect(sourceAfter.writer_epoch).toBe(source.writer_epoch + 1)
    expect(after.session.alignment.state).toBe('aligned')

    const receipts = okResult<{ transactions: Array<{ kind: string; status: string; files: unknown[] }> }>(
      await h.project.call('journal.transactions', {}),
    ).transactions
    expect(receipts.map((r) => [r.kind, r.status])).toEqual([
      ['edit', 'committed'],
      ['edit', 'committed'],
      ['edit', 'committed'],
      ['rewind', 'committed'],
    ])
    expect(receipts[3]?.files).toHaveLength(1)
  })

  test('rewind then redo: one step forward moves the head and the files, the last step returns to the source', async () => {
    const { h, t2, t3 } = await threeTurns()
    const source = (await h.transcript()).branches[0] as BranchView
    const rewound = await h.rewind({ turn_id: t2 })
    expect(h.read('a.txt')).toBe('v1\n')

    const step = okResult<{ plan_hash: string; impact: { branch: { outcome: string } }; turn_id: string }>(
      await h.plan({ operation: 'unrewind' }),
    )
    expect(step.impact.branch.outcome).toBe('move_forward')
    expect(step.turn_id).toBe(t2)
    okResult(await h.apply(step.plan_hash))
    expect(h.read('a.txt')).toBe('v2\n')
    let view = await h.transcript()
    expect(view.session.active_branch_id).toBe(rewound.branch_id)
    expect(view.branches.find((b) => b.branch_id === rewound.branch_id)?.head_node_id).toBe(t2)

    const last = okResult<{ plan_hash: string; impact: { branch: { outcome: string } } }>(
      await h.plan({ operation: 'unrewind' }),
    )
    expect(last.impact.branch.outcome).toBe('return_to_source')
    okResult(await h.apply(last.plan_hash))
    expect(h.read('a.txt')).toBe('v3\n')
    view = await h.transcript()
    expect(view.session.active_branch_id).toBe(source.branch_id)
    expect(view.branches.find((b) => b.branch_id === source.branch_id)?.head_node_id).toBe(t3)
    expect(view.branches.find((b) => b.branch_id === rewound.branch_id)?.archived).toBe(true)
    // Nothing left to redo.
    expect(await h.plan({ operation: 'unrewind' })).toMatchObject({
      status: 'error',
      error: { code: 'UNAVAILABLE', details: { reason: 'nothing-to-redo' } },
    })
  })

  test('unrewind with steps: all returns to the source head at once', async () => {
    const { h, t1 } = await threeTurns()
    await h.rewind({ turn_id: t1 })
    expect(h.read('a.txt')).toBe('v0\n')
    const back = okResult<{ plan_hash: string }>(await h.plan({ operation: 'unrewind', steps: 'all' }))
    okResult(await h.apply(back.plan_hash))
    expect(h.read('a.txt')).toBe('v3\n')
  })

  test('after_turn: restores the files to after that reply and keeps its prompt in the conversation', async () => {
    const { h, t2 } = await threeTurns()
    const planned = okResult<{ prompt_text: string | null; impact: { turns: number } }>(
      await h.plan({ operation: 'rewind', turn_id: t2, boundary: 'after_turn' }),
    )
    expect(planned.prompt_text).toBeNull()
    expect(planned.impact.turns).toBe(1)
    const applied = await h.rewind({ turn_id: t2, boundary: 'after_turn' })
    expect(h.read('a.txt')).toBe('v2\n')
    const view = await h.transcript()
    expect(view.branches.find((b) => b.branch_id === applied.branch_id)?.head_node_id).toBe(t2)
  })

  test('a file failure never moves a head: the rewind rolls back and every branch is as it was', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a0\n')
    writeFileSync(join(root, 'b.txt'), 'b0\n')
    let armed = false
    const core = createCore({
      dataDir: tempDir('retrace-data-'),
      host: testHost(),
      agent: { env: {}, ollamaUrl: null },
      // Another program writes b.txt right after the rewind published a.txt.
      fault: (phase) => {
        if (armed && phase === 'after-publish-file') {
          armed = false
          writeFileSync(join(root, 'b.txt'), 'typed meanwhile\n')
        }
      },
    })
    extra.push(core)
    const h = await historyHarness(core, root)
    const t1 = await h.turn(
      '*** Begin Patch\n*** Update File: a.txt\n-a0\n+a1\n*** Update File: b.txt\n-b0\n+b1\n*** End Patch',
    )
    await h.turn(edit('a.txt', 'a1', 'a2'))
    const before = await h.transcript()
    const planned = okResult<{ plan_hash: string }>(await h.plan({ operation: 'rewind', turn_id: t1 }))
    armed = true
    const applied = await h.apply(planned.plan_hash)
    expect(applied.status).toBe('error')
    expect(h.read('a.txt')).toBe('a2\n')
    expect(h.read('b.txt')).toBe('typed meanwhile\n')
    const after = await h.transcript()
    expect(after.session.active_branch_id).toBe(before.session.active_branch_id)
    expect(after.branches).toEqual(before.branches)
  })

  test('a stale plan writes nothing', async () => {
    const { h, t1, core } = await threeTurns()
    const planned = okResult<{ plan_hash: string }>(await h.plan({ operation: 'rewind', turn_id: t1 }))
    // The conversation moves on after the preview.
    await h.turn(edit('a.txt', 'v3', 'v4'))
    const tree = treeFingerprint(h.project.root)
    const branches = (await h.transcript()).branches
    expect(await h.apply(planned.plan_hash)).toMatchObject({ status: 'error', error: { code: 'STALE_PLAN' } })
    expect(treeFingerprint(h.project.root)).toEqual(tree)
    expect((await h.transcript()).branches).toEqual(branches)
    void core
  })

  test('a file edited outside Retrace since the last turn blocks the code rewind, with its path', async () => {
    const { root, h, t1 } = await threeTurns()
    writeFileSync(join(root, 'a.txt'), 'edited in another editor\n')
    const planned = okResult<{ status: string; conflicts: Array<{ path: string; reason: string }>; plan_hash: string }>(
      await h.plan({ operation: 'rewind', turn_id: t1 }),
    )
    expect(planned.status).toBe('blocked')
    expect(planned.conflicts).toEqual([expect.objectContaining({ path: 'a.txt', reason: 'changed-since' })])
    const diff = okResult<{ diff_state: string }>(
      await h.call('history.conflict_diff', { plan_hash: planned.plan_hash, path: 'a.txt' }),
    )
    expect(diff.diff_state).toBe('available')
    // Conversation only is still offered.
    const conversation = okResult<{ status: string }>(
      await h.plan({ operation: 'rewind', turn_id: t1, mode: 'conversation' }),
    )
    expect(conversation.status).toBe('ready')
  })
})

describe('modes and alignment', () => {
  test('conversation only: a new branch at once, files unchanged, a turn is refused until Keep current files', async () => {
    const { root, core, h, t2 } = await threeTurns()
    const applied = await h.rewind({ turn_id: t2, mode: 'conversation' })
    expect(applied.prompt_text).toBe('second: make it v2')
    expect(h.read('a.txt')).toBe('v3\n')
    const view = await h.transcript()
    expect(view.session.active_branch_id).toBe(applied.branch_id)
    expect(view.session.alignment.state).toBe('mismatch')

    const refused = await core.turns.begin(h.project.projectId, h.sessionId, 'change more')
    expect(refused).toMatchObject({ kind: 'error', error: { code: 'UNAVAILABLE', details: { reason: 'misaligned' } } })

    // A stale choice is rejected.
    expect(
      await h.call(
        'session.align',
        { session_id: h.sessionId, decision: 'keep', expected_source: 'node_x', expected_target: 'node_y' },
        randomUUID(),
      ),
    ).toMatchObject({ status: 'error', error: { code: 'STALE_PLAN' } })
    const { files_node_id, head_node_id } = view.session.alignment
    const kept = okResult<{ status: string; session: { alignment: { state: string } } }>(
      await h.call(
        'session.align',
        { session_id: h.sessionId, decision: 'keep', expected_source: files_node_id, expected_target: head_node_id },
        randomUUID(),
      ),
    )
    expect(kept).toMatchObject({ status: 'aligned', session: { alignment: { state: 'aligned' } } })
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v3\n')
    await h.turn(edit('a.txt', 'v3', 'v4'))
    expect(h.read('a.txt')).toBe('v4\n')
  })

  test('conversation only, then Restore branch code: the files go to the checkpoint, the head stays', async () => {
    const { core, h, t2 } = await threeTurns()
    const applied = await h.rewind({ turn_id: t2, mode: 'conversation' })
    const view = await h.transcript()
    const { files_node_id, head_node_id } = view.session.alignment
    const key = randomUUID()
    const payload = {
      session_id: h.sessionId,
      decision: 'restore',
      expected_source: files_node_id,
      expected_target: head_node_id,
      plan_hash: await h.alignPlan(),
    }
    const restored = okResult<{ status: string }>(await h.call('session.align', payload, key))
    expect(restored.status).toBe('committed')
    expect(h.read('a.txt')).toBe('v1\n')
    // Replays with the same key; the conversation head did not move.
    expect(okResult(await h.call('session.align', payload, key))).toMatchObject({ status: 'committed' })
    const after = await h.transcript()
    expect(after.session.alignment.state).toBe('aligned')
    expect(after.branches.find((b) => b.branch_id === applied.branch_id)?.head_node_id).toBe(head_node_id)
    expect((await core.turns.begin(h.project.projectId, h.sessionId, 'go on')).kind).toBe('ok')
  })

  test('code only: files to the checkpoint, the conversation unchanged, a banner state until the next turn', async () => {
    const { h, t2, t3 } = await threeTurns()
    const before = await h.transcript()
    const applied = await h.rewind({ turn_id: t2, mode: 'code' })
    expect(applied.prompt_text).toBeNull()
    expect(h.read('a.txt')).toBe('v1\n')
    const view = await h.transcript()
    expect(view.session.active_branch_id).toBe(before.session.active_branch_id)
    expect(view.branches[0]?.head_node_id).toBe(t3)
    expect(view.session.alignment.state).toBe('code_rewound')
    expect(view.session.alignment.checkpoint_id).not.toBeNull()
    await h.turn(edit('a.txt', 'v1', 'v9'))
    expect((await h.transcript()).session.alignment.state).toBe('aligned')
  })
})

test('files a restore recreated (new lineages on the same paths) are still found by later rewinds', async () => {
  const root = tempDir()
  writeFileSync(join(root, 'README.md'), 'x\n')
  const core = startCore()
  const h = await historyHarness(core, root)
  await h.turn(add('a.txt', 'a'), 'one')
  const t2 = await h.turn(add('b.txt', 'b'), 'two')
  await h.turn(add('c.txt', 'c'), 'three')
  const main = (await h.transcript()).session.active_branch_id
  const align = async (decision: string) => {
    const { files_node_id, head_node_id } = (await h.transcript()).session.alignment
    return okResult(
      await h.call(
        'session.align',
        {
          session_id: h.sessionId,
          decision,
          expected_source: files_node_id,
          expected_target: head_node_id,
          ...(decision === 'restore' ? { plan_hash: await h.alignPlan() } : {}),
        },
        randomUUID(),
      ),
    )
  }
  await h.rewind({ turn_id: t2, mode: 'conversation' })
  await align('restore')
  expect([h.read('b.txt'), h.read('c.txt')]).toEqual([null, null])
  okResult(await h.session('session.switch_branch', { branch_id: main }))
  await align('restore')
  expect([h.read('b.txt'), h.read('c.txt')]).toEqual(['b\n', 'c\n'])
  await h.rewind({ turn_id: t2, mode: 'code' })
  expect([h.read('b.txt'), h.read('c.txt')]).toEqual([null, null])
  await align('restore')
  expect([h.read('b.txt'), h.read('c.txt')]).toEqual(['b\n', 'c\n'])
  await h.rewind({ turn_id: t2 })
  expect([h.read('a.txt'), h.read('b.txt'), h.read('c.txt')]).toEqual(['a\n', null, null])
})

describe('branches', () => {
  test('a sibling branch’s turns and files are never touched by a rewind', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a0\n')
    const core = startCore()
    const h = await historyHarness(core, root)
    const t1 = await h.turn(edit('a.txt', 'a0', 'a1'), 'one')
    await h.turn(add('b.txt', 'from the first branch'), 'two')
    const first = (await h.transcript()).branches[0] as BranchView

    // Branch from the first turn: files stay as they are (b.txt is there), so the branch is misaligned.
    const branched = okResult<{ branch_id: string; session: { alignment: { state: string } } }>(
      await h.session('session.branch', { node_id: t1 }),
    )
    expect(branched.session.alignment.state).toBe('mismatch')
    expect(h.read('b.txt')).toBe('from the first branch\n')
    const view = await h.transcript()
    okResult(
      await h.call(
        'session.align',
        {
          session_id: h.sessionId,
          decision: 'keep',
          expected_source: view.session.alignment.files_node_id,
          expected_target: view.session.alignment.head_node_id,
        },
        randomUUID(),
      ),
    )
    await h.turn(add('c.txt', 'from the second branch'), 'three')

    await h.rewind({ turn_id: t1 })
    expect(h.read('a.txt')).toBe('a0\n')
    expect(h.read('c.txt')).toBeNull()
    // b.txt belongs to the sibling's turn: untouched.
    expect(h.read('b.txt')).toBe('from the first branch\n')
    const after = await h.transcript()
    const sibling = after.branches.find((b) => b.branch_id === first.branch_id) as BranchView
    expect(sibling.head_node_id).toBe(first.head_node_id)
    expect(sibling.head_version).toBe(first.head_version)
    expect(after.nodes.filter((n) => n.kind === 'assistant')).toHaveLength(3)
  })

  test('switching to a sibling computes alignment; Restore branch code brings its files', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a0\n')
    const core = startCore()
    const h = await historyHarness(core, root)
    await h.turn(edit('a.txt', 'a0', 'a1'), 'one')
    const main = (await h.transcript()).session.active_branch_id
    const t2 = await h.turn(edit('a.txt', 'a1', 'a2'), 'two')
    // Undo the second prompt into a new branch, and go elsewhere there.
    const rewound = await h.rewind({ turn_id: t2 })
    await h.turn(add('other.txt', 'x'), 'three')
    expect(h.read('a.txt')).toBe('a1\n')

    const switched = okResult<{ alignment: { state: string; files_node_id: string; head_node_id: string } }>(
      await h.session('session.switch_branch', { branch_id: main }),
    )
    expect(switched.alignment.state).toBe('mismatch')
    okResult(
      await h.call(
        'session.align',
        {
          session_id: h.sessionId,
          decision: 'restore',
          expected_source: switched.alignment.files_node_id,
          expected_target: switched.alignment.head_node_id,
          plan_hash: await h.alignPlan(),
        },
        randomUUID(),
      ),
    )
    expect(h.read('a.txt')).toBe('a2\n')
    expect(h.read('other.txt')).toBeNull()
    // And back: the rewound branch's own code returns.
    const back = okResult<{ alignment: { state: string; files_node_id: string; head_node_id: string } }>(
      await h.session('session.switch_branch', { branch_id: rewound.branch_id }),
    )
    expect(back.alignment.state).toBe('mismatch')
    okResult(
      await h.call(
        'session.align',
        {
          session_id: h.sessionId,
          decision: 'restore',
          expected_source: back.alignment.files_node_id,
          expected_target: back.alignment.head_node_id,
          plan_hash: await h.alignPlan(),
        },
        randomUUID(),
      ),
    )
    expect(h.read('a.txt')).toBe('a1\n')
    expect(h.read('other.txt')).toBe('x\n')
  })

  test('archive keeps a branch and re-activation brings it back; purge frees only what nothing else reaches', async () => {
    const { h, t1, t3 } = await threeTurns()
    const main = (await h.transcript()).session.active_branch_id
    const rewound = await h.rewind({ turn_id: t1 })
    expect(await h.session('session.archive_branch', { branch_id: rewound.branch_id, archived: true })).toMatchObject({
      status: 'error',
      error: { code: 'UNAVAILABLE' },
    })
    okResult(await h.session('session.switch_branch', { branch_id: main }))
    const archived = okResult<{ branches: BranchView[] }>(
      await h.session('session.archive_branch', { branch_id: rewound.branch_id, archived: true }),
    )
    expect(archived.branches.find((b) => b.branch_id === rewound.branch_id)?.archived).toBe(true)
    // Purging the archived branch frees nothing: its only node (ROOT) is shared.
    expect(okResult(await h.session('session.purge', { branch_id: rewound.branch_id }))).toMatchObject({ nodes: 0 })
    expect((await h.transcript()).branches.map((b) => b.branch_id)).toEqual([main])
    // The main branch is intact.
    expect((await h.transcript()).branches[0]?.head_node_id).toBe(t3)
  })

  test('purge of an archived branch deletes its own turns and never a shared ancestor', async () => {
    const { h, t1, t2, t3 } = await threeTurns()
    const main = (await h.transcript()).session.active_branch_id
    const other = okResult<{
      branch_id: string
      session: { alignment: { files_node_id: string; head_node_id: string } }
    }>(await h.session('session.branch', { node_id: t1 }))
    expect(other.branch_id).not.toBe(main)
    okResult(
      await h.call(
        'session.align',
        {
          session_id: h.sessionId,
          decision: 'keep',
          expected_source: other.session.alignment.files_node_id,
          expected_target: other.session.alignment.head_node_id,
        },
        randomUUID(),
      ),
    )
    // Make the main branch the one to purge: switch to the new one, archive main.
    okResult(await h.session('session.archive_branch', { branch_id: main, archived: true }))
    const purged = okResult<{ nodes: number }>(await h.session('session.purge', { branch_id: main }))
    expect(purged.nodes).toBe(4)
    const ids = (await h.transcript()).nodes.map((n) => n.node_id)
    expect(ids).toContain(t1)
    expect(ids).not.toContain(t2)
    expect(ids).not.toContain(t3)
  })

  test('resume: an unknown session is NOT_FOUND; a known one answers real ids, heads and the revision', async () => {
    const { h } = await threeTurns()
    expect(await h.call('session.resume', { session_id: 'ses_nope' })).toMatchObject({
      status: 'error',
      error: { code: 'NOT_FOUND' },
    })
    const resumed = okResult<{ head_node_id: string; head_version: number; workspace_revision: number }>(
      await h.session('session.resume'),
    )
    expect(resumed.head_version).toBe(3)
    expect(resumed.workspace_revision).toBeGreaterThan(0)
  })
})

describe('unavailable history', () => {
  test('expired receipts make the code modes UNAVAILABLE with the reason; conversation only stays', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'v0\n')
    const core = createCore({
      dataDir: tempDir('retrace-data-'),
      host: testHost(),
      agent: { env: {}, ollamaUrl: null },
      retention: { checkpointsPerSession: 2 },
    })
    extra.push(core)
    const h = await historyHarness(core, root)
    const t1 = await h.turn(edit('a.txt', 'v0', 'v1'))
    await h.turn(edit('a.txt', 'v1', 'v2'))
    await h.turn(edit('a.txt', 'v2', 'v3'))
    await core.collectGarbage({ graceMs: 0 })
    const code = okResult<{ status: string; unavailable: Array<{ reason: string }>; code_unavailable: unknown[] }>(
      await h.plan({ operation: 'rewind', turn_id: t1 }),
    )
    expect(code.status).toBe('unavailable')
    expect(code.unavailable).toEqual([expect.objectContaining({ reason: 'expired' })])
    const conversation = okResult<{ status: string; code_unavailable: unknown[] }>(
      await h.plan({ operation: 'rewind', turn_id: t1, mode: 'conversation' }),
    )
    expect(conversation.status).toBe('ready')
    expect(conversation.code_unavailable).toHaveLength(1)
  })
})

describe('fork to a new task', () => {
  test('with files: a git worktree at the checkpoint, the parent byte-identical', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'v0\n')
    writeFileSync(join(root, 'notes.md'), 'untracked notes\n')
    const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    git('init', '-q', '-b', 'main')
    git('add', 'a.txt')
    git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')
    const core = startCore()
    const h = await historyHarness(core, root)
    const t1 = await h.turn(edit('a.txt', 'v0', 'v1'), 'one')
    await h.turn(add('b.txt', 'later'), 'two')
    const parent = withoutGit(treeFingerprint(root))

    const forked = okResult<{
      session: { session_id: string; project_id: string }
      worktree: { path: string; project_id: string }
    }>(await h.session('session.fork', { node_id: t1, with_files: true }))
    expect(withoutGit(treeFingerprint(root))).toEqual(parent)
    const dir = forked.worktree.path
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('v1\n')
    expect(existsSync(join(dir, 'b.txt'))).toBe(false)
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('untracked notes\n')
    expect(forked.session.project_id).toBe(forked.worktree.project_id)
    const copied = okResult<{ nodes: Array<{ kind: string }> }>(
      await core.handle({
        request_id: randomUUID(),
        action: 'session.transcript',
        owner: { project_id: forked.worktree.project_id },
        payload: { session_id: forked.session.session_id },
      }),
    )
    expect(copied.nodes.map((n) => n.kind)).toEqual(['root', 'user', 'assistant'])
  })

  test('without files: the conversation is copied into a new session; not offered with files outside git', async () => {
    const { h, t2 } = await threeTurns()
    expect(await h.session('session.fork', { node_id: t2, with_files: true })).toMatchObject({
      status: 'error',
      error: { code: 'UNAVAILABLE', details: { reason: 'not-git' } },
    })
    const forked = okResult<{ session: { session_id: string }; worktree: null }>(
      await h.session('session.fork', { node_id: t2, with_files: false }),
    )
    expect(forked.worktree).toBeNull()
    expect(forked.session.session_id).not.toBe(h.sessionId)
    expect(h.read('a.txt')).toBe('v3\n')
  })
})

/** The person's save in Retrace's editor: a journaled human write. */
async function personWrites(
  h: Awaited<ReturnType<typeof threeTurns>>['h'],
  core: Core,
  path: string,
  from: string,
  to: string,
) {
  okResult(
    await send(
      core,
      'files.write',
      { path, content: to, expected_revision: digestOf(Buffer.from(from)) },
      { owner: { project_id: h.project.projectId } },
    ),
  )
}

describe('a rewind never overwrites the person’s own edits (issue 23 item 11)', () => {
  type Blocked = {
    status: string
    plan_hash: string
    actions: Array<{ path: string }>
    conflicts: Array<{ path: string; reason: string; message: string }>
    kept?: string[]
  }

  for (const mode of ['code', 'code_and_conversation'] as const) {
    test(`a line added in Retrace's editor after the turns blocks "${mode}" for that path, with the diff; apply writes nothing`, async () => {
      const { root, core, h, t2 } = await threeTurns({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' })
      await h.turn(edit('b.txt', 'b0', 'b1'), 'fourth: b')
      await personWrites(h, core, 'a.txt', 'v3\n', 'v3\nmy own line\n')
      const tree = treeFingerprint(root)
      const branches = (await h.transcript()).branches

      const planned = okResult<Blocked>(await h.plan({ operation: 'rewind', turn_id: t2, mode }))
      expect(planned.status).toBe('blocked')
      expect(planned.conflicts).toEqual([
        expect.objectContaining({
          path: 'a.txt',
          reason: 'changed-since',
          message: expect.stringContaining('after these turns'),
        }),
      ])
      const diff = okResult<{ diff_state: string; hunks: Array<{ lines: Array<{ kind: string; text: string }> }> }>(
        await h.call('history.conflict_diff', { plan_hash: planned.plan_hash, path: 'a.txt' }),
      )
      expect(diff.diff_state).toBe('available')
      expect(
        diff.hunks.flatMap((hunk) => hunk.lines.filter((l) => l.kind !== 'context').map((l) => `${l.kind}:${l.text}`)),
      ).toEqual(['add:my own line'])
      expect(await h.apply(planned.plan_hash)).toMatchObject({ status: 'error', error: { code: 'BLOCKED' } })
      expect(treeFingerprint(root)).toEqual(tree)
      expect((await h.transcript()).branches).toEqual(branches)
    })
  }

  test('"keep mine" leaves the person’s file as it is and restores the rest', async () => {
    const { core, h, t2 } = await threeTurns({ 'a.txt': 'v0\n', 'b.txt': 'b0\n' })
    await h.turn(edit('b.txt', 'b0', 'b1'), 'fourth: b')
    await personWrites(h, core, 'a.txt', 'v3\n', 'v3\nmine\n')
    const planned = okResult<Blocked>(
      await h.plan({ operation: 'rewind', turn_id: t2, mode: 'code', keep_current: ['a.txt'] }),
    )
    expect(planned).toMatchObject({ status: 'ready', conflicts: [], kept: ['a.txt'] })
    expect(planned.actions.map((a) => a.path)).toEqual(['b.txt'])
    okResult(await h.apply(planned.plan_hash))
    expect(h.read('a.txt')).toBe('v3\nmine\n')
    expect(h.read('b.txt')).toBe('b0\n')
  })

  test('"include it" restores that path too; the person’s bytes stay in its File History', async () => {
    const { core, h, t2 } = await threeTurns()
    await personWrites(h, core, 'a.txt', 'v3\n', 'v3\nmine\n')
    const planned = okResult<Blocked>(
      await h.plan({ operation: 'rewind', turn_id: t2, mode: 'code', include_conflicting: ['a.txt'] }),
    )
    expect(planned).toMatchObject({ status: 'ready', conflicts: [] })
    okResult(await h.apply(planned.plan_hash))
    expect(h.read('a.txt')).toBe('v1\n')
    const history = okResult<{ versions: Array<{ version_id: string; actor: string }> }>(
      await send(core, 'files.history', { path: 'a.txt' }, { owner: { project_id: h.project.projectId } }),
    )
    const texts = await Promise.all(
      history.versions.map(
        async (v) =>
          okResult<{ text?: string }>(
            await send(
              core,
              'files.read_version',
              { path: 'a.txt', version_id: v.version_id },
              { owner: { project_id: h.project.projectId } },
            ),
          ).text,
      ),
    )
    expect(texts).toContain('v3\nmine\n')
  })

  test('Restore branch code is blocked the same way by an edit made after a conversation-only rewind', async () => {
    const { core, h, t2 } = await threeTurns()
    await h.rewind({ turn_id: t2, mode: 'conversation' })
    await personWrites(h, core, 'a.txt', 'v3\n', 'v3 and mine\n')
    const planned = okResult<Blocked>(await h.plan({ operation: 'align' }))
    expect(planned.status).toBe('blocked')
    expect(planned.conflicts.map((c) => [c.path, c.reason])).toEqual([['a.txt', 'changed-since']])
    expect(h.read('a.txt')).toBe('v3 and mine\n')
  })

  test('Restore branch code with every conflicting path kept settles the alignment and writes nothing', async () => {
    const { core, h, t2 } = await threeTurns()
    await h.rewind({ turn_id: t2, mode: 'conversation' })
    await personWrites(h, core, 'a.txt', 'v3\n', 'v3 and mine\n')
    const planned = okResult<{ status: string; plan_hash: string; kept: string[]; actions: unknown[] }>(
      await h.plan({ operation: 'align', keep_current: ['a.txt'] }),
    )
    expect([planned.status, planned.kept, planned.actions]).toEqual(['ready', ['a.txt'], []])
    okResult(await h.apply(planned.plan_hash))
    expect(h.read('a.txt')).toBe('v3 and mine\n')
    expect((await h.transcript()).session.alignment.state).toBe('aligned')
  })
})

describe('Redo is the inverse of the last restore, a Rewind included (issue 23 item 20)', () => {
  test('code only: Rewind then Redo brings the files back and the alignment with them', async () => {
    const { h, t2 } = await threeTurns({ 'a.txt': 'v0\n' })
    await h.turn(add('gen/new.txt', 'made later'), 'fourth: add a file')
    await h.rewind({ turn_id: t2, mode: 'code' })
    expect([h.read('a.txt'), h.read('gen/new.txt')]).toEqual(['v1\n', null])
    const offers = okResult<{ restore: { redo_turn_id: string | null } }>(await h.session('session.transcript')).restore
    expect(offers.redo_turn_id).toBe(t2)

    const redo = okResult<{ status: string; plan_hash: string; actions: Array<{ path: string }> }>(
      await h.plan({ operation: 'redo', turn_id: t2 }),
    )
    expect(redo.status).toBe('ready')
    expect(redo.actions.map((a) => a.path).sort()).toEqual(['a.txt', 'gen/new.txt'])
    okResult(await h.apply(redo.plan_hash))
    expect([h.read('a.txt'), h.read('gen/new.txt')]).toEqual(['v3\n', 'made later\n'])
    const view = await h.transcript()
    expect(view.session.alignment.state).toBe('aligned')
    // Nothing left to redo.
    expect(await h.plan({ operation: 'redo' })).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE' } })
  })

  test('code + conversation: Redo puts the files and the source branch back', async () => {
    const { h, t2 } = await threeTurns()
    const source = (await h.transcript()).session.active_branch_id
    const rewound = await h.rewind({ turn_id: t2 })
    expect(h.read('a.txt')).toBe('v1\n')
    const redo = okResult<{ plan_hash: string; impact: { branch: { outcome: string } } }>(
      await h.plan({ operation: 'redo' }),
    )
    expect(redo.impact.branch.outcome).toBe('return_to_source')
    okResult(await h.apply(redo.plan_hash))
    expect(h.read('a.txt')).toBe('v3\n')
    const view = await h.transcript()
    expect(view.session.active_branch_id).toBe(source)
    expect(view.branches.find((b) => b.branch_id === rewound.branch_id)?.archived).toBe(true)
  })

  test('a file edited after the rewind blocks its Redo, and nothing is written', async () => {
    const { root, h, t2 } = await threeTurns()
    await h.rewind({ turn_id: t2, mode: 'code' })
    writeFileSync(join(root, 'a.txt'), 'typed after the rewind\n')
    const redo = okResult<{ status: string; conflicts: Array<{ path: string; reason: string }> }>(
      await h.plan({ operation: 'redo' }),
    )
    expect(redo.status).toBe('blocked')
    expect(redo.conflicts.map((c) => [c.path, c.reason])).toEqual([['a.txt', 'changed-since']])
    expect(h.read('a.txt')).toBe('typed after the rewind\n')
  })
})

describe('Restore branch code is previewed like every restore (issue 23 item 13)', () => {
  test('without a previewed plan nothing is written; the preview lists the impact; applying it restores', async () => {
    const { root, h, t1, t2 } = await threeTurns()
    await h.rewind({ turn_id: t2, mode: 'conversation' })
    const { files_node_id, head_node_id } = (await h.transcript()).session.alignment
    const choice = {
      session_id: h.sessionId,
      decision: 'restore',
      expected_source: files_node_id,
      expected_target: head_node_id,
    }
    const tree = treeFingerprint(root)
    expect(await h.call('session.align', choice, randomUUID())).toMatchObject({
      status: 'error',
      error: { code: 'INVALID_REQUEST', details: { reason: 'preview-required' } },
    })
    expect(treeFingerprint(root)).toEqual(tree)

    const preview = okResult<{
      status: string
      operation: string
      plan_hash: string
      actions: Array<{ path: string; target: { kind: string } }>
      impact: { files: number; branch: { outcome: string } }
    }>(await h.plan({ operation: 'align' }))
    expect(preview).toMatchObject({
      status: 'ready',
      operation: 'align',
      impact: { files: 1, branch: { outcome: 'unchanged' } },
    })
    expect(preview.actions.map((a) => a.path)).toEqual(['a.txt'])
    // Previewing writes nothing.
    expect(treeFingerprint(root)).toEqual(tree)
    // A plan of another kind is not a Restore branch code choice.
    const other = okResult<{ plan_hash: string }>(
      await h.plan({ operation: 'rewind', turn_id: t1, mode: 'conversation' }),
    )
    expect(await h.call('session.align', { ...choice, plan_hash: other.plan_hash }, randomUUID())).toMatchObject({
      status: 'error',
      error: { code: 'STALE_PLAN' },
    })
    expect(treeFingerprint(root)).toEqual(tree)

    okResult(await h.call('session.align', { ...choice, plan_hash: preview.plan_hash }, randomUUID()))
    expect(h.read('a.txt')).toBe('v1\n')
    expect((await h.transcript()).session.alignment.state).toBe('aligned')
  })
})
