import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { FAULT_PHASES } from '../src/main/core/journal'
import { digestOf } from '../src/main/core/store'
import { openProject, startCore } from './support/core'
import { tempDir } from './support/temp'
import { send, sendUntyped } from './support/protocol'

const CHILD = join(__dirname, 'support', 'crash-child.mts')

function runChild(dataDir: string, root: string, request: object, fault: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', CHILD, dataDir, root, JSON.stringify(request)], {
    env: { ...process.env, RETRACE_FAULT: fault },
    encoding: 'utf8',
    timeout: 60_000,
  })
}

const rev = (s: string) => digestOf(Buffer.from(s))

type Op = {
  name: string
  /** Phases this operation never reaches (a delete writes no temp file). */
  skips?: readonly string[]
  files: Record<string, string>
  request: (key: string) => { action: string; payload: unknown; key: string }
  /** The tree after a successful run, path → content (null = absent). */
  after: Record<string, string | null>
}

const OPS: Op[] = [
  {
    name: 'modify',
    files: { 'a.txt': 'before\n' },
    request: (key) => ({
      action: 'files.write',
      key,
      payload: { path: 'a.txt', content: 'after\n', expected_revision: rev('before\n') },
    }),
    after: { 'a.txt': 'after\n' },
  },
  {
    name: 'create',
    files: {},
    request: (key) => ({ action: 'files.create', key, payload: { path: 'new.txt', kind: 'file', content: 'fresh' } }),
    after: { 'new.txt': 'fresh' },
  },
  {
    name: 'delete',
    skips: ['after-temp-write'],
    files: { 'gone.txt': 'bye' },
    request: (key) => ({ action: 'files.delete', key, payload: { path: 'gone.txt', expected_revision: rev('bye') } }),
    after: { 'gone.txt': null },
  },
  {
    name: 'rename',
    files: { 'old.txt': 'moving' },
    request: (key) => ({
      action: 'files.rename',
      key,
      payload: { from: 'old.txt', to: 'new.txt', expected_revision: rev('moving') },
    }),
    after: { 'old.txt': null, 'new.txt': 'moving' },
  },
]

/** Which terminal state spec 03 requires after a crash at each phase of a one-file transaction. */
const EXPECTED: Record<(typeof FAULT_PHASES)[number], 'aborted' | 'committed'> = {
  'after-prepare': 'aborted',
  'after-blobs': 'aborted',
  'after-temp-write': 'aborted',
  'after-publish-file': 'committed',
  'before-commit': 'committed',
  'after-commit': 'committed',
}

function contents(root: string, paths: string[]): Record<string, string | null> {
  return Object.fromEntries(
    paths.map((p) => [p, existsSync(join(root, p)) ? readFileSync(join(root, p), 'utf8') : null]),
  )
}

describe('crash at every phase of a trusted write (a real child process, SIGKILLed)', () => {
  for (const op of OPS) {
    for (const phase of FAULT_PHASES.filter((p) => !op.skips?.includes(p))) {
      test(`${op.name}, killed ${phase}: restart settles it as ${EXPECTED[phase]}, bytes exact, temp files gone`, async () => {
        const root = tempDir()
        const dataDir = tempDir()
        for (const [path, content] of Object.entries(op.files)) writeFileSync(join(root, path), content)
        const paths = [...new Set([...Object.keys(op.files), ...Object.keys(op.after)])]
        const original = contents(root, paths)
        const key = randomUUID()
        const child = runChild(dataDir, root, op.request(key), phase)
        expect(child.signal, child.stderr).toBe('SIGKILL')

        const core = startCore({ dataDir })
        await core.ready
        const project = await openProject(core, root)
        const listed = await project.call('journal.transactions', {})
        const transactions =
          listed.status === 'ok' ? (listed.result as { transactions: Array<{ status: string }> }).transactions : []
        const expected = EXPECTED[phase]
        expect(transactions.map((t) => t.status)).toEqual([expected])
        expect(contents(root, paths)).toEqual(expected === 'committed' ? { ...original, ...op.after } : original)
        expect(readdirSync(root).filter((name) => name.startsWith('.retrace-tmp-'))).toEqual([])

        // Retrying with the same key after the crash: an interrupted (aborted) request runs again;
        // a committed one replays; either way the tree ends in the requested state, written once.
        const retry = await sendUntyped(core, op.request(key).action, op.request(key).payload, {
          owner: { project_id: project.projectId },
          key: key,
        })
        expect(retry.status, JSON.stringify(retry)).toBe('ok')
        expect(contents(root, paths)).toEqual({ ...original, ...op.after })
        const after = await project.call('journal.transactions', {})
        const committed =
          after.status === 'ok'
            ? (after.result as { transactions: Array<{ status: string }> }).transactions.filter(
                (t) => t.status === 'committed',
              )
            : []
        expect(committed).toHaveLength(1)
      })
    }
  }
})

describe('crash inside a two-file patch (one transaction)', () => {
  const PATCH = [
    '*** Begin Patch',
    '*** Update File: a.txt',
    '-a',
    '+A',
    '*** Update File: b.txt',
    '-b',
    '+B',
    '*** End Patch',
  ].join('\n')
  const CASES: Array<[string, 'aborted' | 'rolled_back' | 'committed']> = [
    ['after-prepare', 'aborted'],
    ['after-temp-write@1', 'aborted'],
    ['after-publish-file@1', 'rolled_back'],
    ['after-temp-write@2', 'rolled_back'],
    ['after-publish-file@2', 'committed'],
    ['before-commit', 'committed'],
  ]
  test.each(CASES)('killed %s: restart settles it %s — both files old, or both new', async (fault, expected) => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(root, 'b.txt'), 'b\n')
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'crash-patch-child.mts'), dataDir, root, PATCH],
      { env: { ...process.env, RETRACE_FAULT: fault }, encoding: 'utf8', timeout: 60_000 },
    )
    expect(child.signal, child.stderr).toBe('SIGKILL')
    const core = startCore({ dataDir })
    await core.ready
    const listed = await send(core, 'journal.transactions', {}, { owner: { project_id: 'prj_patch' } })
    const statuses =
      listed.status === 'ok'
        ? (listed.result as { transactions: Array<{ status: string }> }).transactions.map((t) => t.status)
        : []
    expect(statuses).toEqual([expected])
    const both = contents(root, ['a.txt', 'b.txt'])
    expect(both).toEqual(
      expected === 'committed' ? { 'a.txt': 'A\n', 'b.txt': 'B\n' } : { 'a.txt': 'a\n', 'b.txt': 'b\n' },
    )
    expect(readdirSync(root).filter((name) => name.startsWith('.retrace-tmp-'))).toEqual([])
  })
})

describe('recovery repairs what a crash can leave behind', () => {
  test('an after-blob lost with a kill during publish is re-stored from the published bytes', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'v1')
    const first = startCore({ dataDir })
    const project = await openProject(first, root)
    const written = await send(
      first,
      'files.write',
      { path: 'a.txt', content: 'v2', expected_revision: rev('v1') },
      { owner: { project_id: project.projectId } },
    )
    expect(written.status).toBe('ok')
    first.dispose()
    // The state a kill between publish and the after-blob's rename leaves: prepared, no after blob.
    const { DatabaseSync } = await import('node:sqlite')
    const raw = new DatabaseSync(join(dataDir, 'retrace.db'))
    raw.exec("UPDATE transactions SET status = 'prepared', settled_at_ms = NULL")
    raw.close()
    const blobPath = join(dataDir, 'blobs', 'sha256', rev('v2').slice(7, 9), rev('v2').slice(9))
    const { rmSync } = await import('node:fs')
    rmSync(blobPath)

    const second = startCore({ dataDir })
    const report = await second.ready
    expect(report.committed).toHaveLength(1)
    expect(readFileSync(blobPath, 'utf8')).toBe('v2')
  })
})

describe('recovery reads the persisted per-file states', () => {
  test('a file recorded as applied that holds its old bytes again was changed by someone: recovery_required, bytes kept', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    writeFileSync(join(root, 'a.txt'), 'v1')
    const first = startCore({ dataDir })
    const project = await openProject(first, root)
    await send(
      first,
      'files.write',
      { path: 'a.txt', content: 'v2', expected_revision: rev('v1') },
      { owner: { project_id: project.projectId } },
    )
    first.dispose()
    // As if killed after publishing (state: applied) — and then another program put "v1" back.
    const { DatabaseSync } = await import('node:sqlite')
    const raw = new DatabaseSync(join(dataDir, 'retrace.db'))
    raw.exec("UPDATE transactions SET status = 'prepared', settled_at_ms = NULL")
    raw.exec("UPDATE transaction_files SET publish_state = 'applied'")
    raw.close()
    writeFileSync(join(root, 'a.txt'), 'v1')
    const second = startCore({ dataDir })
    const report = await second.ready
    expect(report.recovery_required).toEqual([
      {
        transaction_id: expect.any(String),
        files: [expect.objectContaining({ path: 'a.txt', publish_state: 'applied' })],
      },
    ])
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v1')
  })
})
