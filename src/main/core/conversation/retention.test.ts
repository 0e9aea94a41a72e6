import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { createCore } from '..'
import { openProject, testHost } from '../../../../test/support/core'
import { tempDir } from '../../../../test/support/temp'
import { planApplyPatch } from '../journal'
import { digestOf } from '../store'
import { sendUntyped } from '../../../../test/support/protocol'

test('retention runs again while the app stays open, not only at start-up', async () => {
  const root = tempDir()
  writeFileSync(join(root, 'a.txt'), 'original\n')
  const core = createCore({
    dataDir: tempDir(),
    host: testHost(),
    retention: { checkpointsPerSession: 1 },
    garbageCollection: { firstAfterMs: 0, everyMs: 100 },
  })
  try {
    const project = await openProject(core, root)
    const created = await project.call('session.create', {})
    const sessionId = (created as { result: { session_id: string } }).result.session_id
    // Every start-up run (this schedule's and the default's, two seconds in) has passed before any turn exists.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const turnIds: string[] = []
    for (const [from, to] of [
      ['original', 'second'],
      ['second', 'third'],
    ]) {
      const begun = await core.turns.begin(project.projectId, sessionId, 'edit')
      if (begun.kind !== 'ok') throw new Error('no turn')
      await core.turns.mutate(project.projectId, begun.result, (context) =>
        planApplyPatch(context, `*** Begin Patch\n*** Update File: a.txt\n-${from}\n+${to}\n*** End Patch`),
      )
      await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
      turnIds.push(begun.result.turn_id)
    }
    const plan = () =>
      sendUntyped(
        core,
        'history.plan',
        { operation: 'revert', turn_id: turnIds[0] },
        {
          owner: { project_id: project.projectId, session_id: sessionId },
        },
      )
    await expect
      .poll(async () => ((await plan()) as { result?: { status?: string } }).result?.status, { timeout: 5_000 })
      .toBe('unavailable')
  } finally {
    core.dispose()
  }
})

test('blobs older than the newest N checkpoints expire (restore UNAVAILABLE: expired), the first baseline stays', async () => {
  const root = tempDir()
  const dataDir = tempDir()
  writeFileSync(join(root, 'a.txt'), 'original\n')
  writeFileSync(join(root, 'b.txt'), 'b\n')
  const core = createCore({ dataDir, host: testHost(), retention: { checkpointsPerSession: 2 } })
  try {
    const project = await openProject(core, root)
    const created = await project.call('session.create', {})
    const sessionId = (created as { result: { session_id: string } }).result.session_id
    const turn = async (patch: string) => {
      const begun = await core.turns.begin(project.projectId, sessionId, 'edit')
      if (begun.kind !== 'ok') throw new Error('no turn')
      await core.turns.mutate(project.projectId, begun.result, (context) => planApplyPatch(context, patch))
      await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
      return begun.result.turn_id
    }
    const first = await turn('*** Begin Patch\n*** Update File: a.txt\n-original\n+second\n*** End Patch')
    const second = await turn('*** Begin Patch\n*** Update File: a.txt\n-second\n+third\n*** End Patch')
    await turn('*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** End Patch')

    // Six checkpoints; keeping the newest two leaves turns one and two outside the window.
    expect(await core.collectGarbage({ graceMs: 0 })).toMatchObject({ expired: 2 })
    const blobPath = (text: string) => {
      const hex = digestOf(Buffer.from(text)).slice(7)
      return join(dataDir, 'blobs', 'sha256', hex.slice(0, 2), hex.slice(2))
    }
    expect(existsSync(blobPath('original\n')), 'the first baseline of a.txt is kept').toBe(true)
    expect(existsSync(blobPath('second\n')), 'a released blob is swept').toBe(false)
    expect(existsSync(blobPath('B\n')), 'the newest turn keeps its blobs').toBe(true)

    const plan = (operation: string, turnId?: string) =>
      sendUntyped(core, 'history.plan', turnId ? { operation, turn_id: turnId } : { operation }, {
        owner: { project_id: project.projectId, session_id: sessionId },
      })
    expect(await plan('revert', second)).toMatchObject({
      result: { status: 'unavailable', unavailable: [{ path: 'a.txt', reason: 'expired' }] },
    })
    expect(await plan('revert', first)).toMatchObject({
      result: { status: 'unavailable', unavailable: [{ reason: 'expired' }] },
    })
    expect(await plan('undo')).toMatchObject({ result: { status: 'ready' } })
    // Review metadata stays readable.
    const receipts = await project.call('journal.transactions', { origin_turn_id: second })
    expect(receipts).toMatchObject({
      result: { transactions: [{ files: [{ path: 'a.txt', stats: { added: 1, removed: 1 } }] }] },
    })
  } finally {
    core.dispose()
  }
})
