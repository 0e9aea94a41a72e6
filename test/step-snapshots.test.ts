import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { TurnPart } from '../src/shared/protocol'
import { agentFixture, resultOf } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})
async function fake() {
  const server = await startFakeOpenAI()
  fakes.push(server)
  return server
}

function gitProject(files: Record<string, string>) {
  const root = realpathSync(tempDir('retrace-steps-'))
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content)
  git('add', '-A')
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'initial')
  return root
}

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', input: { command } }] })
type Plan = {
  status: string
  plan_hash: string
  actions: Array<{ path: string; target: { kind: string }; source?: string }>
  conflicts: Array<{ path: string; reason: string }>
  unavailable: Array<{ path: string; reason: string }>
  impact: { files: number; command_files: number }
}
type ReviewPage = { snapshot_id: string; files: Array<{ path: string; source: string; operation: string }> }
const partsOf = <T extends TurnPart['type']>(parts: TurnPart[], type: T) =>
  parts.filter((p): p is Extract<TurnPart, { type: T }> => p.type === type)

/** A turn whose command creates gen.txt in one step and whose edit tool changes it two steps later. */
async function generateThenEdit() {
  const root = gitProject({ 'keep.txt': 'keep\n' })
  const llm = await fake()
  llm.enqueue(
    { kind: 'stream', steps: [bash('c1', "printf 'a\\n' > gen.txt")] },
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'r1', name: 'read', input: { file_path: 'gen.txt' } }] }] },
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            { id: 'e1', name: 'edit', input: { file_path: 'gen.txt', old_string: 'a\n', new_string: 'b\n' } },
          ],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'Edited.' }] },
  )
  const agent = await agentFixture(root, llm, { mode: 'auto' })
  const turnId = await agent.prompt('generate then edit')
  return { root, agent, turnId }
}

describe('step snapshots in a turn (issue 16)', () => {
  test('a command that creates, modifies and deletes files: summary, Review and an Undo that also restores them', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n', 'edit.txt': 'one\n', 'gone.txt': 'bye\n' })
    const gitBefore = treeFingerprint(join(root, '.git'))
    writeFileSync(join(root, 'before.txt'), 'made by hand before the turn\n')
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'echo hi > side.txt && echo two > edit.txt && rm gone.txt')] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'notes.md', content: '# notes\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('make some changes')
    await agent.approvalFor(turnId, 'c1')
    await agent.session('session.approve', { tool_call_id: 'c1', decision: 'approve' })
    await agent.approvalFor(turnId, 'w1')
    // The person makes a file by hand while the agent waits on them (a step that ran no command).
    writeFileSync(join(root, 'by-hand.txt'), 'mine\n')
    await agent.session('session.approve', { tool_call_id: 'w1', decision: 'approve' })
    const finished = await agent.finished(turnId)
    expect(finished.summary).toMatchObject({ files: 1, command_files: 3 })

    const node = await agent.turn(turnId)
    const starts = partsOf(node.parts, 'step-start')
    expect(starts).toHaveLength(3)
    for (const start of starts) expect(start.snapshot).toMatch(/^[0-9a-f]{40}$/)
    for (const finish of partsOf(node.parts, 'step-finish')) expect(finish.snapshot).toMatch(/^[0-9a-f]{40}$/)
    const patches = partsOf(node.parts, 'patch')
    expect(patches.map((p) => [p.step, p.files])).toEqual([
      [0, ['edit.txt', 'gone.txt', 'side.txt']],
      [1, ['by-hand.txt', 'notes.md']],
    ])
    expect(patches[0]?.hash).toBe(starts[0]?.snapshot)
    expect(starts[1]?.snapshot).toBe(patches[0]?.after)

    // Review: This turn lists them as command changes, with diffs from the snapshot trees.
    const all = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as ReviewPage
    expect(all.files.map((f) => [f.path, f.source, f.operation])).toEqual([
      ['edit.txt', 'command', 'modify'],
      ['gone.txt', 'command', 'delete'],
      ['notes.md', 'turn', 'create'],
      ['side.txt', 'command', 'create'],
    ])
    const commands = resultOf(
      await agent.session('review.files', { scope: 'turn', turn_id: turnId, filter: { source: 'command' } }),
    ) as ReviewPage
    expect(commands.files.map((f) => f.path)).toEqual(['edit.txt', 'gone.txt', 'side.txt'])
    const diff = resultOf(
      await agent.session('review.diff', { snapshot_id: commands.snapshot_id, path: 'edit.txt' }),
    ) as { hunks: Array<{ lines: Array<{ kind: string; text: string }> }> }
    expect(diff.hunks.flatMap((h) => h.lines.map((l) => `${l.kind}:${l.text}`))).toEqual(['del:one', 'add:two'])

    // Undo without the box: only the exact journal change, and the sheet says what it leaves.
    const plain = resultOf(await agent.session('history.plan', { operation: 'undo', turn_id: turnId })) as Plan
    expect(plain.actions.map((a) => a.path)).toEqual(['notes.md'])
    expect(plain.impact.command_files).toBe(3)

    const withCommands = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(withCommands.status).toBe('ready')
    expect(withCommands.actions.map((a) => [a.path, a.target.kind, a.source ?? 'journal']).sort()).toEqual([
      ['edit.txt', 'regular', 'command'],
      ['gone.txt', 'regular', 'command'],
      ['notes.md', 'absent', 'journal'],
      ['side.txt', 'absent', 'command'],
    ])
    const applied = resultOf(await agent.session('history.apply', { plan_hash: withCommands.plan_hash })) as {
      status: string
    }
    expect(applied.status).toBe('committed')
    expect(readFileSync(join(root, 'edit.txt'), 'utf8')).toBe('one\n')
    expect(readFileSync(join(root, 'gone.txt'), 'utf8')).toBe('bye\n')
    expect(existsSync(join(root, 'side.txt'))).toBe(false)
    expect(existsSync(join(root, 'notes.md'))).toBe(false)
    // Made by hand — before the turn, and during it outside a command step — both survive.
    expect(readFileSync(join(root, 'by-hand.txt'), 'utf8')).toBe('mine\n')
    expect(readFileSync(join(root, 'before.txt'), 'utf8')).toBe('made by hand before the turn\n')
    expect(treeFingerprint(join(root, '.git'))).toEqual(gitBefore)
  })

  test('a file edited by hand after the step blocks the restore with its path, unless explicitly included', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n' })
    const llm = await fake()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [bash('c1', 'echo generated > out.txt && head -c 3145728 /dev/zero > big.bin')],
      },
      { kind: 'stream', steps: [{ text: 'Generated.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('generate')
    await agent.finished(turnId)
    const node = await agent.turn(turnId)
    const patch = partsOf(node.parts, 'patch')[0]
    expect(patch?.files).toEqual(['out.txt'])
    expect(patch?.excluded).toEqual([{ path: 'big.bin', reason: 'large', size: 3 * 1024 * 1024 }])

    writeFileSync(join(root, 'out.txt'), 'edited by hand\n')
    const blocked = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(blocked.status).toBe('blocked')
    expect(blocked.conflicts.map((c) => [c.path, c.reason])).toEqual([['out.txt', 'changed-since']])
    const refused = await agent.session('history.apply', { plan_hash: blocked.plan_hash })
    expect(refused.status).toBe('error')
    expect(readFileSync(join(root, 'out.txt'), 'utf8')).toBe('edited by hand\n')

    const included = resultOf(
      await agent.session('history.plan', {
        operation: 'undo',
        turn_id: turnId,
        include_commands: true,
        include_conflicting: ['out.txt'],
      }),
    ) as Plan
    expect(included.status).toBe('ready')
    resultOf(await agent.session('history.apply', { plan_hash: included.plan_hash }))
    expect(existsSync(join(root, 'out.txt'))).toBe(false)
    // Too large to snapshot: listed, never restored or deleted.
    expect(existsSync(join(root, 'big.bin'))).toBe(true)
  })

  test('a file a command created and a tool then edited goes back to before the turn: absent', async () => {
    const { root, agent, turnId } = await generateThenEdit()
    const finished = await agent.finished(turnId)
    expect(finished.summary).toMatchObject({ files: 1, command_files: 1 })
    const journalOnly = resultOf(await agent.session('history.plan', { operation: 'undo', turn_id: turnId })) as Plan
    expect(journalOnly.actions.map((a) => [a.path, a.target.kind])).toEqual([['gen.txt', 'regular']])
    const both = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(both.actions.map((a) => [a.path, a.target.kind, a.source])).toEqual([['gen.txt', 'absent', 'command']])
    resultOf(await agent.session('history.apply', { plan_hash: both.plan_hash }))
    expect(existsSync(join(root, 'gen.txt'))).toBe(false)
  })

  test('a rewind that also restores command changes puts a file a command created and a tool then edited back: absent', async () => {
    // Issue 24: the rewind orders a turn's command and journal changes of one path by step, as
    // Undo does (it used to give the journal the path whenever both were in the same turn).
    const { root, agent, turnId } = await generateThenEdit()
    await agent.finished(turnId)
    const rewind = { operation: 'rewind', turn_id: turnId, boundary: 'before_turn', mode: 'code' }
    const journalOnly = resultOf(await agent.session('history.plan', rewind)) as Plan
    expect(journalOnly.actions.map((a) => [a.path, a.target.kind])).toEqual([['gen.txt', 'regular']])
    const both = resultOf(await agent.session('history.plan', { ...rewind, include_commands: true })) as Plan
    expect(both.actions.map((a) => [a.path, a.target.kind, a.source])).toEqual([['gen.txt', 'absent', 'command']])
    resultOf(await agent.session('history.apply', { plan_hash: both.plan_hash }))
    expect(existsSync(join(root, 'gen.txt'))).toBe(false)
  })

  test('a file ↔ folder swap by a command is shown and named as not restorable; nothing is written', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n' })
    execFileSync('mkdir', [join(root, 'dir')])
    writeFileSync(join(root, 'dir', 'x.txt'), 'inside\n')
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'rm -r dir && echo now-a-file > dir')] },
      { kind: 'stream', steps: [{ text: 'Swapped.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('swap')
    expect((await agent.finished(turnId)).summary).toMatchObject({ command_files: 2 })
    const plan = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    expect(plan.status).toBe('unavailable')
    expect(plan.unavailable.map((u) => [u.path, u.reason]).sort()).toEqual([
      ['dir', 'file-folder-swap'],
      ['dir/x.txt', 'file-folder-swap'],
    ])
    expect(readFileSync(join(root, 'dir'), 'utf8')).toBe('now-a-file\n')
  })

  test('an interrupted step still writes its patch part', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n' })
    const llm = await fake()
    llm.enqueue({ kind: 'stream', steps: [bash('c1', 'echo partial > half.txt && sleep 30')] })
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('run something long')
    for (let i = 0; i < 500 && !existsSync(join(root, 'half.txt')); i++) await new Promise((r) => setTimeout(r, 10))
    resultOf(await agent.session('session.abort'))
    const node = await agent.turn(turnId)
    expect(node.status).toBe('aborted')
    expect(partsOf(node.parts, 'patch').map((p) => p.files)).toEqual([['half.txt']])
    expect(node.summary ?? partsOf(node.parts, 'file-summary')[0]?.summary).toMatchObject({ command_files: 1 })
  })

  test('a non-git project takes no snapshots and each step says why', async () => {
    const root = realpathSync(tempDir('retrace-plain-'))
    writeFileSync(join(root, 'a.txt'), 'a\n')
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'echo hi > side.txt')] },
      { kind: 'stream', steps: [{ text: 'ok' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('go')
    const finished = await agent.finished(turnId)
    expect(finished.summary).toBeNull()
    const node = await agent.turn(turnId)
    for (const start of partsOf(node.parts, 'step-start')) {
      expect(start.snapshot).toBeNull()
      expect(start.snapshot_note?.reason).toBe('not-git')
    }
    expect(partsOf(node.parts, 'patch')).toEqual([])
    rmSync(join(root, 'side.txt'))
  })
})

describe('the snapshot setting', () => {
  test('snapshot: false in settings stops captures at the next step, and each step says why', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n' })
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', 'echo hi > side.txt')] },
      { kind: 'stream', steps: [{ text: 'ok' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    expect(resultOf(await agent.project.call('settings.snapshots', {}))).toEqual({ enabled: true, available: true })
    expect(resultOf(await agent.project.call('settings.snapshots', { enabled: false }))).toEqual({
      enabled: false,
      available: true,
    })
    const turnId = await agent.prompt('go')
    const finished = await agent.finished(turnId)
    expect(finished.summary).toBeNull()
    const node = await agent.turn(turnId)
    for (const start of partsOf(node.parts, 'step-start')) expect(start.snapshot_note?.reason).toBe('disabled')
  })
})

describe('Redo after an Undo that included command-made files (issue 23 item 12)', () => {
  test('the Redo preview lists the command-made file and Redo brings it back with its bytes', async () => {
    const root = gitProject({ 'keep.txt': 'keep\n', 'edit.txt': 'one\n' })
    const llm = await fake()
    llm.enqueue(
      { kind: 'stream', steps: [bash('c1', "printf 'made by a command\\n' > side.txt && echo two > edit.txt")] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'notes.md', content: '# notes\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('make some changes')
    await agent.finished(turnId)
    const after = treeFingerprint(root)

    const undo = resultOf(
      await agent.session('history.plan', { operation: 'undo', turn_id: turnId, include_commands: true }),
    ) as Plan
    resultOf(await agent.session('history.apply', { plan_hash: undo.plan_hash }))
    expect(existsSync(join(root, 'side.txt'))).toBe(false)

    const redo = resultOf(await agent.session('history.plan', { operation: 'redo', turn_id: turnId })) as Plan
    expect(redo.status).toBe('ready')
    expect(redo.actions.map((a) => [a.path, a.target.kind]).sort()).toEqual([
      ['edit.txt', 'regular'],
      ['notes.md', 'regular'],
      ['side.txt', 'regular'],
    ])
    expect(redo.impact.files).toBe(3)
    resultOf(await agent.session('history.apply', { plan_hash: redo.plan_hash }))
    expect(readFileSync(join(root, 'side.txt'), 'utf8')).toBe('made by a command\n')
    expect(treeFingerprint(root)).toEqual(after)
  })
})
