import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { copyFile, rename } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { planApplyPatch } from '../src/main/core/journal'
import { fsyncDirectory } from '../src/main/core/platform'
import { report } from './measure'
import { resultOrThrow } from '../test/support/protocol'
import type { Owner } from '../src/shared/protocol'

const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }

/**
 * Undo of one turn that changed N files: the plan (preflight of every file) against the budget of
 * spec 12, and the apply against a bare durable copy of the same files (copy → fsync → rename →
 * directory fsync), both measured in this run.
 */
async function undoTurn(files: number): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-restore-'))
  try {
    const root = join(work, 'project')
    mkdirSync(join(root, 'src'), { recursive: true })
    const body = (i: number, v: string) => `export const value${i} = '${v}'\n`.repeat(30)
    for (let i = 0; i < files; i++) writeFileSync(join(root, 'src', `f${i}.ts`), body(i, 'before'))
    const core = createCore({ dataDir: join(work, 'data'), host })
    const call = (action: string, owner: Owner, payload: unknown) => resultOrThrow(core, action, owner, payload)
    const project = (await call('project.open', {}, { path: root })) as { project_id: string }
    const session = (await call('session.create', { project_id: project.project_id }, {})) as { session_id: string }
    const turn = await core.turns.begin(project.project_id, session.session_id, 'rename the constant everywhere')
    if (turn.kind !== 'ok') throw new Error('no turn')
    const patch = [
      '*** Begin Patch',
      ...Array.from({ length: files }, (_, i) => [
        `*** Update File: src/f${i}.ts`,
        ...body(i, 'before')
          .trimEnd()
          .split('\n')
          .map((l) => `-${l}`),
        ...body(i, 'after')
          .trimEnd()
          .split('\n')
          .map((l) => `+${l}`),
      ]).flat(),
      '*** End Patch',
    ].join('\n')
    const applied = await core.turns.mutate(project.project_id, turn.result, (context) =>
      planApplyPatch(context, patch),
    )
    if (applied.kind !== 'ok') throw new Error(JSON.stringify(applied.error))
    await core.turns.finalize(project.project_id, turn.result, { parts: [], status: 'complete' })
    const owner = { project_id: project.project_id, session_id: session.session_id }

    let started = process.hrtime.bigint()
    const plan = (await call('history.plan', owner, { operation: 'undo' })) as { plan_hash: string; status: string }
    const planMs = Number(process.hrtime.bigint() - started) / 1e6
    if (plan.status !== 'ready') throw new Error(`plan ${plan.status}`)
    started = process.hrtime.bigint()
    await call('history.apply', owner, { plan_hash: plan.plan_hash })
    const applyMs = Number(process.hrtime.bigint() - started) / 1e6
    core.dispose()

    // Baseline: a bare durable copy of the same number of files of the same size.
    const source = join(work, 'source')
    const target = join(work, 'target')
    mkdirSync(source)
    mkdirSync(target)
    for (let i = 0; i < files; i++) writeFileSync(join(source, `f${i}.ts`), body(i, 'before'))
    started = process.hrtime.bigint()
    for (let i = 0; i < files; i++) {
      const temp = join(target, `.tmp-${i}`)
      await copyFile(join(source, `f${i}.ts`), temp)
      const { open } = await import('node:fs/promises')
      const handle = await open(temp, 'r+')
      await handle.sync()
      await handle.close()
      await rename(temp, join(target, `f${i}.ts`))
      await fsyncDirectory(target)
    }
    const bareMs = Number(process.hrtime.bigint() - started) / 1e6
    const planBudget = files === 1000 ? 300 : undefined
    process.stdout.write(
      `${`undo plan of a ${files}-file turn`.padEnd(58)} ${planMs.toFixed(2).padStart(9)} ms${planBudget ? `  (budget ≤ ${planBudget} ms: ${planMs <= planBudget ? 'met' : 'MISSED'})` : ''}\n`,
    )
    report(`undo apply of a ${files}-file turn vs bare durable copy`, applyMs, bareMs, 2)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

export async function benchRestore(): Promise<void> {
  await undoTurn(1000)
  if (process.env.RETRACE_BENCH_LARGE === '1') await undoTurn(10_000)
}
