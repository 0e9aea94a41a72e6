import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { TurnPart } from '../src/shared/protocol'
import { agentFixture, eventLog, resultOf } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { send } from './support/protocol'
import { tempDir } from './support/temp'

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})
async function fake() {
  const server = await startFakeOpenAI()
  fakes.push(server)
  return server
}

function gitProject(files: Record<string, string> = { 'keep.txt': 'keep\n' }) {
  const root = realpathSync(tempDir('retrace-attribution-'))
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content)
  git('add', '-A')
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')
  return root
}

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', input: { command, timeout_ms: 20_000 } }],
})
const done = { kind: 'stream' as const, steps: [{ text: 'Done.' }] }
/** A shell loop that waits (bounded by the command's timeout) until a file exists. */
const waitFor = (path: string) => `while [ ! -e ${path} ]; do sleep 0.02; done`

type Plan = {
  status: string
  plan_hash: string
  actions: Array<{ path: string; target: { kind: string }; source?: string }>
  unavailable: Array<{ path: string; reason: string }>
  command_held?: Array<{ path: string; reason: string }>
  impact: { files: number; command_files: number }
}
type Summary = {
  files: number
  command_files?: number
  command_held?: Array<{ reason: string; files: number }>
  command_excluded?: Array<{ reason: string; files: number }>
  command_unrecorded?: { reason: string; message: string }
}
const partsOf = <T extends TurnPart['type']>(parts: TurnPart[], type: T) =>
  parts.filter((p): p is Extract<TurnPart, { type: T }> => p.type === type)

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 1_000 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!check()) throw new Error(`timed out waiting for ${what}`)
}

describe('issue 23 item 17: what the person writes during a turn is never a command change', () => {
  test('a file written through files.write while a command runs, and one written on disk before the next command, are shown but not undone', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', `echo gen > gen.txt && ${waitFor('mine.txt')}`)] },
      { kind: 'stream', steps: [bash('c2', 'echo more > more.txt')] },
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('generate')
    await agent.approvalFor(turnId, 'c1')
    resultOf(await agent.session('session.approve', { tool_call_id: 'c1', decision: 'approve' }))
    await until(() => existsSync(join(root, 'gen.txt')), 'the command to start')
    // The person saves a new file through Retrace while the command runs.
    const written = await send(
      agent.core,
      'files.write',
      { path: 'mine.txt', content: 'mine\n', expected_revision: null },
      { owner: { project_id: agent.project.projectId } },
    )
    expect(written.status).toBe('ok')
    await agent.approvalFor(turnId, 'c2')
    // Between two steps, while the next command waits for approval, the person writes on disk.
    writeFileSync(join(root, 'by-hand.txt'), 'by hand\n')
    resultOf(await agent.session('session.approve', { tool_call_id: 'c2', decision: 'approve' }))
    const finished = await agent.finished(turnId)
    expect(finished.summary).toMatchObject({
      command_files: 2,
      command_held: [{ reason: 'person', files: 2 }],
    })
    const node = await agent.turn(turnId)
    expect(partsOf(node.parts, 'patch').flatMap((p) => p.held ?? [])).toEqual([
      { path: 'mine.txt', reason: 'person' },
      { path: 'by-hand.txt', reason: 'person' },
    ])

    const plan = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(plan.actions.map((a) => [a.path, a.target.kind, a.source]).sort()).toEqual([
      ['gen.txt', 'absent', 'command'],
      ['more.txt', 'absent', 'command'],
    ])
    expect(plan.command_held).toEqual([
      { path: 'by-hand.txt', reason: 'person' },
      { path: 'mine.txt', reason: 'person' },
    ])
    // Restored only when the person asks for that file by name.
    const asked = resultOf(
      await agent.session('history.plan', {
        operation: 'undo',
        turn_id: turnId,
        include_commands: true,
        include_conflicting: ['by-hand.txt'],
      }),
    ) as Plan
    expect(asked.actions.map((a) => a.path).sort()).toEqual(['by-hand.txt', 'gen.txt', 'more.txt'])

    resultOf(await agent.session('history.apply', { plan_hash: plan.plan_hash }))
    expect(existsSync(join(root, 'gen.txt'))).toBe(false)
    expect(existsSync(join(root, 'more.txt'))).toBe(false)
    expect(existsSync(join(root, 'mine.txt'))).toBe(true)
    expect(existsSync(join(root, 'by-hand.txt'))).toBe(true)
  })
})

describe('issue 23 item 18: two sessions on one project', () => {
  test("each session's commands are credited only with their own files; a file changed while both ran is ambiguous to both", async () => {
    const root = gitProject()
    const signals = tempDir('retrace-attribution-signals-')
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('a1', `echo a > a.txt && ${waitFor('b.txt')}`)] },
      {
        kind: 'stream',
        steps: [bash('b1', `echo b > b.txt && ${waitFor(join(signals, 'release'))} && echo b2 > b2.txt`)],
      },
      done,
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const created = resultOf(await agent.project.call('session.create', { title: 'B', permission_mode: 'auto' })) as {
      session_id: string
    }
    const sessionB = (action: string, payload: Record<string, unknown> = {}) =>
      send(
        agent.core,
        action as never,
        (action.startsWith('session.') ? { session_id: created.session_id, ...payload } : payload) as never,
        {
          owner: { project_id: agent.project.projectId, session_id: created.session_id },
        },
      )
    const events = eventLog(agent.core)

    const turnA = await agent.prompt('session A works')
    await until(() => existsSync(join(root, 'a.txt')), "A's command")
    const turnB = (resultOf(await sessionB('session.prompt', { text: 'session B works' })) as { turn_id: string })
      .turn_id
    const finishedA = await agent.finished(turnA)
    // B's last write comes after A's turn has ended: only B was running then.
    writeFileSync(join(signals, 'release'), '')
    const finishedB = (
      await events.waitFor((f) => f.event === 'turn.finished' && (f.data as { turn_id: string }).turn_id === turnB)
    ).data as { summary: Summary }

    expect(finishedA.summary).toMatchObject({ command_files: 1, command_held: [{ reason: 'ambiguous', files: 1 }] })
    expect(finishedB.summary).toMatchObject({ command_files: 1, command_held: [{ reason: 'ambiguous', files: 1 }] })

    const planA = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnA, include_commands: true }),
    ) as Plan
    expect(planA.actions.map((a) => a.path)).toEqual(['a.txt'])
    expect(planA.command_held).toEqual([{ path: 'b.txt', reason: 'ambiguous' }])
    resultOf(await agent.session('history.apply', { plan_hash: planA.plan_hash }))
    expect(existsSync(join(root, 'a.txt'))).toBe(false)
    expect(existsSync(join(root, 'b.txt'))).toBe(true)
    expect(existsSync(join(root, 'b2.txt'))).toBe(true)

    // Previewed after A's undo (a preview holds only while the workspace is as it was).
    const planB = resultOf(
      await sessionB('history.plan', { operation: 'undo', turn_id: turnB, include_commands: true }),
    ) as Plan
    expect(planB.actions.map((a) => a.path)).toEqual(['b2.txt'])
    expect(planB.command_held).toEqual([{ path: 'b.txt', reason: 'ambiguous' }])
    resultOf(await sessionB('history.apply', { plan_hash: planB.plan_hash }))
    expect(existsSync(join(root, 'b2.txt'))).toBe(false)
    expect(existsSync(join(root, 'b.txt'))).toBe(true)
  })
})

describe('issue 23 item 21: what was not recorded is said', () => {
  test('dependency folders and nested repositories a command made are shown, held or excluded, and never restored unless asked', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          bash(
            'c1',
            [
              'mkdir -p node_modules/x .venv/lib sub',
              'echo 1 > node_modules/x/index.js',
              'echo 2 > .venv/lib/y.py',
              'echo a > sub/a.txt',
              'git init -q fresh && echo f > fresh/f.txt',
              'echo kept > out.txt',
            ].join(' && '),
          ),
        ],
      },
      // A folder the previous step made becomes a repository of its own.
      { kind: 'stream', steps: [bash('c2', 'git -C sub init -q && echo b > sub/a.txt')] },
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('install')
    const finished = (await agent.finished(turnId)) as unknown as { summary: Summary }
    expect(finished.summary).toMatchObject({
      command_files: 1,
      command_held: [
        { reason: 'ignored-folder', files: 2 },
        { reason: 'nested-repository', files: 1 },
      ],
      command_excluded: [{ reason: 'nested-repository', files: 1 }],
    })
    const plan = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(plan.status).toBe('ready')
    expect(plan.actions.map((a) => a.path)).toEqual(['out.txt'])
    expect(plan.command_held).toEqual([
      { path: '.venv/lib/y.py', reason: 'ignored-folder' },
      { path: 'node_modules/x/index.js', reason: 'ignored-folder' },
      { path: 'sub/a.txt', reason: 'nested-repository' },
    ])
    resultOf(await agent.session('history.apply', { plan_hash: plan.plan_hash }))
    expect(existsSync(join(root, 'out.txt'))).toBe(false)
    for (const kept of ['node_modules/x/index.js', '.venv/lib/y.py', 'sub/a.txt', 'fresh/f.txt']) {
      expect(existsSync(join(root, kept))).toBe(true)
    }
  })

  test('a turn whose only change is a file over the snapshot size limit says so', async () => {
    const root = gitProject()
    const llm = await fake()
    llm.enqueue({ kind: 'stream', steps: [bash('c1', 'head -c 3145728 /dev/zero > big.bin')] }, done)
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('make a big file')
    const finished = (await agent.finished(turnId)) as unknown as { summary: Summary | null }
    expect(finished.summary).toMatchObject({ files: 0, command_excluded: [{ reason: 'large', files: 1 }] })
    const node = await agent.turn(turnId)
    expect(partsOf(node.parts, 'patch').map((p) => [p.files, p.excluded])).toEqual([
      [[], [{ path: 'big.bin', reason: 'large', size: 3 * 1024 * 1024 }]],
    ])
  })

  test('a command step whose snapshot failed records no tree id and the turn says why', async () => {
    const root = gitProject()
    const dataDir = tempDir('retrace-attribution-data-')
    const llm = await fake()
    // The command damages the shadow repository's index: the capture after it fails.
    llm.enqueue(
      {
        kind: 'stream',
        steps: [bash('c1', `echo a > a.txt && for f in ${dataDir}/snapshot/*/*/index; do echo junk > "$f"; done`)],
      },
      done,
    )
    const agent = await agentFixture(root, llm, { mode: 'auto', dataDir })
    expect(readdirSync(join(dataDir, 'snapshot')).length).toBeGreaterThan(0)
    const turnId = await agent.prompt('break it')
    const finished = (await agent.finished(turnId)) as unknown as { summary: Summary | null }
    expect(finished.summary?.command_unrecorded?.reason).toBe('failed')
    const node = await agent.turn(turnId)
    const finish = partsOf(node.parts, 'step-finish')[0]
    expect(finish?.snapshot).toBeNull()
    expect(finish?.snapshot_note?.reason).toBe('failed')
    expect(partsOf(node.parts, 'patch')).toEqual([])
  })
})
