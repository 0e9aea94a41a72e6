import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { startCore } from './support/core'
import { historyHarness, okResult } from './support/history'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

/** A turn that writes `gen/a/b.txt` and `gen/c.txt` in one patch (the folders do not exist yet). */
const GEN = '*** Begin Patch\n*** Add File: gen/a/b.txt\n+b\n*** Add File: gen/c.txt\n+c\n*** End Patch'

interface PlanView {
  status: string
  plan_hash: string
  actions: Array<{ path: string }>
  folders: { removed: string[]; created: string[] }
  conflicts: Array<{ path: string; reason: string }>
}
interface Receipt {
  kind: string
  status: string
  files: Array<{ path: string; operation: string; before: { kind: string }; after: { kind: string } }>
}

async function setup(files: Record<string, string> = { 'keep.txt': 'keep\n' }) {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content)
  const core = startCore()
  const h = await historyHarness(core, root)
  const plan = async (payload: Record<string, unknown>) => okResult<PlanView>(await h.plan(payload))
  const applyPlan = async (planned: PlanView) => {
    expect(planned.status, JSON.stringify(planned.conflicts)).toBe('ready')
    return okResult<{ status: string; transaction_id: string }>(await h.apply(planned.plan_hash))
  }
  const receipts = async () =>
    okResult<{ transactions: Receipt[] }>(await h.project.call('journal.transactions', {})).transactions
  return { root, core, h, plan, applyPlan, receipts }
}

describe('Undo removes the folders its turn created once they are empty (issue 23 item 14)', () => {
  test('Undo of a turn that wrote gen/a/b.txt and gen/c.txt leaves no gen/; Redo brings files and folders back', async () => {
    const { root, h, plan, applyPlan, receipts } = await setup()
    const original = treeFingerprint(root)
    await h.turn(GEN)
    const afterTurn = treeFingerprint(root)

    const undo = await plan({ operation: 'undo' })
    // The preview lists every path the restore writes: its files and its folders, deepest first.
    expect(undo.folders).toEqual({ removed: ['gen/a', 'gen'], created: [] })
    expect(treeFingerprint(root)).toEqual(afterTurn)
    expect(await applyPlan(undo)).toMatchObject({ status: 'committed' })
    expect(existsSync(join(root, 'gen'))).toBe(false)
    expect(treeFingerprint(root)).toEqual(original)

    // The restore's receipt records the folders it removed.
    const revert = (await receipts()).find((r) => r.kind === 'revert')
    expect(revert?.files.filter((f) => f.before.kind === 'directory')).toMatchObject([
      { path: 'gen/a', operation: 'delete', after: { kind: 'absent' } },
      { path: 'gen', operation: 'delete', after: { kind: 'absent' } },
    ])

    // Review lists files: the turn's files net to nothing on this branch, and no folder becomes a row.
    const branch = okResult<{ files: Array<{ path: string }> }>(await h.call('review.files', { scope: 'branch' }))
    expect(branch.files.map((f) => f.path)).toEqual([])

    const redo = await plan({ operation: 'redo' })
    expect(redo.folders).toEqual({ removed: [], created: ['gen', 'gen/a'] })
    expect(await applyPlan(redo)).toMatchObject({ status: 'committed' })
    expect(treeFingerprint(root)).toEqual(afterTurn)

    // And again: the turn's folders go with a second Undo too.
    expect(await applyPlan(await plan({ operation: 'undo' }))).toMatchObject({ status: 'committed' })
    expect(treeFingerprint(root)).toEqual(original)
  })

  test('a folder that existed (empty) before the turn stays; only the one the turn made goes', async () => {
    const { root, h, plan, applyPlan } = await setup()
    mkdirSync(join(root, 'gen'))
    await h.turn(GEN)
    const undo = await plan({ operation: 'undo' })
    expect(undo.folders.removed).toEqual(['gen/a'])
    await applyPlan(undo)
    expect(readdirSync(join(root, 'gen'))).toEqual([])
  })

  test('a folder the turn made that the person then put a file (or a link) into stays, and the file is untouched', async () => {
    const { root, h, plan, applyPlan } = await setup()
    await h.turn(GEN)
    writeFileSync(join(root, 'gen/a/mine.txt'), 'my notes\n')
    symlinkSync('../../keep.txt', join(root, 'gen/link'))
    const undo = await plan({ operation: 'undo' })
    expect(undo.folders.removed).toEqual([])
    await applyPlan(undo)
    expect(readFileSync(join(root, 'gen/a/mine.txt'), 'utf8')).toBe('my notes\n')
    expect(readdirSync(join(root, 'gen')).sort()).toEqual(['a', 'link'])
    expect(readdirSync(join(root, 'gen/a'))).toEqual(['mine.txt'])
  })

  test('a file that appears between the preview and the apply keeps its folder (checked again at apply)', async () => {
    const { root, h, plan, applyPlan } = await setup()
    await h.turn(GEN)
    const undo = await plan({ operation: 'undo' })
    expect(undo.folders.removed).toEqual(['gen/a', 'gen'])
    writeFileSync(join(root, 'gen/a/.build-cache'), 'ignored output\n')
    // The re-plan under the lock sees a different set of folders: the preview is stale, nothing is written.
    expect(await h.apply(undo.plan_hash)).toMatchObject({ status: 'error', error: { code: 'STALE_PLAN' } })
    expect(readFileSync(join(root, 'gen/c.txt'), 'utf8')).toBe('c\n')
    const again = await plan({ operation: 'undo' })
    expect(again.folders.removed).toEqual([])
    await applyPlan(again)
    expect(readdirSync(join(root, 'gen'))).toEqual(['a'])
    expect(readFileSync(join(root, 'gen/a/.build-cache'), 'utf8')).toBe('ignored output\n')
  })

  test('Revert of an older turn keeps a folder a later turn still has files in', async () => {
    const { root, h, plan, applyPlan } = await setup()
    const first = await h.turn(GEN)
    await h.turn('*** Begin Patch\n*** Add File: gen/later.txt\n+later\n*** End Patch')
    const revert = await plan({ operation: 'revert', turn_id: first })
    expect(revert.folders.removed).toEqual(['gen/a'])
    await applyPlan(revert)
    expect(readdirSync(join(root, 'gen'))).toEqual(['later.txt'])
  })

  test('Rewind across two turns removes the folders both created; its Redo makes them again', async () => {
    const { root, h, plan, applyPlan } = await setup()
    const original = treeFingerprint(root)
    const first = await h.turn(GEN)
    await h.turn('*** Begin Patch\n*** Add File: out/x/y.txt\n+y\n*** Add File: gen/a/d.txt\n+d\n*** End Patch')
    const afterTurns = treeFingerprint(root)
    const rewind = await plan({ operation: 'rewind', turn_id: first, boundary: 'before_turn' })
    expect(rewind.folders.removed).toEqual(['gen/a', 'out/x', 'gen', 'out'])
    await applyPlan(rewind)
    expect(treeFingerprint(root)).toEqual(original)

    const redo = await plan({ operation: 'redo' })
    expect(redo.folders.created).toEqual(['gen', 'out', 'gen/a', 'out/x'])
    await applyPlan(redo)
    expect(treeFingerprint(root)).toEqual(afterTurns)
  })
})
