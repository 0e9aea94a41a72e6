import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { copyFile, open, rename } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { planApplyPatch } from '../src/main/core/journal'
import { fsyncDirectory } from '../src/main/core/platform'
import { medianMs, report } from './measure'
import { resultOrThrow } from '../test/support/protocol'
import type { Owner } from '../src/shared/protocol'

const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }
const TURNS = 50
const FILES = 1000

/**
 * Spec 04 multi-turn rewind at scale: 50 turns that together touched 1 000 files (20 each),
 * rewound to before the first. The plan (the transition over the journal, then a preflight of
 * every file) against the issue's 300 ms budget; the apply (one intent, one 1 000-file journal
 * transaction, the branch effects) against a bare durable copy of the same files, measured here.
 */
export async function benchRewind(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-rewind-'))
  try {
    const root = join(work, 'project')
    mkdirSync(join(root, 'src'), { recursive: true })
    const body = (i: number, v: string) => `export const value${i} = '${v}'\n`.repeat(30)
    for (let i = 0; i < FILES; i++) writeFileSync(join(root, 'src', `f${i}.ts`), body(i, 'before'))
    const core = createCore({ dataDir: join(work, 'data'), host, snapshots: false })
    const call = (action: string, owner: Owner, payload: unknown) => resultOrThrow(core, action, owner, payload)
    const project = (await call('project.open', {}, { path: root })) as { project_id: string }
    const session = (await call('session.create', { project_id: project.project_id }, {})) as { session_id: string }
    let firstTurn = ''
    const perTurn = FILES / TURNS
    for (let t = 0; t < TURNS; t++) {
      const turn = await core.turns.begin(project.project_id, session.session_id, `turn ${t}`)
      if (turn.kind !== 'ok') throw new Error('no turn')
      firstTurn ||= turn.result.turn_id
      const patch = [
        '*** Begin Patch',
        ...Array.from({ length: perTurn }, (_, k) => {
          const i = t * perTurn + k
          return [
            `*** Update File: src/f${i}.ts`,
            ...body(i, 'before')
              .trimEnd()
              .split('\n')
              .map((l) => `-${l}`),
            ...body(i, 'after')
              .trimEnd()
              .split('\n')
              .map((l) => `+${l}`),
          ]
        }).flat(),
        '*** End Patch',
      ].join('\n')
      const applied = await core.turns.mutate(project.project_id, turn.result, (context) =>
        planApplyPatch(context, patch),
      )
      if (applied.kind !== 'ok') throw new Error(JSON.stringify(applied.error))
      await core.turns.finalize(project.project_id, turn.result, { parts: [], status: 'complete' })
    }
    const owner = { project_id: project.project_id, session_id: session.session_id }
    const payload = { operation: 'rewind', turn_id: firstTurn, boundary: 'before_turn', mode: 'code_and_conversation' }
    let plan = { plan_hash: '', status: '' }
    const planMs = await medianMs(
      async () => {
        plan = (await call('history.plan', owner, payload)) as { plan_hash: string; status: string }
      },
      7,
      1,
    )
    if (plan.status !== 'ready') throw new Error(`plan ${plan.status}`)
    const started = process.hrtime.bigint()
    await call('history.apply', owner, { plan_hash: plan.plan_hash })
    const applyMs = Number(process.hrtime.bigint() - started) / 1e6
    core.dispose()

    const source = join(work, 'source')
    const target = join(work, 'target')
    mkdirSync(source)
    mkdirSync(target)
    for (let i = 0; i < FILES; i++) writeFileSync(join(source, `f${i}.ts`), body(i, 'before'))
    const bareStarted = process.hrtime.bigint()
    for (let i = 0; i < FILES; i++) {
      const temp = join(target, `.tmp-${i}`)
      await copyFile(join(source, `f${i}.ts`), temp)
      const handle = await open(temp, 'r+')
      await handle.sync()
      await handle.close()
      await rename(temp, join(target, `f${i}.ts`))
      await fsyncDirectory(target)
    }
    const bareMs = Number(process.hrtime.bigint() - bareStarted) / 1e6
    process.stdout.write(
      `${`rewind plan: ${TURNS} turns, ${FILES} files, to before the first`.padEnd(58)} ${planMs.toFixed(2).padStart(9)} ms  (budget ≤ 300 ms: ${planMs <= 300 ? 'met' : 'MISSED'})\n`,
    )
    report(`rewind apply of ${FILES} files (${TURNS} turns) vs bare durable copy`, applyMs, bareMs, 2)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1]?.endsWith('rewind.bench.ts')) void benchRewind()
