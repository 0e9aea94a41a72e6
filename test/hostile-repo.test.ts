import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { agentFixture, resultOf } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { hostileRepo, markerProgram, type HostileRepo } from './support/hostile-repo'
import { tempDir } from './support/temp'

/*
 * Issue 23 items 1 and 19, end to end through the protocol: a project whose repository names
 * programs everywhere git could run one, and a person whose global git config names hooks, an
 * fsmonitor and a filter — opened, listed, searched, reviewed in every git sub-scope, snapshotted
 * by an agent command, undone with command rows and forked with files. Not one of them runs.
 */

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  vi.unstubAllEnvs()
  for (const fake of fakes.splice(0)) await fake.close()
})

/** The person's own global config (through GIT_CONFIG_GLOBAL, which Retrace passes to git as theirs). */
function hostileGlobalConfig(): { ran: () => string[] } {
  const base = realpathSync(tempDir('retrace-global-'))
  const markers = join(base, 'markers')
  const hooks = join(base, 'hooks')
  const bin = join(base, 'bin')
  for (const dir of [markers, hooks, bin]) mkdirSync(dir)
  for (const hook of ['post-index-change', 'post-checkout', 'reference-transaction', 'pre-auto-gc', 'pre-commit']) {
    markerProgram(hooks, markers, `global-hook-${hook}`)
  }
  writeFileSync(join(base, 'attributes'), '*.global filter=personal diff=personal\n')
  writeFileSync(
    join(base, 'config'),
    [
      '[core]',
      `\thooksPath = ${hooks}`,
      `\tfsmonitor = ${markerProgram(bin, markers, 'global-fsmonitor', 'exit 1')}`,
      `\tattributesFile = ${join(base, 'attributes')}`,
      '[filter "personal"]',
      `\tclean = ${markerProgram(bin, markers, 'global-filter-clean', 'cat')}`,
      `\tsmudge = ${markerProgram(bin, markers, 'global-filter-smudge', 'cat')}`,
      '[diff "personal"]',
      `\ttextconv = ${markerProgram(bin, markers, 'global-textconv', 'cat "$1"')}`,
      '',
    ].join('\n'),
  )
  vi.stubEnv('GIT_CONFIG_GLOBAL', join(base, 'config'))
  return { ran: () => readdirSync(markers).sort() }
}

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] })

async function openHostile(repo: HostileRepo) {
  const llm = await startFakeOpenAI()
  fakes.push(llm)
  // Secrets in the engine's environment: none may reach git (runner.test.ts reads git's environment).
  vi.stubEnv('OPENAI_API_KEY', 'sk-should-not-leak')
  vi.stubEnv('GITHUB_TOKEN', 'ghp-should-not-leak')
  const agent = await agentFixture(repo.root, llm, { mode: 'auto' })
  return { llm, agent }
}

type Page = { snapshot_id: string; files: Array<{ path: string }> }

/** The explorer, search and every sub-scope of Review's git workspace, with a diff of each file listed. */
async function browseEverything(agent: Awaited<ReturnType<typeof agentFixture>>, repo: HostileRepo) {
  const call = agent.project.call
  const status = resultOf(await call('git.status', {})) as { kind: string; entries: Array<{ path: string }> }
  expect(status.kind).toBe('ok')
  expect(repo.ran()).toEqual([])
  resultOf(await call('files.list', { path: '' }))
  const found = resultOf(await call('files.search', { query: 'txt' })) as { entries: Array<{ path: string }> }
  expect(found.entries.map((e) => e.path)).toContain('a.txt')
  expect(repo.ran()).toEqual([])
  const listed: Record<string, string[]> = {}
  for (const sub of ['unstaged', 'staged', 'branch', 'commit'] as const) {
    const page = resultOf(await agent.session('review.files', { scope: 'workspace', sub_scope: sub })) as Page
    listed[sub] = page.files.map((f) => f.path)
    for (const file of page.files) {
      resultOf(await agent.session('review.diff', { snapshot_id: page.snapshot_id, path: file.path }))
    }
  }
  return { status, listed }
}

describe('a hostile repository runs nothing of its own (issue 23 items 1 and 19)', () => {
  test('open, explorer, search, Review, an agent command with snapshots, undo with command rows, fork with files', async () => {
    const repo = hostileRepo()
    const global = hostileGlobalConfig()
    const { llm, agent } = await openHostile(repo)
    expect(repo.ran()).toEqual([])

    const { status, listed } = await browseEverything(agent, repo)
    expect(status.entries.map((e) => e.path)).toEqual(['b.txt', 'notes.md', 'new.txt'])
    expect(listed).toEqual({
      unstaged: ['new.txt', 'notes.md'],
      staged: ['b.txt'],
      branch: ['a.txt', 'b.txt', 'new.txt', 'notes.md'],
      commit: ['a.txt'],
    })

    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'echo changed > a.txt && echo made > made.txt && echo g > g.global')] },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const turnId = await agent.prompt('change things')
    expect((await agent.finished(turnId)).status).toBe('complete')
    const node = await agent.turn(turnId)
    const patch = node.parts.find((p) => p.type === 'patch') as { files: string[] } | undefined
    expect(patch?.files).toEqual(['a.txt', 'g.global', 'made.txt'])

    const plan = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as { status: string; plan_hash: string }
    expect(plan.status).toBe('ready')
    resultOf(await agent.session('history.apply', { plan_hash: plan.plan_hash }))
    expect(readFileSync(join(repo.root, 'a.txt'), 'utf8')).toBe('two\n')

    const forked = resultOf(await agent.session('session.fork', { node_id: turnId, with_files: true })) as {
      worktree: { path: string }
    }
    // The commit's bytes: no smudge filter wrote them.
    expect(readFileSync(join(forked.worktree.path, 'b.txt'), 'utf8')).toBe('bee staged\n')

    expect(repo.ran()).toEqual([])
    expect(global.ran()).toEqual([])
  })

  test('a .git file pointing at another hostile repository: open, explorer, search and Review run nothing', async () => {
    const repo = hostileRepo({ gitfile: true })
    const global = hostileGlobalConfig()
    const { agent } = await openHostile(repo)
    const { listed } = await browseEverything(agent, repo)
    expect(listed.staged).toEqual(['b.txt'])
    expect(repo.ran()).toEqual([])
    expect(global.ran()).toEqual([])
  })

  test("the person's global hooks, fsmonitor and filters do not run inside step snapshots of a plain repository", async () => {
    const root = realpathSync(tempDir('retrace-plain-'))
    execFileSync('git', ['-C', root, 'init', '-q'])
    writeFileSync(join(root, 'keep.txt'), 'keep\n')
    execFileSync('git', ['-C', root, 'add', '-A'])
    execFileSync('git', [
      '-C',
      root,
      '-c',
      'user.email=t@example.com',
      '-c',
      'user.name=T',
      'commit',
      '-q',
      '-m',
      'one',
    ])
    const global = hostileGlobalConfig()
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'echo changed > keep.txt && echo g > g.global')] },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('change things')
    expect((await agent.finished(turnId)).status).toBe('complete')
    const node = await agent.turn(turnId)
    const patch = node.parts.find((p) => p.type === 'patch') as { files: string[] } | undefined
    expect(patch?.files).toEqual(['g.global', 'keep.txt'])
    resultOf(await agent.project.call('git.status', {}))
    expect(global.ran()).toEqual([])
  })
})
