import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { openProject, startCore } from '../../../../test/support/core'
import { tempDir } from '../../../../test/support/temp'
import { planApplyPatch, planWrite } from '../journal'
import { digestOf } from '../store'

async function setup() {
  const root = tempDir()
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\n')
  writeFileSync(join(root, 'big.bin'), Buffer.from([0, 1, 2, 3]))
  const core = startCore()
  const project = await openProject(core, root)
  const created = await project.call('session.create', { title: 'Fix the parser' })
  if (created.status !== 'ok') throw new Error(JSON.stringify(created))
  const session = created.result as { session_id: string; root_node_id: string; active_branch_id: string }
  return { core, project, session, root }
}

describe('conversation history', () => {
  test('a new session has a persistent ROOT node and a main branch whose head is ROOT', async () => {
    const { project, session } = await setup()
    const read = await project.call('session.transcript', { session_id: session.session_id })
    expect(read).toMatchObject({
      status: 'ok',
      result: {
        session: { title: 'Fix the parser', state: 'active' },
        branches: [{ branch_id: session.active_branch_id, head_node_id: session.root_node_id, head_version: 0 }],
        nodes: [{ node_id: session.root_node_id, kind: 'root', parent_node_id: null }],
      },
    })
    expect(await project.call('session.list', {})).toMatchObject({
      result: { sessions: [{ session_id: session.session_id }] },
    })
  })

  test('a turn records user and assistant nodes, moves the head by CAS, attributes its mutations, and stores its summary', async () => {
    const { core, project, session } = await setup()
    const turn = await core.turns.begin(project.projectId, session.session_id, 'make it count to three')
    if (turn.kind !== 'ok') throw new Error(JSON.stringify(turn))
    // A second prompt while the first runs is refused.
    expect(await core.turns.begin(project.projectId, session.session_id, 'again')).toMatchObject({
      kind: 'error',
      error: { code: 'BUSY' },
    })
    const t = turn.result
    await core.turns.mutate(project.projectId, t, (context) =>
      planApplyPatch(
        context,
        '*** Begin Patch\n*** Update File: a.txt\n two\n+three\n*** Add File: b.txt\n+bee\n*** End Patch',
      ),
    )
    await core.turns.mutate(project.projectId, t, (context) =>
      planWrite(context, {
        path: 'a.txt',
        source: { content: Buffer.from('one\n2\nthree\n') },
        expected: digestOf(Buffer.from('one\ntwo\nthree\n')),
      }),
    )
    await core.turns.mutate(project.projectId, t, (context) =>
      planWrite(context, {
        path: 'big.bin',
        source: { content: Buffer.from([9, 9]) },
        expected: digestOf(Buffer.from([0, 1, 2, 3])),
      }),
    )
    const finished = await core.turns.finalize(project.projectId, t, {
      parts: [{ type: 'text', id: 'text_1', text: 'Done.' }],
      status: 'complete',
    })
    // a.txt: one,two → one,2,three is +2 −1 net; b.txt +1; big.bin is binary, so the net count is unknown.
    expect(finished).toMatchObject({
      kind: 'ok',
      result: {
        summary: { files: 3, added: null, removed: null, first_files: ['a.txt', 'b.txt', 'big.bin'], transactions: 3 },
      },
    })

    const receipts = await project.call('journal.transactions', { origin_turn_id: t.turn_id })
    expect(receipts).toMatchObject({
      result: {
        transactions: [
          {
            session_id: session.session_id,
            branch_id: t.branch_id,
            producer_turn_id: t.turn_id,
            origin_turn_id: t.turn_id,
            actor_id: 'main',
            kind: 'edit',
          },
          { origin_turn_id: t.turn_id },
          { origin_turn_id: t.turn_id },
        ],
      },
    })

    const read = await project.call('session.transcript', { session_id: session.session_id })
    if (read.status !== 'ok') throw new Error('no transcript')
    const result = read.result as {
      branches: Array<{ head_node_id: string; head_version: number }>
      nodes: Array<{
        node_id: string
        kind: string
        parent_node_id: string | null
        status: string
        parts: unknown[]
        summary?: unknown
      }>
    }
    expect(result.nodes.map((n) => [n.kind, n.status])).toEqual([
      ['root', 'complete'],
      ['user', 'complete'],
      ['assistant', 'complete'],
    ])
    expect(result.nodes[1]?.parent_node_id).toBe(session.root_node_id)
    expect(result.nodes[2]).toMatchObject({
      node_id: t.turn_id,
      parent_node_id: t.user_node_id,
      // The turn card's counts are persisted with the parts at finalize (spec 05 file-summary).
      parts: [
        { type: 'text', id: 'text_1', text: 'Done.' },
        { type: 'file-summary', summary: { files: 3, first_files: ['a.txt', 'b.txt', 'big.bin'] } },
      ],
      summary: { files: 3 },
    })
    expect(result.branches[0]).toMatchObject({ head_node_id: t.turn_id, head_version: 1 })
  })

  test('a text-only turn summary has exact net line counts', async () => {
    const { core, project, session } = await setup()
    const turn = await core.turns.begin(project.projectId, session.session_id, 'edit twice')
    if (turn.kind !== 'ok') throw new Error('no turn')
    for (const [before, after] of [
      ['one\ntwo\n', 'one\ntwo\nthree\n'],
      ['one\ntwo\nthree\n', 'one\nthree\n'],
    ] as const) {
      await core.turns.mutate(project.projectId, turn.result, (context) =>
        planWrite(context, {
          path: 'a.txt',
          source: { content: Buffer.from(after) },
          expected: digestOf(Buffer.from(before)),
        }),
      )
    }
    // Net over the turn: one,two → one,three is +1 −1, not the sum of the two edits (+1 −0, +0 −1).
    expect(await core.turns.finalize(project.projectId, turn.result, { parts: [], status: 'complete' })).toMatchObject({
      result: { summary: { files: 1, added: 1, removed: 1, first_files: ['a.txt'], transactions: 2 } },
    })
  })

  test('an unknown session is NOT_FOUND, also across projects', async () => {
    const { core, project, session } = await setup()
    expect(await project.call('session.transcript', { session_id: 'ses_nope' })).toMatchObject({
      error: { code: 'NOT_FOUND' },
    })
    const other = await openProject(core, tempDir())
    expect(await other.call('session.transcript', { session_id: session.session_id })).toMatchObject({
      error: { code: 'NOT_FOUND' },
    })
    expect(await core.turns.begin(other.projectId, session.session_id, 'x')).toMatchObject({
      kind: 'error',
      error: { code: 'NOT_FOUND' },
    })
  })
})
