import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { journalFixture } from '../../../../test/support/journal'
import { treeFingerprint } from '../../../../test/support/tree'
import { planApplyPatch } from './apply-patch'
import { parsePatch } from './apply-patch-parse'

function write(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

describe('apply_patch grammar', () => {
  test('parses add, delete, update with move, @@ anchors and end-of-file chunks', () => {
    const parsed = parsePatch(
      [
        '*** Begin Patch',
        '*** Add File: new.txt',
        '+hello',
        '*** Delete File: old.txt',
        '*** Update File: src/a.ts',
        '*** Move to: src/b.ts',
        '@@ function main() {',
        ' const x = 1',
        '-const y = 2',
        '+const y = 3',
        '*** End of File',
        '*** End Patch',
      ].join('\n'),
    )
    expect(parsed).toEqual({
      kind: 'ok',
      operations: [
        { kind: 'add', path: 'new.txt', lines: ['hello'] },
        { kind: 'delete', path: 'old.txt' },
        {
          kind: 'update',
          path: 'src/a.ts',
          moveTo: 'src/b.ts',
          chunks: [
            {
              anchor: 'function main() {',
              oldLines: ['const x = 1', 'const y = 2'],
              newLines: ['const x = 1', 'const y = 3'],
              atEndOfFile: true,
            },
          ],
        },
      ],
    })
  })

  test.each([
    ['no begin', '*** Add File: a\n+x\n*** End Patch', 1],
    ['no end', '*** Begin Patch\n*** Add File: a\n+x', 3],
    ['add line without +', '*** Begin Patch\n*** Add File: a\nx\n*** End Patch', 3],
    ['bad chunk marker', '*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch', 4],
    ['same path twice', '*** Begin Patch\n*** Delete File: a\n*** Delete File: a\n*** End Patch', 3],
  ])('%s is a syntax error at line %#', (_name, text, line) => {
    expect(parsePatch(text)).toMatchObject({ kind: 'error', line })
  })
})

describe('apply_patch', () => {
  test('all files of one patch land in one transaction, line endings kept, lineage follows the move', async () => {
    const f = journalFixture()
    write(f.root, { 'src/a.ts': 'function main() {\r\n  const x = 1\r\n  const y = 2\r\n}\r\n', 'old.txt': 'bye\n' })
    const patch = [
      '*** Begin Patch',
      '*** Add File: docs/new.md',
      '+# New',
      '*** Delete File: old.txt',
      '*** Update File: src/a.ts',
      '*** Move to: src/b.ts',
      '@@ function main() {',
      '   const x = 1',
      '-  const y = 2',
      '+  const y = 3',
      '*** End Patch',
    ].join('\n')
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit', origin_turn_id: 'turn_1' }, () =>
      planApplyPatch(f.context, patch),
    )
    expect(outcome).toMatchObject({ kind: 'ok', result: { status: 'committed' } })
    expect(readFileSync(join(f.root, 'docs', 'new.md'), 'utf8')).toBe('# New\n')
    expect(existsSync(join(f.root, 'old.txt'))).toBe(false)
    expect(existsSync(join(f.root, 'src', 'a.ts'))).toBe(false)
    expect(readFileSync(join(f.root, 'src', 'b.ts'), 'utf8')).toBe(
      'function main() {\r\n  const x = 1\r\n  const y = 3\r\n}\r\n',
    )
    const receipts = f.journal.receipts({ workspace_id: f.workspace.workspace_id, origin_turn_id: 'turn_1' })
    expect(receipts).toHaveLength(1)
    expect(receipts[0]?.files.map((file) => [file.operation, file.old_path, file.path])).toEqual([
      ['create', null, 'docs/new.md'],
      ['delete', null, 'old.txt'],
      ['rename', 'src/a.ts', 'src/b.ts'],
    ])
    expect(receipts[0]?.files[2]?.stats).toEqual({ added: 1, removed: 1, binary: false })
    expect(receipts[0]?.files.map((file) => file.publish_state)).toEqual(['verified', 'verified', 'verified'])
  })

  test('whitespace-tolerant matching finds a chunk whose indentation differs', async () => {
    const f = journalFixture()
    write(f.root, { 'a.py': 'def f():\n    return 1   \n' })
    const patch = '*** Begin Patch\n*** Update File: a.py\n@@\n-  return 1\n+    return 2\n*** End Patch'
    expect(await f.journal.mutate(f.workspace, { kind: 'edit' }, () => planApplyPatch(f.context, patch))).toMatchObject(
      { kind: 'ok' },
    )
    expect(readFileSync(join(f.root, 'a.py'), 'utf8')).toBe('def f():\n    return 2\n')
  })

  test('one failing chunk fails the whole patch and nothing is written', async () => {
    const f = journalFixture()
    write(f.root, { 'a.txt': 'one\ntwo\n', 'b.txt': 'three\n' })
    const before = treeFingerprint(f.root)
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.txt',
      '-one',
      '+ONE',
      '*** Update File: b.txt',
      '-not there',
      '+x',
      '*** Add File: c.txt',
      '+c',
      '*** End Patch',
    ].join('\n')
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () => planApplyPatch(f.context, patch))
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { code: 'CONFLICT', details: { path: 'b.txt', reason: 'hunk-mismatch' } },
    })
    expect(treeFingerprint(f.root)).toEqual(before)
    expect(f.journal.receipts({ workspace_id: f.workspace.workspace_id })).toEqual([])
  })

  test('a later file failing at publish rolls back the files already published', async () => {
    const f = journalFixture()
    write(f.root, { 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const patch = '*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch'
    // An external writer changes b.txt between planning and its publish.
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, async () => {
      const planned = await planApplyPatch(f.context, patch)
      writeFileSync(join(f.root, 'b.txt'), 'external\n')
      return planned
    })
    expect(outcome).toMatchObject({ kind: 'error', error: { code: 'CONFLICT', details: { path: 'b.txt' } } })
    expect(readFileSync(join(f.root, 'a.txt'), 'utf8')).toBe('a\n')
    expect(readFileSync(join(f.root, 'b.txt'), 'utf8')).toBe('external\n')
    const [receipt] = f.journal.receipts({ workspace_id: f.workspace.workspace_id })
    expect(receipt?.status).toBe('rolled_back')
    // Per-file states: a.txt was applied and then put back; b.txt was never applied.
    expect(receipt?.files.map((file) => [file.path, file.publish_state])).toEqual([
      ['a.txt', 'rolled_back'],
      ['b.txt', 'pending'],
    ])
  })

  test('one patch creates files in new nested folders in either order (gen/a/b.txt and gen/c.txt)', async () => {
    for (const order of [
      ['gen/a/b.txt', 'gen/c.txt'],
      ['gen/c.txt', 'gen/a/b.txt'],
    ]) {
      const f = journalFixture()
      const patch = [
        '*** Begin Patch',
        ...order.flatMap((path) => [`*** Add File: ${path}`, `+${path}`]),
        '*** End Patch',
      ]
      const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
        planApplyPatch(f.context, patch.join('\n')),
      )
      expect(outcome, order.join(' then ')).toMatchObject({ kind: 'ok', result: { status: 'committed' } })
      for (const path of order) expect(readFileSync(join(f.root, path), 'utf8')).toBe(`${path}\n`)
    }
  })

  test('a folder another program makes where the patch creates one is still refused, and nothing is left', async () => {
    const f = journalFixture()
    const patch = '*** Begin Patch\n*** Add File: gen/a/b.txt\n+b\n*** Add File: gen/c.txt\n+c\n*** End Patch'
    const outcome = await f.journal.mutate(f.workspace, { kind: 'edit' }, async () => {
      const planned = await planApplyPatch(f.context, patch)
      mkdirSync(join(f.root, 'gen'))
      return planned
    })
    expect(outcome).toMatchObject({
      kind: 'error',
      error: { code: 'CONFLICT', details: { detail: 'folder-appeared' } },
    })
    expect(Object.keys(treeFingerprint(f.root))).toEqual(['gen'])
  })

  test('receipts can be read by sequence range and by lineage', async () => {
    const f = journalFixture()
    write(f.root, { 'a.txt': '0\n', 'b.txt': 'b\n' })
    for (let i = 1; i <= 4; i++) {
      const patch = `*** Begin Patch\n*** Update File: a.txt\n-${i - 1}\n+${i}\n*** End Patch`
      await f.journal.mutate(f.workspace, { kind: 'edit' }, () => planApplyPatch(f.context, patch))
    }
    await f.journal.mutate(f.workspace, { kind: 'edit' }, () =>
      planApplyPatch(f.context, '*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** End Patch'),
    )
    const range = f.journal.receipts({ workspace_id: f.workspace.workspace_id, since_sequence: 1, until_sequence: 3 })
    expect(range.map((r) => r.workspace_sequence)).toEqual([2, 3])
    const lineage = range[0]?.files[0]?.file_lineage_id ?? ''
    const byLineage = f.journal.receipts({ workspace_id: f.workspace.workspace_id, file_lineage_id: lineage })
    expect(byLineage.map((r) => r.workspace_sequence)).toEqual([1, 2, 3, 4])
  })
})
