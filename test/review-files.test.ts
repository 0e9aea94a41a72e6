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

async function setup(root = tempDir('retrace-review-'), budgetMs?: number) {
  const core = startCore(budgetMs === undefined ? {} : { reviewDiffBudgetMs: budgetMs })
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
  test('a 10 000-file turn pages to the end with totals over the whole filtered result and a stable order', async () => {
    const { core, project, sessionId, call } = await setup()
    const files: Record<string, string> = {}
    for (let i = 0; i < 10_000; i++) files[`src/m${String(i).padStart(5, '0')}.ts`] = `export const v${i} = ${i}\n`
    for (let i = 0; i < 7; i++) files[`zz/test/case${i}.test.ts`] = 'test()\nexpect()\n'
    files['docs/guide.md'] = '# Guide\n'
    const turn = await turnAdding(core, project.projectId, sessionId, files)

    const pages = await allPages(call, { scope: 'turn', turn_id: turn.turn_id })
    const rows = pages.flatMap((p) => p.files)
    expect(pages).toHaveLength(101)
    expect(pages.every((p) => p.snapshot_id === pages[0]?.snapshot_id)).toBe(true)
    expect(rows).toHaveLength(10_008)
    expect(new Set(rows.map((r) => r.path)).size).toBe(10_008)
    expect(rows.map((r) => r.path)).toEqual([...rows.map((r) => r.path)].sort())
    expect(pages[0]?.totals).toEqual({
      files: 10_008,
      added: 10_000 + 14 + 1,
      removed: 0,
      by_category: { code: 10_000, tests: 7, docs: 1, large: 0, other: 0 },
    })
    expect(rows[0]).toMatchObject({
      operation: 'create',
      source: 'turn',
      actor_id: 'main',
      producer_turn_id: turn.turn_id,
    })

    // The tests sit after 10 000 code files in path order; filtered, they are page one, totals exact.
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
  }, 180_000)

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
    const noCommits = await inGit.call('review.files', { scope: 'workspace', sub_scope: 'commit' })
    expect(noCommits.status === 'error' && noCommits.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'no-commits' },
    })
  })
})

type DiffPage = {
  diff_state: string
  hunks: Array<{
    old_start: number
    new_start: number
    continued: boolean
    lines: Array<{ kind: string; text: string; old_line: number | null; new_line: number | null }>
  }>
  next_cursor: string | null
}

/** Rebuilds the after text from the before text and the diff's lines, as a reviewer's tool would. */
function reapply(before: string, lines: DiffPage['hunks'][number]['lines']): string {
  const old = before.split('\n')
  const out: string[] = []
  let next = 1
  for (const line of lines) {
    if (line.old_line !== null) {
      while (next < line.old_line) out.push(old[next++ - 1] as string)
      next = line.old_line + 1
      if (line.kind === 'context') out.push(line.text)
    } else out.push(line.text)
  }
  while (next <= old.length) out.push(old[next++ - 1] as string)
  return out.join('\n')
}

describe('review.diff', () => {
  test('pages of at most 200 lines re-apply exactly to the before text; cursors stay in their file', async () => {
    const { core, project, sessionId, call, root } = await setup()
    const before = Array.from({ length: 1_000 }, (_, i) => `line ${i}`).join('\n') + '\n'
    writeFileSync(join(root, 'big.ts'), before)
    writeFileSync(join(root, 'pic.bin'), Buffer.from([0, 1, 2, 3]))
    const afterLines = before.split('\n')
    for (let i = 10; i < 900; i += 40) afterLines[i] = `changed ${i}`
    for (let i = 500; i < 760; i++) afterLines[i] = `block ${i}`
    const after = afterLines.join('\n')
    const begun = await core.turns.begin(project.projectId, sessionId, 'edit')
    if (begun.kind !== 'ok') throw new Error('no turn')
    for (const [path, content] of [
      ['big.ts', Buffer.from(after)],
      ['pic.bin', Buffer.from([9, 0, 9])],
    ] as const) {
      const read = resultOf(await project.call('files.read', { path })) as { revision: string }
      await core.turns.mutate(project.projectId, begun.result, (context) =>
        planWrite(context, { path, source: { content }, expected: read.revision }),
      )
    }
    await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
    const list = resultOf(
      (await call('review.files', { scope: 'turn', turn_id: begun.result.turn_id })) as never,
    ) as Page

    const pages: DiffPage[] = []
    let cursor: string | null = null
    do {
      const page = resultOf(
        (await call('review.diff', {
          snapshot_id: list.snapshot_id,
          path: 'big.ts',
          ...(cursor ? { cursor } : {}),
        })) as never,
      ) as DiffPage
      pages.push(page)
      cursor = page.next_cursor
      if (cursor && pages.length === 1) {
        const wrongFile = await call('review.diff', { snapshot_id: list.snapshot_id, path: 'pic.bin', cursor })
        expect(wrongFile.status === 'error' && wrongFile.error.code).toBe('STALE_SNAPSHOT')
      }
    } while (cursor)
    expect(pages.length).toBeGreaterThan(2)
    for (const page of pages) expect(page.hunks.reduce((n, h) => n + h.lines.length, 0)).toBeLessThanOrEqual(200)
    expect(pages.some((p) => p.hunks[0]?.continued)).toBe(true)
    expect(
      reapply(
        before,
        pages.flatMap((p) => p.hunks.flatMap((h) => h.lines)),
      ),
    ).toBe(after)

    const binary = resultOf(
      (await call('review.diff', { snapshot_id: list.snapshot_id, path: 'pic.bin' })) as never,
    ) as DiffPage
    expect(binary).toMatchObject({ diff_state: 'binary', hunks: [], next_cursor: null })
    const outside = await call('review.diff', { snapshot_id: list.snapshot_id, path: 'nope.ts' })
    expect(outside.status === 'error' && outside.error.code).toBe('NOT_FOUND')
    const gone = await call('review.diff', { snapshot_id: 'snp_gone', path: 'big.ts' })
    expect(gone.status === 'error' && gone.error.code).toBe('STALE_SNAPSHOT')
  })

  test('a diff over its time budget is reported as timeout, never approximated', async () => {
    const { core, project, sessionId, call } = await setup(undefined, 400)
    const one = Array.from({ length: 6_000 }, (_, i) => `alpha ${i * 7919}`).join('\n')
    const two = Array.from({ length: 6_000 }, (_, i) => `beta ${i * 104729}`).join('\n')
    const turn = await turnAdding(core, project.projectId, sessionId, { 'x.txt': one })
    const read = resultOf(await project.call('files.read', { path: 'x.txt' })) as { revision: string }
    const begun = await core.turns.begin(project.projectId, sessionId, 'rewrite')
    if (begun.kind !== 'ok') throw new Error('no turn')
    await core.turns.mutate(project.projectId, begun.result, (context) =>
      planWrite(context, { path: 'x.txt', source: { content: Buffer.from(two) }, expected: read.revision }),
    )
    await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
    expect(turn.turn_id).not.toBe(begun.result.turn_id)
    const list = resultOf(
      (await call('review.files', { scope: 'turn', turn_id: begun.result.turn_id })) as never,
    ) as Page
    // The diff runs in a worker: the engine's event loop keeps ticking while it works.
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const diff = resultOf(
      (await call('review.diff', { snapshot_id: list.snapshot_id, path: 'x.txt' })) as never,
    ) as DiffPage
    clearInterval(ticker)
    expect(diff).toMatchObject({ diff_state: 'timeout', hunks: [], next_cursor: null })
    expect(ticks).toBeGreaterThanOrEqual(10)
  })
})

function gitRepo(files: Record<string, string>) {
  const root = tempDir('retrace-review-ws-')
  const run = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  run('init', '-q')
  run('config', 'user.email', 'test@example.com')
  run('config', 'user.name', 'Test')
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content)
  run('add', '-A')
  run('commit', '-qm', 'initial')
  return { root, run }
}

describe('review of the git workspace', () => {
  test('all / staged / unstaged candidates with untracked files, ignored ones left out', async () => {
    const { root, run } = gitRepo({ 'a.txt': 'one\n', 'b.txt': 'two\n', 'gone.txt': 'bye\n', '.gitignore': '*.log\n' })
    writeFileSync(join(root, 'a.txt'), 'one\nmore\n')
    writeFileSync(join(root, 'b.txt'), 'two\nstaged\n')
    run('add', 'b.txt')
    writeFileSync(join(root, 'c.txt'), 'new\n')
    writeFileSync(join(root, 'd.log'), 'ignored\n')
    run('rm', '-q', 'gone.txt')
    const { call } = await setup(root)
    const paths = async (sub_scope?: string) => {
      const page = resultOf(
        (await call('review.files', { scope: 'workspace', ...(sub_scope ? { sub_scope } : {}) })) as never,
      ) as Page
      return page.files.map((f) => `${f.operation} ${f.path} +${f.added} -${f.removed}`)
    }
    expect(await paths()).toEqual([
      'modify a.txt +1 -0',
      'modify b.txt +1 -0',
      'create c.txt +1 -0',
      'delete gone.txt +0 -1',
    ])
    expect(await paths('staged')).toEqual(['modify b.txt +1 -0', 'delete gone.txt +0 -1'])
    expect(await paths('unstaged')).toEqual(['modify a.txt +1 -0', 'create c.txt +1 -0'])
    // The workspace belongs to the project: no session is needed to review it.
    const { project } = await setup(root)
    const sessionless = resultOf(await project.call('review.files', { scope: 'workspace' })) as Page
    expect(sessionless.totals.files).toBe(4)
    const branchless = await project.call('review.files', { scope: 'branch' })
    expect(branchless.status === 'error' && branchless.error.code).toBe('INVALID_REQUEST')
  })

  test('a later page or a diff is STALE_SNAPSHOT after the worktree, the index or the untracked set changed', async () => {
    const files: Record<string, string> = { 'a.txt': 'one\n' }
    const { root, run } = gitRepo(files)
    for (let i = 0; i < 120; i++) writeFileSync(join(root, `u${String(i).padStart(3, '0')}.txt`), `${i}\n`)
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\n')
    const { call } = await setup(root)
    const list = async () => resultOf((await call('review.files', { scope: 'workspace' })) as never) as Page
    const code = async (action: string, payload: unknown) => {
      const answer = await call(action, payload)
      return answer.status === 'error' ? answer.error.code : 'ok'
    }

    let first = await list()
    expect(first.totals.files).toBe(121)
    expect(await code('review.diff', { snapshot_id: first.snapshot_id, path: 'a.txt' })).toBe('ok')
    // Edit an already-modified file: the status vector is the same, its worktree identity is not.
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree\n')
    expect(await code('review.files', { scope: 'workspace', cursor: first.next_cursor })).toBe('STALE_SNAPSHOT')
    expect(await code('review.diff', { snapshot_id: first.snapshot_id, path: 'a.txt' })).toBe('STALE_SNAPSHOT')

    first = await list()
    run('add', 'a.txt')
    expect(await code('review.files', { scope: 'workspace', cursor: first.next_cursor })).toBe('STALE_SNAPSHOT')

    first = await list()
    writeFileSync(join(root, 'zz-new.txt'), 'new\n')
    expect(await code('review.files', { scope: 'workspace', cursor: first.next_cursor })).toBe('STALE_SNAPSHOT')

    first = await list()
    expect(await code('review.files', { scope: 'workspace', cursor: first.next_cursor })).toBe('ok')
    const diff = resultOf(
      (await call('review.diff', { snapshot_id: first.snapshot_id, path: 'a.txt' })) as never,
    ) as DiffPage
    expect(
      diff.hunks
        .flatMap((h) => h.lines)
        .filter((l) => l.kind === 'add')
        .map((l) => l.text),
    ).toEqual(['two', 'three'])
  })
})

describe('review of a branch and a commit', () => {
  test('Branch compares with the merge-base of the default branch, worktree and untracked included; Commit is HEAD vs its parent', async () => {
    const { root, run } = gitRepo({ 'base.txt': 'base\n', 'keep.txt': 'keep\n' })
    run('branch', '-M', 'main')
    run('checkout', '-q', '-b', 'feature')
    writeFileSync(join(root, 'base.txt'), 'base\nfeature\n')
    writeFileSync(join(root, 'added.txt'), 'added\n')
    run('add', '-A')
    run('commit', '-qm', 'feature work')
    writeFileSync(join(root, 'keep.txt'), 'keep\nlocal\n')
    writeFileSync(join(root, 'untracked.txt'), 'u\n')
    const { call } = await setup(root)
    const paths = async (sub_scope: string) => {
      const page = resultOf((await call('review.files', { scope: 'workspace', sub_scope })) as never) as Page
      return page.files.map((f) => `${f.operation} ${f.path} +${f.added} -${f.removed}`)
    }
    expect(await paths('branch')).toEqual([
      'create added.txt +1 -0',
      'modify base.txt +1 -0',
      'modify keep.txt +1 -0',
      'create untracked.txt +1 -0',
    ])
    expect(await paths('commit')).toEqual(['create added.txt +1 -0', 'modify base.txt +1 -0'])

    run('checkout', '-q', 'main')
    const onMain = await call('review.files', { scope: 'workspace', sub_scope: 'branch' })
    expect(onMain.status === 'error' && onMain.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'no-base' },
    })
  })
})

test('workspace content past the review storage quota is listed with metadata only, never pinned', async () => {
  const { root } = gitRepo({ 'small.txt': 'a\n', 'big.txt': 'b\n' })
  writeFileSync(join(root, 'small.txt'), 'a\nb\n')
  writeFileSync(join(root, 'big.txt'), 'x'.repeat(5_000))
  const core = startCore({ reviewPinQuotaBytes: 1_000 })
  const project = await openProject(core, root)
  const session = resultOf(await project.call('session.create', {})) as { session_id: string }
  const call = (action: string, payload: unknown) =>
    core.handle(request(action, payload, { project_id: project.projectId, session_id: session.session_id }))
  const page = resultOf((await call('review.files', { scope: 'workspace' })) as never) as Page
  expect(page.files.map((f) => [f.path, f.added, (f as unknown as { diff_state: string }).diff_state])).toEqual([
    ['big.txt', null, 'large'],
    ['small.txt', 1, 'available'],
  ])
  const diff = resultOf(
    (await call('review.diff', { snapshot_id: page.snapshot_id, path: 'big.txt' })) as never,
  ) as DiffPage
  expect(diff).toMatchObject({ diff_state: 'large', hunks: [] })
})

test('a changed image has a before/after preview from the pinned blobs; PSD/TIFF/SVG too, media as media, unknown binaries metadata only', async () => {
  const { tinyPng } = await import('../e2e/support/fixture')
  const { core, project, sessionId, call, root } = await setup()
  const png = tinyPng()
  writeFileSync(join(root, 'pic.png'), png)
  writeFileSync(join(root, 'blob.bin'), Buffer.from([0, 1, 2]))
  const begun = await core.turns.begin(project.projectId, sessionId, 'change the picture')
  if (begun.kind !== 'ok') throw new Error('no turn')
  const changed = Buffer.concat([png, Buffer.from([0])])
  for (const [path, content] of [
    ['pic.png', changed],
    ['blob.bin', Buffer.from([0, 9])],
  ] as const) {
    const read = resultOf(await project.call('files.read', { path })) as { revision: string }
    await core.turns.mutate(project.projectId, begun.result, (context) =>
      planWrite(context, { path, source: { content }, expected: read.revision }),
    )
  }
  // New files (sniffed by content, except SVG which is text): PSD, TIFF, SVG, WAV.
  for (const [path, content] of [
    ['art.psd', Buffer.concat([Buffer.from('8BPS'), Buffer.alloc(40)])],
    ['scan.tif', Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.alloc(40)])],
    ['logo.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['tone.wav', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE'), Buffer.alloc(32)])],
  ] as const) {
    await core.turns.mutate(project.projectId, begun.result, (context) =>
      planWrite(context, { path, source: { content }, expected: null }),
    )
  }
  await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
  const list = resultOf((await call('review.files', { scope: 'turn', turn_id: begun.result.turn_id })) as never) as Page
  const preview = async (path: string, side: string) =>
    resultOf((await call('review.preview', { snapshot_id: list.snapshot_id, path, side })) as never) as {
      kind: string
      mime?: string
      url?: string
      size?: number
    }
  // The pinned blob travels through the byte transfer, as the renderer fetches it — never as base64 in a frame.
  const bytesOf = async (url: string | undefined) => {
    const answer = await core.serveBytes((url ?? '').slice('/api/bytes/'.length), {})
    if (answer.status !== 200 || !answer.body) throw new Error(`byte transfer answered ${answer.status}`)
    const chunks: Uint8Array[] = []
    for await (const chunk of answer.body) chunks.push(chunk)
    return Buffer.concat(chunks)
  }
  const before = await preview('pic.png', 'before')
  expect(before).toMatchObject({ kind: 'image', mime: 'image/png', size: png.length })
  expect(before).not.toHaveProperty('content_base64')
  expect((await bytesOf(before.url)).equals(png)).toBe(true)
  const after = await preview('pic.png', 'after')
  expect((await bytesOf(after.url)).equals(changed)).toBe(true)
  expect(await preview('blob.bin', 'after')).toMatchObject({ kind: 'unsupported' })
  // PSD, TIFF and SVG are shown by the renderer's read-only adapters; audio and video by its player.
  expect(await preview('art.psd', 'after')).toMatchObject({ kind: 'image', mime: 'image/vnd.adobe.photoshop' })
  expect(await preview('scan.tif', 'after')).toMatchObject({ kind: 'image', mime: 'image/tiff' })
  expect(await preview('logo.svg', 'after')).toMatchObject({ kind: 'image', mime: 'image/svg+xml' })
  expect(await preview('tone.wav', 'after')).toMatchObject({ kind: 'media', mime: 'audio/wav' })
  const missing = await call('review.preview', { snapshot_id: 'snp_gone', path: 'pic.png', side: 'after' })
  expect(missing.status === 'error' && missing.error.code).toBe('STALE_SNAPSHOT')
})

test('rows name their change sets; a staged rename shows old ↔ new path; an evicted snapshot is STALE_SNAPSHOT', async () => {
  const { root, run } = gitRepo({ 'old-name.txt': 'same content\nline two\n' })
  run('mv', 'old-name.txt', 'new-name.txt')
  const core = startCore({ reviewSnapshotRows: 150 })
  const project = await openProject(core, root)
  const session = resultOf(await project.call('session.create', {})) as { session_id: string }
  const call = (action: string, payload: unknown) =>
    core.handle(request(action, payload, { project_id: project.projectId, session_id: session.session_id }))
  const staged = resultOf((await call('review.files', { scope: 'workspace', sub_scope: 'staged' })) as never) as Page
  expect(staged.files).toMatchObject([
    { path: 'new-name.txt', old_path: 'old-name.txt', operation: 'rename', added: 0, removed: 0 },
  ])

  const files: Record<string, string> = {}
  for (let i = 0; i < 120; i++) files[`f${String(i).padStart(3, '0')}.ts`] = 'x\n'
  const turn = await turnAdding(core, project.projectId, session.session_id, files)
  const first = resultOf((await call('review.files', { scope: 'turn', turn_id: turn.turn_id })) as never) as Page & {
    files: Array<{ change_set_ids: string[]; transaction_ids: string[] }>
  }
  expect(first.files[0]?.change_set_ids).toHaveLength(1)
  expect(first.files[0]?.change_set_ids[0]).toMatch(/^chg_/)
  // Another 120-row snapshot pushes the first out of the 150-row store.
  await call('review.files', { scope: 'branch' })
  const evicted = await call('review.files', { scope: 'turn', turn_id: turn.turn_id, cursor: first.next_cursor })
  expect(evicted.status === 'error' && evicted.error).toMatchObject({
    code: 'STALE_SNAPSHOT',
    details: { reason: 'evicted' },
  })
})

describe('outside writes between recorded changes are never credited to the agent', () => {
  test('lines appended from a shell between two agent turns: Current branch flags the row with the exact gap count', async () => {
    const { core, project, sessionId, call, root } = await setup()
    writeFileSync(join(root, 'notes.md'), 'one\n')
    const edit = async (from: string, to: string) => {
      const begun = await core.turns.begin(project.projectId, sessionId, 'edit notes')
      if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun.error))
      const patch = `*** Begin Patch\n*** Update File: notes.md\n-${from}\n+${to}\n*** End Patch\n`
      const mutated = await core.turns.mutate(project.projectId, begun.result, (context) =>
        planApplyPatch(context, patch),
      )
      if (mutated.kind !== 'ok') throw new Error(JSON.stringify(mutated.error))
      await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
      return begun.result
    }
    await edit('one', 'ONE')
    // A shell appends two lines between the turns: no receipt, not the agent's.
    writeFileSync(join(root, 'notes.md'), 'ONE\nshell line a\nshell line b\n')
    const second = await edit('shell line a', 'agent reworded a')

    const branch = resultOf((await call('review.files', { scope: 'branch' })) as never) as Page & {
      files: Array<{ outside_changes: number }>
    }
    expect(branch.files).toHaveLength(1)
    expect(branch.files[0]).toMatchObject({ path: 'notes.md', source: 'turn', outside_changes: 1 })
    // The turn alone has no gap: its one receipt starts from what was on disk.
    const turn = resultOf((await call('review.files', { scope: 'turn', turn_id: second.turn_id })) as never) as Page & {
      files: Array<{ outside_changes: number }>
    }
    expect(turn.files[0]).toMatchObject({ added: 1, removed: 1, outside_changes: 0 })
  })
})
