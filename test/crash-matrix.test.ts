import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { FAULT_PHASES } from '../src/main/core/journal'
import { digestOf } from '../src/main/core/store'
import { openProject, startCore } from './support/core'
import { tempDir } from './support/temp'

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
const EXPECTED: Record<(typeof FAULT_PHASES)[number], 'none' | 'aborted' | 'committed'> = {
  'after-blobs': 'none',
  'after-prepare': 'aborted',
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
        if (expected === 'none') expect(transactions).toEqual([])
        else expect(transactions.map((t) => t.status)).toEqual([expected])
        expect(contents(root, paths)).toEqual(expected === 'committed' ? { ...original, ...op.after } : original)
        expect(readdirSync(root).filter((name) => name.startsWith('.retrace-tmp-'))).toEqual([])

        // Retrying with the same key after the crash: an interrupted (aborted) request runs again;
        // a committed one replays; either way the tree ends in the requested state, written once.
        const retry = await core.handle({
          request_id: randomUUID(),
          action: op.request(key).action,
          owner: { project_id: project.projectId },
          idempotency_key: key,
          payload: op.request(key).payload,
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
