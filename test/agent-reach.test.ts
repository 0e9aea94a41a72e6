import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { EventFrame, TurnPart } from '../src/shared/protocol'
import { agentFixture, resultOf, toolParts } from './support/agent'
import { request } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'

// Issue 23 items 2 and 3: what the model's arguments can reach. `write(source_path)` reaches only
// project files (the same rule as `read`), and a grep/glob pattern runs where a budget stops it.

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})
async function fakeModel() {
  const server = await startFakeOpenAI()
  fakes.push(server)
  return server
}

type ToolPart = Extract<TurnPart, { type: 'tool' }>

const SECRET = 'hunter2-outside-the-project'

describe.each(['ask', 'accept-edits', 'auto'] as const)('write(source_path) in %s mode', (mode) => {
  test('a source outside the project is refused with PERMISSION_DENIED, writes nothing and leaks nothing', async () => {
    const root = realpathSync(tempDir('retrace-reach-'))
    const outside = realpathSync(tempDir('retrace-outside-'))
    writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`)
    writeFileSync(join(root, 'README.md'), '# project\n')
    symlinkSync(join(outside, 'secret.txt'), join(root, 'innocent.txt'))
    mkdirSync(join(root, 'gen'))
    symlinkSync(outside, join(root, 'gen', 'escape'))
    const dataDir = realpathSync(tempDir('retrace-reach-data-'))
    const database = join(dataDir, 'retrace.db')
    const environ = readFileSync('/proc/self/environ')

    const sources = [
      join(outside, 'secret.txt'), // an absolute path elsewhere on the machine
      `../${basename(outside)}/secret.txt`, // a ../ escape from the root
      'innocent.txt', // a link inside the project to a file outside it
      join(root, 'gen', 'escape', 'secret.txt'), // a folder link inside the project leading out
      '/proc/self/environ', // the engine's environment (API keys)
      database, // Retrace's own database
    ]
    const llm = await fakeModel()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: sources.map((source_path, i) => ({
              id: `call_steal_${i}`,
              name: 'write',
              input: { file_path: `stolen-${i}.bin`, source_path },
            })),
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Could not copy them.' }] },
    )
    const agent = await agentFixture(root, llm, { mode, dataDir })
    expect(existsSync(database)).toBe(true)
    const turnId = await agent.prompt('Copy those files into the project')
    expect((await agent.finished(turnId)).status).toBe('complete')

    const tools = toolParts(await agent.turn(turnId))
    expect(tools).toHaveLength(sources.length)
    for (const [i, part] of tools.entries()) {
      expect(part, `source ${sources[i]}`).toMatchObject({
        tool: 'write',
        state: 'error',
        error: { code: 'PERMISSION_DENIED' },
        receipt_ids: [],
      })
      expect(part.error?.message).toContain('source_path')
      expect(part.error?.message).not.toContain(SECRET)
      // Refused before any card: there is nothing a person could approve.
      expect(part.approval?.status).not.toBe('waiting')
      expect(existsSync(join(root, `stolen-${i}.bin`))).toBe(false)
    }
    // Not one waiting approval was ever announced, in any mode.
    expect(agent.events.frames.some((f) => waitingApproval(f))).toBe(false)
    expect(readdirSync(root).sort()).toEqual(['README.md', 'gen', 'innocent.txt'])
    const receipts = resultOf(await agent.project.call('journal.transactions', { origin_turn_id: turnId })) as {
      transactions: unknown[]
    }
    expect(receipts.transactions).toEqual([])

    // What went back to the model carries none of the bytes.
    const sent = JSON.stringify(llm.chatRequests()[1]?.body)
    expect(sent).toContain('call_steal_5')
    expect(sent).not.toContain(SECRET)
    expect(sent).not.toContain('SQLite format')
    const firstVariable = environ.toString('utf8').split('\0')[0] ?? ''
    if (firstVariable.length > 8) expect(sent).not.toContain(JSON.stringify(firstVariable).slice(1, -1))
  })
})

function waitingApproval(frame: EventFrame): boolean {
  if (frame.event !== 'turn.part') return false
  const part = (frame.data as { part: TurnPart }).part
  return part.type === 'tool' && part.approval?.status === 'waiting'
}

describe('write(source_path) inside the project', () => {
  test('ask mode: the card names the source, and the approved write publishes its bytes', async () => {
    const root = realpathSync(tempDir('retrace-reach-'))
    mkdirSync(join(root, 'gen'))
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 3, 255])
    writeFileSync(join(root, 'gen', 'out.bin'), bytes)
    const llm = await fakeModel()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              {
                id: 'call_publish',
                name: 'write',
                input: { file_path: 'docs/report.bin', source_path: join(root, 'gen', 'out.bin') },
              },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Published.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('Publish the report')
    const waiting = await agent.approvalFor(turnId, 'call_publish')
    expect(waiting.approval?.files).toEqual([{ path: 'docs/report.bin', operation: 'create', source: 'gen/out.bin' }])
    expect(existsSync(join(root, 'docs'))).toBe(false)
    expect(
      resultOf(await agent.session('session.approve', { tool_call_id: 'call_publish', decision: 'approve' })),
    ).toEqual({})
    expect((await agent.finished(turnId)).status).toBe('complete')
    expect(readFileSync(join(root, 'docs', 'report.bin')).equals(bytes)).toBe(true)
  })

  test('a link to the target itself is refused as the target, not followed into a self-copy', async () => {
    const root = realpathSync(tempDir('retrace-reach-'))
    writeFileSync(join(root, 'notes.txt'), 'keep\n')
    symlinkSync('notes.txt', join(root, 'alias.txt'))
    const llm = await fakeModel()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'call_read', name: 'read', input: { file_path: 'notes.txt' } }] }],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'call_self', name: 'write', input: { file_path: 'notes.txt', source_path: 'alias.txt' } },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto' })
    const turnId = await agent.prompt('Rewrite notes from the alias')
    await agent.finished(turnId)
    const self = toolParts(await agent.turn(turnId)).find((p) => p.id === 'call_self')
    expect(self).toMatchObject({ state: 'error', error: { code: 'INVALID_REQUEST' } })
    expect(self?.error?.message).toContain('target file itself')
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('keep\n')
  })
})

/**
 * Probes `app.info` every 20 ms while the call is pending and counts the answers that arrived before
 * it settled. An engine whose event loop runs the pattern answers only the few probes sent before
 * the matching starts (7 were seen with the old code, during the walk), then nothing until the
 * pattern gives up — with these inputs, never. Here the call stays pending for its whole budget
 * (1.5 s: about 70 answers) and the engine answers throughout; the bound below leaves a wide
 * margin for a loaded machine.
 */
async function probeWhilePending(agent: Awaited<ReturnType<typeof agentFixture>>, turnId: string, callId: string) {
  const settled = () =>
    agent.events.frames.some((f) => {
      if (f.event !== 'turn.part') return false
      const data = f.data as { turn_id: string; part: TurnPart }
      return data.turn_id === turnId && data.part.type === 'tool' && data.part.id === callId && isSettled(data.part)
    })
  await agent.events.waitFor((f) => {
    if (f.event !== 'turn.part') return false
    const part = (f.data as { part: TurnPart }).part
    return part.type === 'tool' && part.id === callId && part.state === 'running'
  })
  let answeredWhilePending = 0
  while (!settled()) {
    const info = await agent.core.handle(request('app.info', {}))
    expect(info.status).toBe('ok')
    if (!settled()) answeredWhilePending++
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return answeredWhilePending
}

const isSettled = (part: ToolPart) => part.state === 'completed' || part.state === 'error'

describe('model-chosen patterns run where a budget stops them', () => {
  const budget = { maxRetries: 0, stallTimeoutMs: 10_000, patternBudgetMs: 1_500 }

  test('a catastrophically backtracking grep ends with TIMEOUT naming the file while app.info keeps answering', async () => {
    const root = realpathSync(tempDir('retrace-reach-'))
    writeFileSync(join(root, 'a-normal.txt'), 'nothing to see\n')
    // (a+)+$ against a run of a's that ends in b: 2^n ways to split the run before failing.
    writeFileSync(join(root, 'b-evil.txt'), `${'a'.repeat(40)}b\n`)
    const llm = await fakeModel()
    llm.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'call_grep', name: 'grep', input: { pattern: '(a+)+$' } }] }] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'call_grep_ok', name: 'grep', input: { pattern: 'nothing', include: '*.txt' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'That pattern was too slow.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto', agent: { loop: budget } })
    const turnId = await agent.prompt('Search for it')
    const answered = await probeWhilePending(agent, turnId, 'call_grep')
    expect((await agent.finished(turnId, 20_000)).status).toBe('complete')

    const [grep, after] = toolParts(await agent.turn(turnId))
    expect(grep).toMatchObject({ state: 'error', error: { code: 'TIMEOUT' } })
    expect(grep?.error?.message).toContain('b-evil.txt')
    expect(grep?.error?.message).toContain('backtracks catastrophically')
    expect(answered).toBeGreaterThanOrEqual(15)
    // The engine and the next grep go on as before.
    expect(after).toMatchObject({ state: 'completed' })
    expect(after?.output).toBe('a-normal.txt:1: nothing to see')
    expect((await agent.core.handle(request('app.info', {}))).status).toBe('ok')
  })

  test('a pathological glob ends with TIMEOUT while app.info keeps answering; long and nested patterns are bounded', async () => {
    const root = realpathSync(tempDir('retrace-reach-'))
    writeFileSync(join(root, `${'a'.repeat(120)}.txt`), '')
    writeFileSync(join(root, 'plain.md'), '')
    let nested = 'plain.md'
    for (let i = 0; i < 100; i++) nested = `{a,${nested}}`
    const llm = await fakeModel()
    llm.enqueue(
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'call_glob', name: 'glob', input: { pattern: '*a*a*a*a*a*a*a*a*a*b' } }] }],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'call_nested', name: 'glob', input: { pattern: nested } },
              { id: 'call_long', name: 'grep', input: { pattern: 'a'.repeat(1_001) } },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'auto', agent: { loop: budget } })
    const turnId = await agent.prompt('Find the files')
    const answered = await probeWhilePending(agent, turnId, 'call_glob')
    expect((await agent.finished(turnId, 20_000)).status).toBe('complete')

    const byId = new Map(toolParts(await agent.turn(turnId)).map((p) => [p.id, p]))
    expect(byId.get('call_glob')).toMatchObject({ state: 'error', error: { code: 'TIMEOUT' } })
    expect(byId.get('call_glob')?.error?.message).toContain('glob stopped')
    expect(answered).toBeGreaterThanOrEqual(15)
    expect(byId.get('call_nested')).toMatchObject({ state: 'completed', output: 'plain.md' })
    expect(byId.get('call_long')).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect((await agent.core.handle(request('app.info', {}))).status).toBe('ok')
  })
})

test('stopping the turn stops a grep stuck in its pattern: the worker is terminated, not waited for', async () => {
  const root = realpathSync(tempDir('retrace-reach-'))
  writeFileSync(join(root, 'evil.txt'), `${'a'.repeat(60)}b\n`)
  const llm = await fakeModel()
  llm.enqueue({
    kind: 'stream',
    steps: [{ toolCalls: [{ id: 'call_grep', name: 'grep', input: { pattern: '(a+)+$' } }] }],
  })
  // A budget far beyond the test's own timeout: only the stop can end this call in time.
  const agent = await agentFixture(root, llm, {
    mode: 'auto',
    agent: { loop: { maxRetries: 0, stallTimeoutMs: 10_000, patternBudgetMs: 600_000 } },
  })
  const turnId = await agent.prompt('Search for it')
  await agent.events.waitFor((f) => {
    if (f.event !== 'turn.part') return false
    const part = (f.data as { part: TurnPart }).part
    return part.type === 'tool' && part.id === 'call_grep' && part.state === 'running'
  })
  // Past the walk (a git call, some 100 ms) and into the matching, which never ends by itself.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  expect((await agent.core.handle(request('app.info', {}))).status).toBe('ok')
  expect((await agent.session('session.abort')).status).toBe('ok')
  expect((await agent.finished(turnId)).status).toBe('aborted')
  const [grep] = toolParts(await agent.turn(turnId))
  expect(grep).toMatchObject({ state: 'error', error: { code: 'ABORTED' } })
})
