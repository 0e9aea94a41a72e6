import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, expect, test } from 'vitest'
import { eventLog, noticesOf, resultOf, toolParts, type TranscriptNode } from './support/agent'
import { openProject, request, startCore } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'

const CHILD = join(__dirname, 'support', 'agent-crash-child.mts')
const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

test('a turn killed mid-tool is recovered on restart: its write kept, the running command "result unknown"', async () => {
  const root = tempDir('retrace-agent-crash-')
  const dataDir = tempDir('retrace-agent-crash-data-')
  const llm = await startFakeOpenAI([
    {
      kind: 'stream',
      steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'made.txt', content: 'kept\n' } }] }],
    },
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'sleep 5' } }] }] },
  ])
  fakes.push(llm)
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, root, llm.url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child never started the command')), 20_000)
    lines.on('line', (line) => {
      const data = JSON.parse(line) as { part: { id: string; state?: string } }
      if (data.part.id === 'b1' && data.part.state === 'running') {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('kept\n')

  const core = startCore({ dataDir })
  const events = eventLog(core)
  const project = await openProject(core, root)
  await core.ready
  const sessions = await project.call('session.list', {})
  const sessionId = (resultOf(sessions) as { sessions: Array<{ session_id: string }> }).sessions[0]?.session_id ?? ''
  await events.waitFor((f) => f.event === 'turn.finished')
  const transcript = await core.handle(
    request('session.transcript', { session_id: sessionId }, { project_id: project.projectId }),
  )
  const nodes = (resultOf(transcript) as { nodes: TranscriptNode[] }).nodes
  const turn = nodes.find((n) => n.kind === 'assistant') as TranscriptNode
  expect(turn.status).toBe('aborted')
  expect(toolParts(turn).map((t) => [t.id, t.state, t.error?.message ?? null])).toEqual([
    ['w1', 'completed', null],
    ['b1', 'error', 'aborted — result unknown (Retrace stopped while this ran)'],
  ])
  expect(noticesOf(turn)).toMatchObject([{ reason: 'interrupted' }])
  expect(turn.summary).toMatchObject({ files: 1, added: 1, removed: 0, first_files: ['made.txt'] })
  // The session is usable again: no running turn is left behind.
  const session = (resultOf(transcript) as { session: { running_turn_id: string | null } }).session
  expect(session.running_turn_id).toBeNull()
  expect(existsSync(join(root, 'made.txt'))).toBe(true)
})
