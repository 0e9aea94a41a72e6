import { spawn } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, expect, test } from 'vitest'
import { eventLog, resultOf, toolParts, type TranscriptNode } from './support/agent'
import { openProject, request, startCore } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { killGroupAfterTest, pause, running, skipWithoutProc, until } from './support/processes'
import { openDatabase } from '../src/main/core/store'
import { tempDir } from './support/temp'

const CHILD = join(__dirname, 'support', 'agent-crash-child.mts')
const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

test('a command a SIGKILLed engine left running is ended by start-up recovery, and its turn says aborted', async () => {
  if (skipWithoutProc('this check reads /proc to see the command process (Linux only)')) return
  const root = tempDir('retrace-command-crash-')
  const dataDir = tempDir('retrace-command-crash-data-')
  const llm = await startFakeOpenAI([
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            {
              id: 'b1',
              name: 'bash',
              // `$$` is the command's own bash: the leader of its process group.
              input: { command: 'echo $$ > pid.txt; while :; do echo x >> grow.txt; sleep 0.05; done' },
            },
          ],
        },
      ],
    },
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
  await until(() => existsSync(join(root, 'grow.txt')), 4_000)
  const pid = Number(readFileSync(join(root, 'pid.txt'), 'utf8').trim())
  killGroupAfterTest(pid)
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  // The engine is gone; its command is not (the bug): it keeps writing.
  expect(running(pid)).toBe(true)

  const core = startCore({ dataDir })
  const events = eventLog(core)
  const project = await openProject(core, root)
  await events.waitFor((f) => f.event === 'turn.finished')
  // By the time the interrupted turn is closed, its command is gone and writes nothing more.
  expect(running(pid)).toBe(false)
  const size = statSync(join(root, 'grow.txt')).size
  await pause(300)
  expect(statSync(join(root, 'grow.txt')).size).toBe(size)

  const sessions = resultOf(await project.call('session.list', {})) as { sessions: Array<{ session_id: string }> }
  const transcript = resultOf(
    await core.handle(
      request(
        'session.transcript',
        { session_id: sessions.sessions[0]?.session_id },
        { project_id: project.projectId },
      ),
    ),
  ) as { nodes: TranscriptNode[] }
  const turn = transcript.nodes.find((n) => n.kind === 'assistant') as TranscriptNode
  expect(turn.status).toBe('aborted')
  expect(toolParts(turn).map((t) => [t.id, t.state, t.error?.message ?? null])).toEqual([
    ['b1', 'error', 'aborted — result unknown (Retrace stopped while this ran)'],
  ])
})

test('recovery never signals a process that merely reuses a recorded group id', async () => {
  if (skipWithoutProc('process identities are read from /proc (Linux only)')) return
  const dataDir = tempDir('retrace-command-reuse-data-')
  // A process of someone else's, in its own group: it holds the pid a dead engine once recorded.
  const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' })
  const pid = stranger.pid as number
  killGroupAfterTest(pid)
  const seed = startCore({ dataDir })
  await seed.ready
  seed.dispose()
  const db = openDatabase(join(dataDir, 'retrace.db'))
  db.prepare(
    `INSERT INTO agent_command_groups VALUES (?, 'other-boot:1', 'marker-of-a-dead-command', 999999999, 'gone', NULL, NULL, 'b1', 'sleep', 0)`,
  ).run(pid)

  const core = startCore({ dataDir })
  await core.ready
  // Recovery forgets the row once it has dealt with it.
  const rows = () => db.prepare('SELECT count(*) AS n FROM agent_command_groups').get() as { n: number }
  await until(() => rows().n === 0, 5_000)
  expect(rows().n).toBe(0)
  db.close()
  expect(running(pid)).toBe(true)
  stranger.kill('SIGKILL')
})
