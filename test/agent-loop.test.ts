import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { agentFixture, noticesOf, resultOf, textOf, toolParts } from './support/agent'
import { startFakeAnthropic, startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'
import { sendUntyped } from './support/protocol'

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})
async function fake(kind: 'openai-compatible' | 'anthropic') {
  const server = await (kind === 'anthropic' ? startFakeAnthropic() : startFakeOpenAI())
  fakes.push(server)
  return server
}

function project(files: Record<string, string> = {}) {
  const root = tempDir('retrace-agent-')
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content)
  return root
}

describe.each(['openai-compatible', 'anthropic'] as const)('the agent loop against %s', (kind) => {
  test('a prompt runs tools through the journal, streams parts and ends with an exact summary', async () => {
    const root = project({ 'AGENTS.md': 'Always answer in haiku.\n', 'notes.txt': 'one\ntwo\n' })
    const llm = await fake(kind)
    llm.enqueue(
      {
        kind: 'stream',
        splitArgs: 7,
        steps: [
          { text: 'Reading first.' },
          {
            toolCalls: [
              { id: 'call_read', name: 'read', input: { file_path: 'notes.txt' } },
              { id: 'call_list', name: 'list', input: {} },
            ],
          },
        ],
      },
      {
        kind: 'stream',
        splitArgs: 5,
        steps: [
          {
            toolCalls: [
              {
                id: 'call_edit',
                name: 'edit',
                input: { file_path: 'notes.txt', old_string: 'two\n', new_string: 'two\nthree\n' },
              },
              { id: 'call_write', name: 'write', input: { file_path: 'src/new.txt', content: 'fresh\n' } },
            ],
          },
        ],
      },
      { kind: 'stream', splitText: 3, steps: [{ text: 'Added a line and a file.' }] },
    )
    const agent = await agentFixture(root, llm, { kind })
    const turnId = await agent.prompt('Add a third line to notes.txt and create src/new.txt')
    const finished = await agent.finished(turnId)

    expect(finished.status).toBe('complete')
    expect(finished.summary).toMatchObject({ files: 2, added: 2, removed: 0 })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\n')
    expect(readFileSync(join(root, 'src/new.txt'), 'utf8')).toBe('fresh\n')

    const node = await agent.turn(turnId)
    expect(node.status).toBe('complete')
    expect(textOf(node)).toBe('Reading first.Added a line and a file.')
    const tools = toolParts(node)
    expect(tools.map((t) => [t.tool, t.state])).toEqual([
      ['read', 'completed'],
      ['list', 'completed'],
      ['edit', 'completed'],
      ['write', 'completed'],
    ])
    expect(tools[0]?.output).toContain('1\tone')
    expect(tools[2]?.receipt_ids).toHaveLength(1)
    expect(tools[2]?.approval).toMatchObject({ status: 'auto', decided_by: 'mode' })
    const types = node.parts.map((p) => p.type)
    expect(types.filter((t) => t === 'step-start')).toHaveLength(3)
    expect(types.filter((t) => t === 'step-finish')).toHaveLength(3)
    expect(types.at(-1)).toBe('file-summary')
    const stepFinish = node.parts.find((p) => p.type === 'step-finish')
    expect(stepFinish).toMatchObject({ tokens: { input: 10, output: 5 } })

    // Every write carries the turn's attribution.
    const receipts = await agent.project.call('journal.transactions', { origin_turn_id: turnId })
    expect(receipts.status).toBe('ok')
    const transactions = (resultOf(receipts) as { transactions: Array<Record<string, unknown>> }).transactions
    expect(transactions).toHaveLength(2)
    for (const t of transactions) expect(t).toMatchObject({ kind: 'edit', producer_turn_id: turnId, actor_id: 'main' })

    // What the model was sent: system prompt with root, date and AGENTS.md; tools; then tool results.
    const chats = llm.chatRequests()
    expect(chats).toHaveLength(3)
    const firstBody = JSON.stringify(chats[0]?.body)
    expect(firstBody).toContain('Always answer in haiku.')
    expect(firstBody).toContain(JSON.stringify(root).slice(1, -1))
    for (const name of ['read', 'write', 'edit', 'apply_patch', 'list', 'glob', 'grep', 'bash']) {
      expect(firstBody).toContain(`"${name}"`)
    }
    const secondBody = JSON.stringify(chats[1]?.body)
    expect(secondBody).toContain('call_read')
    expect(secondBody).toContain('1\\tone')
    const auth = kind === 'anthropic' ? chats[0]?.headers['x-api-key'] : chats[0]?.headers.authorization
    expect(auth).toContain('test-key')
  })

  test('a provider error ends the turn with a notice saying whether Retry can help', async () => {
    const llm = await fake(kind)
    llm.enqueue({ kind: 'http-error', status: 401 }, { kind: 'http-error', status: 500 })
    const agent = await agentFixture(project(), llm, { kind })
    const first = await agent.prompt('hello')
    expect((await agent.finished(first)).status).toBe('error')
    const unauthorized = noticesOf(await agent.turn(first))
    expect(unauthorized).toMatchObject([{ reason: 'provider-error', code: '401', retryable: false }])
    expect(unauthorized[0]?.message).toContain('API key')

    const second = await agent.prompt('hello again')
    expect((await agent.finished(second)).status).toBe('error')
    expect(noticesOf(await agent.turn(second))).toMatchObject([
      { reason: 'provider-error', code: '500', retryable: true },
    ])
  })
})

describe('approvals', () => {
  test('ask mode shows the diff, runs only after approval, and a rejection writes nothing', async () => {
    const root = project({ 'a.txt': 'alpha\n' })
    const llm = await fake('openai-compatible')
    llm.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'r1', name: 'read', input: { file_path: 'a.txt' } }] }] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'a.txt', content: 'alpha\nbeta\n' } }] }],
      },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w2', name: 'write', input: { file_path: 'b.txt', content: 'nope\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Understood.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('append beta')
    const waiting = await agent.approvalFor(turnId, 'w1')
    expect(waiting.approval?.kind).toBe('diff')
    expect(waiting.approval?.diff).toContain('+beta')
    expect(waiting.approval?.files).toEqual([{ path: 'a.txt', operation: 'modify' }])
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\n')
    const busy = await agent.session('session.prompt', { text: 'again' })
    expect(busy.status === 'error' && busy.error.code).toBe('BUSY')

    expect((await agent.session('session.approve', { tool_call_id: 'w1', decision: 'approve' })).status).toBe('ok')
    await agent.approvalFor(turnId, 'w2')
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n')
    await agent.session('session.approve', { tool_call_id: 'w2', decision: 'reject' })
    expect((await agent.finished(turnId)).status).toBe('complete')
    expect(existsSync(join(root, 'b.txt'))).toBe(false)
    const tools = toolParts(await agent.turn(turnId))
    expect(tools.find((t) => t.id === 'w1')).toMatchObject({ state: 'completed', approval: { status: 'approved' } })
    expect(tools.find((t) => t.id === 'w2')).toMatchObject({ state: 'error', error: { code: 'REJECTED' } })
    const unknown = await agent.session('session.approve', { tool_call_id: 'w2', decision: 'approve' })
    expect(unknown.status === 'error' && unknown.error.code).toBe('NOT_FOUND')
  })

  test('a file changed while its approval waits fails with CONFLICT and keeps the other change', async () => {
    const root = project({ 'a.txt': 'alpha\n' })
    const llm = await fake('openai-compatible')
    llm.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'r1', name: 'read', input: { file_path: 'a.txt' } }] }] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'a.txt', content: 'agent\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'ok' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('rewrite a.txt')
    await agent.approvalFor(turnId, 'w1')
    writeFileSync(join(root, 'a.txt'), 'human\n')
    await agent.session('session.approve', { tool_call_id: 'w1', decision: 'approve' })
    await agent.finished(turnId)
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('human\n')
    const write = toolParts(await agent.turn(turnId)).find((t) => t.id === 'w1')
    expect(write).toMatchObject({ state: 'error', error: { code: 'CONFLICT' } })
  })

  test('accept-edits asks for commands only, and "always" allows that command for the session', async () => {
    const root = project()
    const llm = await fake('openai-compatible')
    const bash = (id: string) => ({
      kind: 'stream' as const,
      steps: [{ toolCalls: [{ id, name: 'bash', input: { command: 'echo hi > out.txt' } }] }],
    })
    llm.enqueue(
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'x.txt', content: 'x\n' } }] }],
      },
      bash('b1'),
      bash('b2'),
      { kind: 'stream', steps: [{ text: 'done' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'accept-edits' })
    const turnId = await agent.prompt('go')
    const waiting = await agent.approvalFor(turnId, 'b1')
    expect(waiting.approval).toMatchObject({ kind: 'command', command: 'echo hi > out.txt' })
    expect(readFileSync(join(root, 'x.txt'), 'utf8')).toBe('x\n')
    await agent.session('session.approve', { tool_call_id: 'b1', decision: 'always' })
    expect((await agent.finished(turnId)).status).toBe('complete')
    const tools = toolParts(await agent.turn(turnId))
    expect(tools.map((t) => [t.id, t.state, t.approval?.decided_by])).toEqual([
      ['w1', 'completed', 'mode'],
      ['b1', 'completed', 'always-allow'],
      ['b2', 'completed', 'always-allow'],
    ])
    expect(tools[1]?.output).toContain('exit code 0')
    // bash effects are never attributed: the turn's only receipt is the write.
    const receipts = await agent.project.call('journal.transactions', { origin_turn_id: turnId })
    expect((resultOf(receipts) as { transactions: unknown[] }).transactions).toHaveLength(1)
  })
})

describe('stopping and limits', () => {
  test('abort mid-stream stops at once and records the turn as aborted', async () => {
    const llm = await fake('anthropic')
    llm.enqueue({ kind: 'stall', afterText: 'Thinking about it' })
    const agent = await agentFixture(project(), llm, { kind: 'anthropic' })
    const turnId = await agent.prompt('hello')
    await agent.events.waitFor((f) => f.event === 'turn.part' && JSON.stringify(f.data).includes('Thinking about it'))
    const started = Date.now()
    expect((await agent.session('session.abort')).status).toBe('ok')
    expect(Date.now() - started).toBeLessThan(3_000)
    expect((await agent.finished(turnId)).status).toBe('aborted')
    const node = await agent.turn(turnId)
    expect(textOf(node)).toBe('Thinking about it')
    expect(noticesOf(node)).toMatchObject([{ reason: 'aborted' }])
  })

  test('abort mid-tool kills the command and records "aborted — result unknown"', async () => {
    const root = project()
    const llm = await fake('openai-compatible')
    llm.enqueue({
      kind: 'stream',
      steps: [
        { toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'echo started; sleep 30; echo late > late.txt' } }] },
      ],
    })
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('run it')
    await agent.events.waitFor((f) => {
      const data = f.data as { part?: { id?: string; state?: string } }
      return f.event === 'turn.part' && data.part?.id === 'b1' && data.part.state === 'running'
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = Date.now()
    await agent.session('session.abort')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect((await agent.finished(turnId)).status).toBe('aborted')
    const bash = toolParts(await agent.turn(turnId))[0]
    expect(bash).toMatchObject({ state: 'error', error: { code: 'ABORTED' } })
    expect(bash?.error?.message).toContain('aborted — result unknown')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(existsSync(join(root, 'late.txt'))).toBe(false)
    expect(llm.chatRequests()).toHaveLength(1)
  })

  test('a stalled stream ends as a retryable notice', async () => {
    const llm = await fake('openai-compatible')
    llm.enqueue({ kind: 'stall' })
    const agent = await agentFixture(project(), llm, { agent: { loop: { maxRetries: 0, stallTimeoutMs: 300 } } })
    const turnId = await agent.prompt('hello')
    expect((await agent.finished(turnId)).status).toBe('error')
    expect(noticesOf(await agent.turn(turnId))).toMatchObject([{ reason: 'stalled', retryable: true }])
  })

  test('three identical calls in a row pause the turn; the step limit stops it', async () => {
    const root = project({ 'a.txt': 'a\n' })
    const llm = await fake('openai-compatible')
    const readCall = (id: string) => ({
      kind: 'stream' as const,
      steps: [{ toolCalls: [{ id, name: 'read', input: { file_path: 'a.txt' } }] }],
    })
    llm.enqueue(readCall('c1'), readCall('c2'), readCall('c3'))
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('loop')
    expect((await agent.finished(turnId)).status).toBe('complete')
    const node = await agent.turn(turnId)
    expect(toolParts(node).map((t) => t.state)).toEqual(['completed', 'completed', 'error'])
    expect(noticesOf(node)).toMatchObject([{ reason: 'repeated-calls', retryable: true }])

    const limited = await fake('openai-compatible')
    limited.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'l1', name: 'list', input: {} }] }] },
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'l2', name: 'glob', input: { pattern: '*' } }] }] },
    )
    const capped = await agentFixture(root, limited, { agent: { loop: { maxRetries: 0, stepLimit: 2 } } })
    const cappedTurn = await capped.prompt('keep going')
    await capped.finished(cappedTurn)
    expect(noticesOf(await capped.turn(cappedTurn))).toMatchObject([{ reason: 'step-limit' }])
    expect(limited.chatRequests()).toHaveLength(2)
  })

  test('without a model the composer is refused with UNAVAILABLE and nothing is recorded', async () => {
    const llm = await fake('openai-compatible')
    const bare = await agentFixture(project(), llm, { agent: { cliProvider: undefined } })
    const refused = await bare.session('session.prompt', { text: 'hi' })
    expect(refused.status === 'error' && refused.error).toMatchObject({
      code: 'UNAVAILABLE',
      details: { reason: 'no-model' },
    })
    const transcript = await bare.session('session.transcript')
    expect((resultOf(transcript) as { nodes: unknown[] }).nodes).toHaveLength(1)
  })
})

describe('turn card and undo', () => {
  test('an agent turn is undone through plan → apply and the file is back', async () => {
    const root = project({ 'a.txt': 'original\n' })
    const llm = await fake('openai-compatible')
    llm.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'r', name: 'read', input: { file_path: 'a.txt' } }] }] },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w', name: 'write', input: { file_path: 'a.txt', content: 'changed\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'done' }] },
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('change it')
    await agent.finished(turnId)
    const transcript = await agent.session('session.transcript')
    expect((resultOf(transcript) as { restore: unknown }).restore).toEqual({
      undo_turn_id: turnId,
      redo_turn_id: null,
      undone_turn_ids: [],
    })
    const plan = await agent.session('history.plan', { operation: 'undo', turn_id: turnId })
    expect(plan.status === 'ok' && plan.result).toMatchObject({ status: 'ready', impact: { files: 1 } })
    const applied = await agent.session('history.apply', {
      plan_hash: (resultOf(plan) as { plan_hash: string }).plan_hash,
    })
    expect(applied.status === 'ok' && applied.result).toMatchObject({ status: 'committed' })
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('original\n')
    const after = await agent.session('session.transcript')
    expect((resultOf(after) as { restore: unknown }).restore).toEqual({
      undo_turn_id: null,
      redo_turn_id: turnId,
      undone_turn_ids: [turnId],
    })
  })
})

describe('sub-agents (task)', () => {
  test("a task's sub-agent asks for approval in the turn, its write is this turn's (undone with it), and only its report reaches the model", async () => {
    const root = project({ 'a.txt': 'alpha\n' })
    const llm = await fake('openai-compatible')
    llm.enqueue(
      // The agent hands the work over…
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              {
                id: 'call_task',
                name: 'task',
                input: { description: 'Write the notes', prompt: 'Create notes.txt saying hi.' },
              },
            ],
          },
        ],
      },
      // …the sub-agent writes (in ask mode: approved by the person) and reports…
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'call_w', name: 'write', input: { file_path: 'notes.txt', content: 'hi\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Created notes.txt with "hi".' }] },
      // …and the agent answers.
      { kind: 'stream', steps: [{ text: 'The notes are written.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('Have a helper write the notes')
    const waiting = await agent.approvalFor(turnId, 'call_task/call_w')
    expect(waiting).toMatchObject({ tool: 'write', task_call_id: 'call_task', approval: { kind: 'diff' } })
    expect(existsSync(join(root, 'notes.txt'))).toBe(false)
    await agent.session('session.approve', { tool_call_id: 'call_task/call_w', decision: 'approve' })
    const finished = await agent.finished(turnId)
    expect(finished.status).toBe('complete')
    expect(finished.summary).toMatchObject({ files: 1, added: 1 })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('hi\n')

    const tools = toolParts(await agent.turn(turnId))
    expect(tools.map((t) => [t.id, t.state, t.task_call_id ?? null])).toEqual([
      ['call_task', 'completed', null],
      ['call_task/call_w', 'completed', 'call_task'],
    ])
    expect(tools[0]?.output).toBe('Created notes.txt with "hi".')
    // The sub-agent had its own conversation (no `task` tool); the agent's next call saw only the report.
    const requests = llm.chatRequests().map((request) => JSON.stringify(request.body))
    expect(requests[0]).toContain('"name":"task"')
    expect(requests[1]).toContain('Create notes.txt saying hi.')
    expect(requests[1]).not.toContain('Have a helper write the notes')
    expect(requests[1]).not.toContain('"name":"task"')
    expect(requests[3]).toContain('Created notes.txt with \\"hi\\".')
    expect(requests[3]).not.toContain('call_w')

    // Undo of the turn removes what its sub-agent wrote.
    const plan = await agent.session('history.plan', { operation: 'undo', turn_id: turnId })
    expect(plan.status === 'ok' && plan.result).toMatchObject({ status: 'ready', impact: { files: 1 } })
    const applied = await agent.session('history.apply', {
      plan_hash: (resultOf(plan) as { plan_hash: string }).plan_hash,
    })
    expect(applied.status === 'ok' && applied.result).toMatchObject({ status: 'committed' })
    expect(existsSync(join(root, 'notes.txt'))).toBe(false)
  })
})

describe('file tools through the journal', () => {
  test('unread files are never overwritten; apply_patch is all-or-nothing; the next turn sees the branch so far', async () => {
    const root = project({ 'a.txt': 'one\n', 'b.txt': 'two\n' })
    const llm = await fake('openai-compatible')
    const patch = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`
    llm.enqueue(
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'blind_write', name: 'write', input: { file_path: 'a.txt', content: 'clobbered\n' } },
              { id: 'blind_edit', name: 'edit', input: { file_path: 'b.txt', old_string: 'two', new_string: '2' } },
            ],
          },
        ],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              { id: 'ra', name: 'read', input: { file_path: 'a.txt' } },
              { id: 'rb', name: 'read', input: { file_path: 'b.txt' } },
            ],
          },
        ],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              {
                id: 'bad_patch',
                name: 'apply_patch',
                input: {
                  patch: patch('*** Update File: a.txt\n@@\n-one\n+uno\n*** Update File: b.txt\n@@\n-missing\n+x\n'),
                },
              },
            ],
          },
        ],
      },
      {
        kind: 'stream',
        steps: [
          {
            toolCalls: [
              {
                id: 'good_patch',
                name: 'apply_patch',
                input: {
                  patch: patch(
                    '*** Update File: a.txt\n@@\n-one\n+uno\n*** Add File: c.txt\n+tres\n*** Delete File: b.txt\n',
                  ),
                },
              },
            ],
          },
        ],
      },
      { kind: 'stream', steps: [{ text: 'Patched.' }] },
      { kind: 'stream', steps: [{ text: 'Second answer.' }] },
    )
    const agent = await agentFixture(root, llm)
    const first = await agent.prompt('patch things')
    await agent.finished(first)
    const tools = toolParts(await agent.turn(first))
    expect(tools.map((t) => [t.id, t.state, t.error?.code ?? null])).toEqual([
      ['blind_write', 'error', 'CONFLICT'],
      ['blind_edit', 'error', 'CONFLICT'],
      ['ra', 'completed', null],
      ['rb', 'completed', null],
      ['bad_patch', 'error', 'CONFLICT'],
      ['good_patch', 'completed', null],
    ])
    expect(tools[0]?.error?.message).toContain('read it before')
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('uno\n')
    expect(readFileSync(join(root, 'c.txt'), 'utf8')).toBe('tres\n')
    expect(existsSync(join(root, 'b.txt'))).toBe(false)
    const receipts = await agent.project.call('journal.transactions', { origin_turn_id: first })
    expect((resultOf(receipts) as { transactions: unknown[] }).transactions).toHaveLength(1)

    const second = await agent.prompt('and now?')
    await agent.finished(second)
    const sent = JSON.stringify(llm.chatRequests().at(-1)?.body)
    for (const earlier of ['patch things', 'good_patch', 'Patched.', 'and now?']) expect(sent).toContain(earlier)
  })
})

test('a restore announces session.updated so turn cards refetch their actions', async () => {
  const root = project({ 'a.txt': 'x\n' })
  const llm = await fake('openai-compatible')
  llm.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'r', name: 'read', input: { file_path: 'a.txt' } }] }] },
    {
      kind: 'stream',
      steps: [{ toolCalls: [{ id: 'w', name: 'write', input: { file_path: 'a.txt', content: 'y\n' } }] }],
    },
    { kind: 'stream', steps: [{ text: 'ok' }] },
  )
  const agent = await agentFixture(root, llm)
  const turnId = await agent.prompt('change')
  await agent.finished(turnId)
  const before = agent.events.frames.length
  const plan = resultOf(await agent.session('history.plan', { operation: 'undo' })) as { plan_hash: string }
  await agent.session('history.apply', { plan_hash: plan.plan_hash })
  expect(
    agent.events.frames
      .slice(before)
      .some((f) => f.event === 'session.updated' && (f.data as { session_id: string }).session_id === agent.sessionId),
  ).toBe(true)
})

describe('session titles', () => {
  test('a session nobody named is titled from its first prompt (and announced); a name given stays', async () => {
    const llm = await fake('openai-compatible')
    llm.enqueue(
      { kind: 'stream', steps: [{ text: 'ok' }] },
      { kind: 'stream', steps: [{ text: 'ok' }] },
      { kind: 'stream', steps: [{ text: 'ok' }] },
    )
    const agent = await agentFixture(project(), llm)
    const call = (action: string, payload: unknown) =>
      sendUntyped(agent.core, action, payload, { owner: { project_id: agent.project.projectId } })
    const untitled = resultOf(await call('session.create', {})) as { session_id: string; title: string }
    expect(untitled.title).toBe('New session')
    const prompted = resultOf(
      await call('session.prompt', {
        session_id: untitled.session_id,
        text: '\n  Fix the   flaky login test in auth.spec.ts and explain why it failed on CI sometimes\nmore detail',
      }),
    ) as { turn_id: string }
    await agent.finished(prompted.turn_id)
    const listed = resultOf(await call('session.list', {})) as {
      sessions: Array<{ session_id: string; title: string }>
    }
    const title = listed.sessions.find((s) => s.session_id === untitled.session_id)?.title
    expect(title).toBe('Fix the flaky login test in auth.spec.ts and explain why it…')
    await agent.events.waitFor(
      (f) => f.event === 'session.updated' && (f.data as { session_id: string }).session_id === untitled.session_id,
    )
    // A second prompt does not rename it; neither does a prompt in a session the person named.
    const again = resultOf(
      await call('session.prompt', { session_id: untitled.session_id, text: 'And now the docs' }),
    ) as {
      turn_id: string
    }
    await agent.finished(again.turn_id)
    const named = resultOf(await call('session.create', { title: 'Release prep' })) as { session_id: string }
    const third = resultOf(
      await call('session.prompt', { session_id: named.session_id, text: 'Bump the version' }),
    ) as {
      turn_id: string
    }
    await agent.finished(third.turn_id)
    const after = resultOf(await call('session.list', {})) as { sessions: Array<{ session_id: string; title: string }> }
    expect(after.sessions.find((s) => s.session_id === untitled.session_id)?.title).toBe(title)
    expect(after.sessions.find((s) => s.session_id === named.session_id)?.title).toBe('Release prep')
  })
})
