import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { ResponseEnvelope } from '../src/shared/protocol'
import { digestOf } from '../src/main/core/store'
import { openProject, request, startCore } from './support/core'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

const FLIPPER = join(__dirname, 'support', 'flipper.mjs')
const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

async function startFlipper(mode: 'dir-symlink' | 'leaf-fifo', project: string, name: string, outside: string) {
  const child = spawn(process.execPath, [FLIPPER, mode, project, name, outside], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`flipper exited early (${code})`)))
  })
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    }
    expect(child.exitCode ?? 0, 'the flipper itself failed').toBe(0)
    // Leave the project as the race found it: the real entry back under its name.
    const real = join(project, name)
    const parked = join(project, `.parked-${name}`)
    if (existsSync(parked)) {
      try {
        if (lstatSync(real).isSymbolicLink() || lstatSync(real).isFIFO()) unlinkSync(real)
      } catch {
        // the name was free
      }
      renameSync(parked, real)
    }
    const fifo = join(project, `.fifo-${name}`)
    if (existsSync(fifo)) unlinkSync(fifo)
  }
}

/** Every name in the tree that the journal would use for a temp file. */
function tempFiles(root: string): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name)
      if (name.startsWith('.retrace-tmp-')) found.push(abs)
      if (lstatSync(abs).isDirectory()) walk(abs)
    }
  }
  walk(root)
  return found
}

interface Receipt {
  transaction_id: string
  status: string
  workspace_sequence: number
  files: Array<{ path: string; old_path: string | null; after: { kind: string; digest?: string } }>
}

describe('a local process racing the file system cannot make Retrace touch anything outside the project', () => {
  test('a folder flipped to a symlink to an outside folder during writes, deletes, renames, copies, reads and listings', async () => {
    const root = tempDir()
    const outside = tempDir()
    const inside = 'INSIDE the project\n'
    const secret = 'OUTSIDE the project\n'
    mkdirSync(join(root, 'race'))
    // The outside folder holds files with the same names (and, for m.txt, the same bytes) as the
    // project folder, so an escaped modify/delete/rename would find exactly what it expects.
    for (const dir of [join(root, 'race'), outside]) {
      writeFileSync(join(dir, 'm.txt'), inside)
      writeFileSync(join(dir, 'r.txt'), dir === outside ? secret : inside)
      for (let i = 0; i < 40; i++) writeFileSync(join(dir, `d${i}.txt`), inside)
      for (let i = 0; i < 40; i++) writeFileSync(join(dir, `a${i}.txt`), inside)
    }
    writeFileSync(join(outside, 'only-outside.txt'), secret)
    const outsideBefore = treeFingerprint(outside)

    const core = startCore()
    const project = await openProject(core, root)
    const mutate = (action: string, payload: unknown): Promise<ResponseEnvelope> =>
      core.handle({ ...request(action, payload, { project_id: project.projectId }), idempotency_key: randomUUID() })
    const revision = digestOf(Buffer.from(inside))

    const stop = await startFlipper('dir-symlink', root, 'race', outside)
    const reads: ResponseEnvelope[] = []
    const lists: ResponseEnvelope[] = []
    const outcomes: ResponseEnvelope[] = []
    const track = (response: Promise<ResponseEnvelope>) => response.then((r) => outcomes.push(r))
    try {
      // 40 rounds of every operation; then, on a machine so busy that the flipper never got between
      // a check and a publish (or never let one through), more rounds of creations until both
      // outcomes were seen — the race must have been real for the checks below to mean anything.
      const bothSeen = () => outcomes.some((o) => o.status === 'ok') && outcomes.some((o) => o.status === 'error')
      for (let round = 0; round < 40 || (round < 200 && !bothSeen()); round++) {
        const batch: Array<Promise<unknown>> = []
        for (let k = 0; k < 5; k++) {
          const i = round * 5 + k
          batch.push(
            track(
              mutate('files.write', { path: `race/c${i}.txt`, content: `created ${i}\n`, expected_revision: null }),
            ),
          )
          batch.push(
            core
              .handle(request('files.read', { path: 'race/r.txt' }, { project_id: project.projectId }))
              .then((r) => reads.push(r)),
          )
          batch.push(
            core
              .handle(request('files.list', { path: 'race' }, { project_id: project.projectId }))
              .then((r) => lists.push(r)),
          )
        }
        if (round < 40) {
          batch.push(track(mutate('files.write', { path: 'race/m.txt', content: inside, expected_revision: revision })))
          batch.push(track(mutate('files.delete', { path: `race/d${round}.txt`, expected_revision: revision })))
          batch.push(
            track(
              mutate('files.rename', {
                from: `race/a${round}.txt`,
                to: `race/b${round}.txt`,
                expected_revision: revision,
              }),
            ),
          )
          batch.push(track(mutate('files.copy', { from: 'race/r.txt', to: `copy${round}.txt` })))
        }
        batch.push(
          track(
            mutate('files.write', {
              path: `race/new${round}/deep/n.txt`,
              content: 'nested\n',
              expected_revision: null,
            }),
          ),
        )
        await Promise.all(batch)
      }
    } finally {
      await stop()
    }

    // The race was real: some changes went through, some were refused because a folder changed.
    expect(outcomes.filter((o) => o.status === 'ok').length).toBeGreaterThan(0)
    expect(outcomes.filter((o) => o.status === 'error').length).toBeGreaterThan(0)
    // Nothing outside changed: not a byte, not a name, no temp file.
    expect(treeFingerprint(outside)).toEqual(outsideBefore)
    expect(tempFiles(root)).toEqual([])
    // No read, listing or copy ever returned the outside folder's content.
    for (const r of reads) if (r.status === 'ok') expect((r.result as { text: string }).text).toBe(inside)
    for (const l of lists) {
      if (l.status !== 'ok') continue
      const names = (l.result as { entries: Array<{ name: string }> }).entries.map((e) => e.name)
      expect(names).not.toContain('only-outside.txt')
    }
    for (let round = 0; round < 40; round++) {
      const copy = join(root, `copy${round}.txt`)
      if (existsSync(copy)) expect(readFileSync(copy, 'utf8')).toBe(inside)
    }
    // The journal agrees with the disk: replaying committed transactions in sequence gives, for
    // every path they touched, what is on disk now (paths a recovery_required one touched excepted).
    const listed = await project.call('journal.transactions', { limit: 1000 })
    if (listed.status !== 'ok') throw new Error(JSON.stringify(listed.error))
    const receipts = (listed.result as { transactions: Receipt[] }).transactions
    expect(receipts.some((r) => r.status === 'committed')).toBe(true)
    expect(receipts.filter((r) => r.status === 'prepared')).toEqual([])
    const unknown = new Set(
      receipts.filter((r) => r.status === 'recovery_required').flatMap((r) => r.files.map((f) => f.path)),
    )
    const expected = new Map<string, string>()
    for (const r of [...receipts].sort((a, b) => a.workspace_sequence - b.workspace_sequence)) {
      if (r.status !== 'committed') continue
      for (const f of r.files) {
        if (f.old_path) expected.set(f.old_path, 'absent')
        expected.set(f.path, f.after.kind === 'regular' ? (f.after.digest as string) : f.after.kind)
      }
    }
    // The flipper moves a folder the engine created in its gap (while the name was free) aside,
    // inside the project; a file committed there is looked for where the flipper put it.
    const asides = readdirSync(root).filter((name) => name.startsWith('.taken-race-'))
    for (const [path, state] of expected) {
      if (unknown.has(path)) continue
      const abs = join(root, ...path.split('/'))
      if (state === 'absent') expect(existsSync(abs), path).toBe(false)
      else if (state.startsWith('sha256:')) {
        const candidates = [abs, ...(path.startsWith('race/') ? asides.map((a) => join(root, a, path.slice(5))) : [])]
        const digests = candidates.filter((c) => existsSync(c)).map((c) => digestOf(readFileSync(c)))
        expect(digests, path).toContain(state)
      }
    }
  }, 120_000)

  test('a file flipped to a FIFO never hangs the engine: app.info answers throughout', async () => {
    const root = tempDir()
    const outside = tempDir()
    mkdirSync(join(root, 'race'))
    writeFileSync(join(root, 'race', 'f.txt'), 'regular\n')
    const core = startCore()
    const project = await openProject(core, root)
    const mutate = (action: string, payload: unknown): Promise<ResponseEnvelope> =>
      core.handle({ ...request(action, payload, { project_id: project.projectId }), idempotency_key: randomUUID() })
    const revision = digestOf(Buffer.from('regular\n'))
    const stop = await startFlipper('leaf-fifo', join(root, 'race'), 'f.txt', outside)
    let probing = true
    const latencies: number[] = []
    const probe = (async () => {
      while (probing) {
        const started = performance.now()
        const info = await core.handle(request('app.info', {}))
        expect(info.status).toBe('ok')
        latencies.push(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    try {
      const work: Array<Promise<ResponseEnvelope>> = []
      for (let i = 0; i < 600; i++) {
        work.push(project.call('files.read', { path: 'race/f.txt' }))
        work.push(project.call('files.list', { path: 'race' }))
        work.push(mutate('files.write', { path: 'race/f.txt', content: 'regular\n', expected_revision: revision }))
        if (i % 6 === 0) work.push(mutate('files.copy', { from: 'race/f.txt', to: `c${i}.txt` }))
        if (i % 20 === 0) await Promise.all(work.slice(-20))
      }
      // Liveness, not speed: every request settles (a blocking open would never return).
      const settled = await Promise.race([
        Promise.all(work),
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 60_000)),
      ])
      expect(settled).not.toBe('hung')
    } finally {
      probing = false
      await probe
      await stop()
    }
    expect(latencies.length).toBeGreaterThan(0)
    expect(Math.max(...latencies)).toBeLessThan(5_000)
    expect(tempFiles(root)).toEqual([])
  }, 120_000)
})
