import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import { planApplyPatch, planWrite } from '../src/main/core/journal'
import { medianPairMs, report } from './measure'
import { sendUntyped } from '../test/support/protocol'

const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }

/**
 * Review (spec 12): a 100-row page from a 10 000-file turn (budget ≤ 50 ms server time) and a
 * 200-line diff page (≤ 20 ms). Baselines in the same run: `journal.transactions` answering one
 * 100-receipt page of the same turn (the raw rows a page is made from), and `files.read` of the
 * same file (the bytes a diff page is made from).
 */
export async function benchReview(files = 10_000): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-review-'))
  try {
    const root = join(work, 'project')
    mkdirSync(root)
    const before = Array.from({ length: 2_000 }, (_, i) => `const line${i} = ${i}`).join('\n') + '\n'
    writeFileSync(join(root, 'long.ts'), before)
    const core = createCore({ dataDir: join(work, 'data'), host, agent: { env: {}, ollamaUrl: null } })
    const call = async (action: string, owner: object, payload: unknown) => {
      const response = await sendUntyped(core, action, payload, { owner })
      if (response.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(response.error)}`)
      return response.result as Record<string, unknown>
    }
    const project = (await call('project.open', {}, { path: root })) as { project_id: string }
    const session = (await call('session.create', { project_id: project.project_id }, {})) as { session_id: string }
    const owner = { project_id: project.project_id, session_id: session.session_id }
    const turn = await core.turns.begin(project.project_id, session.session_id, 'generate')
    if (turn.kind !== 'ok') throw new Error('no turn')
    // One transaction per 1 000 files, as an agent's patches would be.
    for (let chunk = 0; chunk < files / 1_000; chunk++) {
      const body = Array.from(
        { length: 1_000 },
        (_, i) => `*** Add File: gen/d${chunk}/f${i}.ts\n+export const v = ${chunk * 1_000 + i}\n`,
      ).join('')
      const added = await core.turns.mutate(project.project_id, turn.result, (context) =>
        planApplyPatch(context, `*** Begin Patch\n${body}*** End Patch\n`),
      )
      if (added.kind !== 'ok') throw new Error(JSON.stringify(added.error))
    }
    const revision = ((await call('files.read', owner, { path: 'long.ts' })) as { revision: string }).revision
    const after = before.replace(/= (\d*7)$/gm, '= $1 + 1')
    await core.turns.mutate(project.project_id, turn.result, (context) =>
      planWrite(context, { path: 'long.ts', source: { content: Buffer.from(after) }, expected: revision }),
    )
    await core.turns.finalize(project.project_id, turn.result, { parts: [], status: 'complete' })

    const scope = { scope: 'turn', turn_id: turn.result.turn_id }
    const first = (await call('review.files', owner, scope)) as { snapshot_id: string; next_cursor: string }
    const [pageMs, receiptsMs] = await medianPairMs(
      () => call('review.files', owner, { ...scope, cursor: first.next_cursor }),
      () => call('journal.transactions', owner, { origin_turn_id: turn.result.turn_id, limit: 100 }),
      25,
      3,
    )
    report(
      `review: 100-row page of a ${files}-file turn (≤ 50 ms: ${pageMs <= 50 ? 'met' : 'MISSED'})`,
      pageMs,
      receiptsMs,
    )
    const started = process.hrtime.bigint()
    await call('review.files', owner, { ...scope, filter: { category: 'code' }, sort: 'size' })
    const snapshotMs = Number(process.hrtime.bigint() - started) / 1e6
    process.stdout.write(
      `review: first page (filter + sort + snapshot of ${files + 1} files)  ${snapshotMs.toFixed(1)} ms\n`,
    )

    const [diffMs, readMs] = await medianPairMs(
      () => call('review.diff', owner, { snapshot_id: first.snapshot_id, path: 'long.ts' }),
      () => call('files.read', owner, { path: 'long.ts' }),
      25,
      3,
    )
    report(
      `review: 200-line diff page of a 2 000-line file (≤ 20 ms: ${diffMs <= 20 ? 'met' : 'MISSED'})`,
      diffMs,
      readMs,
    )
    core.dispose()
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
