import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import { planApplyPatch, planWrite } from '../src/main/core/journal'
import { openProject, request, startCore } from './support/core'
import { resultOf } from './support/agent'
import { tempDir } from './support/temp'

type Page = {
  snapshot_id: string
  files: Array<{
    path: string
    category: string
    added: number | null
    removed: number | null
    operation: string
    source: string
    actor_id: string | null
    producer_turn_id: string | null
  }>
  totals: { files: number; added: number | null; removed: number | null; by_category: Record<string, number> }
  next_cursor: string | null
}

async function setup(root = tempDir('retrace-review-')) {
  const core = startCore()
  const project = await openProject(core, root)
  const created = resultOf(await project.call('session.create', {})) as { session_id: string }
  const call = (action: string, payload: unknown, owner: Record<string, string> = {}) =>
    core.handle(request(action, payload, { project_id: project.projectId, session_id: created.session_id, ...owner }))
  return { core, project, sessionId: created.session_id, call, root }
}

/** One finished turn that adds `files` (path → content) in a single patch. */
async function turnAdding(core: Core, projectId: string, sessionId: string, files: Record<string, string>) {
  const begun = await core.turns.begin(projectId, sessionId, 'make files')
  if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun.error))
  const body = Object.entries(files)
    .map(
      ([path, content]) =>
        `*** Add File: ${path}\n${content
          .split('\n')
          .filter(Boolean)
          .map((l) => `+${l}`)
          .join('\n')}\n`,
    )
    .join('')
  const mutated = await core.turns.mutate(projectId, begun.result, (context) =>
    planApplyPatch(context, `*** Begin Patch\n${body}*** End Patch\n`),
  )
  if (mutated.kind !== 'ok') throw new Error(JSON.stringify(mutated.error))
  await core.turns.finalize(projectId, begun.result, { parts: [], status: 'complete' })
  return begun.result
}

async function allPages(call: (a: string, p: unknown) => Promise<unknown>, payload: Record<string, unknown>) {
  const pages: Page[] = []
  let cursor: string | null | undefined
  do {
    const page = resultOf((await call('review.files', { ...payload, ...(cursor ? { cursor } : {}) })) as never) as Page
    pages.push(page)
    cursor = page.next_cursor
  } while (cursor)
  return pages
}

describe('review.files for This turn and Current branch', () => {
  test('a large turn pages to the end with totals over the whole filtered result and a stable order', async () => {
    const { core, project, sessionId, call } = await setup()
    const files: Record<string, string> = {}
    for (let i = 0; i < 2_500; i++) files[`src/m${String(i).padStart(4, '0')}.ts`] = `export const v${i} = ${i}\n`
    for (let i = 0; i < 7; i++) files[`zz/test/case${i}.test.ts`] = 'test()\nexpect()\n'
    files['docs/guide.md'] = '# Guide\n'
    const turn = await turnAdding(core, project.projectId, sessionId, files)

    const pages = await allPages(call, { scope: 'turn', turn_id: turn.turn_id })
    const rows = pages.flatMap((p) => p.files)
    expect(pages).toHaveLength(26)
    expect(pages.every((p) => p.snapshot_id === pages[0]?.snapshot_id)).toBe(true)
    expect(rows).toHaveLength(2_508)
    expect(new Set(rows.map((r) => r.path)).size).toBe(2_508)
    expect(rows.map((r) => r.path)).toEqual([...rows.map((r) => r.path)].sort())
    expect(pages[0]?.totals).toEqual({
      files: 2_508,
      added: 2_500 + 14 + 1,
      removed: 0,
      by_category: { code: 2_500, tests: 7, docs: 1, large: 0, other: 0 },
    })
    expect(rows[0]).toMatchObject({
      operation: 'create',
      source: 'turn',
      actor_id: 'main',
      producer_turn_id: turn.turn_id,
    })

    // The tests sit after 2 500 code files in path order; filtered, they are page one, totals exact.
    const tests = resultOf(
      (await call('review.files', { scope: 'turn', turn_id: turn.turn_id, filter: { category: 'tests' } })) as never,
    ) as Page
    expect(tests.files.map((f) => f.path)).toEqual(Array.from({ length: 7 }, (_, i) => `zz/test/case${i}.test.ts`))
    expect(tests.totals).toMatchObject({ files: 7, added: 14, removed: 0 })
    expect(tests.next_cursor).toBeNull()
    const queried = resultOf(
      (await call('review.files', { scope: 'turn', turn_id: turn.turn_id, filter: { query: 'GUIDE' } })) as never,
    ) as Page
    expect(queried.files.map((f) => f.path)).toEqual(['docs/guide.md'])
  })

  test('a cursor is bound to its query, scope, project and basis: anything else is STALE_SNAPSHOT', async () => {
    const { core, project, sessionId, call } = await setup()
    const files: Record<string, string> = {}
    for (let i = 0; i < 150; i++) files[`f${String(i).padStart(3, '0')}.ts`] = `${'x\n'.repeat((i % 5) + 1)}`
    const turn = await turnAdding(core, project.projectId, sessionId, files)
    const first = resultOf((await call('review.files', { scope: 'branch', sort: 'churn' })) as never) as Page
    expect(first.files[0]?.added).toBe(5)
    const cursor = first.next_cursor as string
    const stale = async (payload: unknown, owner: Record<string, string> = {}) => {
      const answer = await call('review.files', payload, owner)
      return answer.status === 'error' ? answer.error.code : 'ok'
    }
    expect(await stale({ scope: 'branch', sort: 'churn', cursor })).toBe('ok')
    expect(await stale({ scope: 'branch', sort: 'path', cursor })).toBe('STALE_SNAPSHOT')
    expect(await stale({ scope: 'turn', turn_id: turn.turn_id, sort: 'churn', cursor })).toBe('STALE_SNAPSHOT')
    expect(await stale({ scope: 'branch', sort: 'churn', filter: { category: 'code' }, cursor })).toBe('STALE_SNAPSHOT')
    expect(await stale({ scope: 'branch', sort: 'churn', cursor: `${cursor.slice(0, -3)}abc` })).toBe('STALE_SNAPSHOT')

    // Another project's session cannot use it.
    const other = await openProject(core, tempDir('retrace-review-other-'))
    const otherSession = resultOf(await other.call('session.create', {})) as { session_id: string }
    const foreign = await core.handle(
      request(
        'review.files',
        { scope: 'branch', sort: 'churn', cursor },
        { project_id: other.projectId, session_id: otherSession.session_id },
      ),
    )
    expect(foreign.status === 'error' && foreign.error.code).toBe('STALE_SNAPSHOT')

    // A new commit on the branch changes the basis.
    await turnAdding(core, project.projectId, sessionId, { 'late.ts': 'late\n' })
    expect(await stale({ scope: 'branch', sort: 'churn', cursor })).toBe('STALE_SNAPSHOT')
    const fresh = resultOf((await call('review.files', { scope: 'branch', sort: 'churn' })) as never) as Page
    expect(fresh.totals.files).toBe(151)
  })

  test('the branch folds each file over its turns and includes restores; a file edited twice has exact net counts', async () => {
    const { core, project, sessionId, call, root } = await setup()
    writeFileSync(join(root, 'a.txt'), 'one\n')
    const edit = async (content: string) => {
      const begun = await core.turns.begin(project.projectId, sessionId, 'edit')
      if (begun.kind !== 'ok') throw new Error('no turn')
      const read = resultOf(await project.call('files.read', { path: 'a.txt' })) as { revision: string }
      await core.turns.mutate(project.projectId, begun.result, (context) =>
        planWrite(context, { path: 'a.txt', source: { content: Buffer.from(content) }, expected: read.revision }),
      )
      await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
      return begun.result
    }
    await edit('one\ntwo\n')
    const second = await edit('one\ntwo\nthree\nfour\n')
    const branch = resultOf((await call('review.files', { scope: 'branch' })) as never) as Page
    expect(branch.files).toMatchObject([{ path: 'a.txt', operation: 'modify', added: 3, removed: 0 }])

    const plan = resultOf((await call('history.plan', { operation: 'undo' })) as never) as { plan_hash: string }
    const applied = await core.handle({
      ...request(
        'history.apply',
        { plan_hash: plan.plan_hash },
        { project_id: project.projectId, session_id: sessionId },
      ),
      idempotency_key: crypto.randomUUID(),
    })
    expect(applied.status).toBe('ok')
    const afterUndo = resultOf((await call('review.files', { scope: 'branch' })) as never) as Page
    expect(afterUndo.files).toMatchObject([{ path: 'a.txt', added: 1, removed: 0, source: 'revert' }])
    const turnOnly = resultOf((await call('review.files', { scope: 'turn', turn_id: second.turn_id })) as never) as Page
    expect(turnOnly.files).toMatchObject([{ path: 'a.txt', added: 2, removed: 0, source: 'turn' }])
  })

  test('Workspace is unavailable for a folder that is not a git repository; unknown turns are NOT_FOUND', async () => {
    const { call } = await setup()
    const answer = await call('review.files', { scope: 'workspace' })
    expect(answer.status === 'error' && answer.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'not-git' },
    })
    const missing = await call('review.files', { scope: 'turn', turn_id: 'turn_nope' })
    expect(missing.status === 'error' && missing.error.code).toBe('NOT_FOUND')
    const git = tempDir('retrace-review-git-')
    execFileSync('git', ['init', '-q', git])
    const inGit = await setup(git)
    const unsupported = await inGit.call('review.files', { scope: 'workspace' })
    expect(unsupported.status === 'error' && unsupported.error.code).toBe('UNSUPPORTED')
  })
})
