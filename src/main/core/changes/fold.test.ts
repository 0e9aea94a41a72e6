import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { journalFixture } from '../../../../test/support/journal'
import { planApplyPatch } from '../journal'
import { countChanges, foldReceipts } from '.'

describe('the net-change fold', () => {
  test('several mutations of one lineage fold into first-before → last-after, following a rename', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'a.txt'), 'v1\n')
    for (const [from, to] of [
      ['v1', 'v2'],
      ['v2', 'v3'],
    ]) {
      const patch = `*** Begin Patch\n*** Update File: a.txt\n-${from}\n+${to}\n*** End Patch`
      await f.journal.mutate(f.workspace, { kind: 'edit', origin_turn_id: 't' }, () => planApplyPatch(f.context, patch))
    }
    const moved = '*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch'
    await f.journal.mutate(f.workspace, { kind: 'edit', origin_turn_id: 't' }, () => planApplyPatch(f.context, moved))
    const folded = foldReceipts(f.journal.receipts({ workspace_id: f.workspace.workspace_id, origin_turn_id: 't' }))
    expect(folded).toHaveLength(1)
    expect(folded[0]).toMatchObject({ first_path: 'a.txt', last_path: 'b.txt', gaps: 0, recoverability: 'exact' })
    expect(folded[0]?.transactions).toHaveLength(3)
    const [counted] = await countChanges(folded, f.blobs, 1024 * 1024)
    expect(counted?.stats).toEqual({ added: 1, removed: 1, binary: false })
  })

  test('a write outside the journal between two recorded changes is a gap, counted once per break', async () => {
    const f = journalFixture()
    writeFileSync(join(f.root, 'n.txt'), 'one\n')
    const edit = (from: string, to: string) =>
      f.journal.mutate(f.workspace, { kind: 'edit', origin_turn_id: 't' }, () =>
        planApplyPatch(f.context, `*** Begin Patch\n*** Update File: n.txt\n-${from}\n+${to}\n*** End Patch`),
      )
    await edit('one', 'two')
    writeFileSync(join(f.root, 'n.txt'), 'two\noutside\n')
    await edit('two', 'three')
    writeFileSync(join(f.root, 'n.txt'), 'three\noutside\nagain\n')
    await edit('three', 'four')
    const [net] = foldReceipts(f.journal.receipts({ workspace_id: f.workspace.workspace_id, origin_turn_id: 't' }))
    expect(net?.gaps).toBe(2)
    expect(net?.actors.map((a) => a.origin_turn_id)).toEqual(['t', 't', 't'])
  })
})
