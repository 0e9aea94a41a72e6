import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import type { TurnPart } from '../src/shared/protocol'
import { agentFixture, toolParts } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { killGroupAfterTest, running, skipWithoutProc, until } from './support/processes'
import { tempDir } from './support/temp'

/*
 * Issue 23 review: Stop means everything the turn started stops. A command the model ran with
 * run_in_background, and what a finished command left running (`cmd &`), used to keep writing into
 * the project after the person pressed Stop, until the engine itself exited. Decision: a turn
 * that ends normally leaves its background commands running (a dev server the next turn uses);
 * a stopped turn ends every process group it started.
 */

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

const pidIn = (file: string) => Number(readFileSync(file, 'utf8').trim())

test('Stop ends the turn’s background command and what a finished command left running', async () => {
  if (skipWithoutProc('this check reads /proc to see the command processes (Linux only)')) return
  const root = tempDir('retrace-stop-')
  const llm = await startFakeOpenAI()
  fakes.push(llm)
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            {
              id: 'bg',
              name: 'bash',
              input: {
                command: 'echo $$ > bg.pid; while :; do echo x >> bg.txt; sleep 0.05; done',
                run_in_background: true,
              },
            },
            {
              id: 'left',
              name: 'bash',
              // The command ends at once; the loop it started in its group keeps going.
              input: {
                command: '(echo $BASHPID > left.pid; while :; do echo y >> left.txt; sleep 0.05; done) & exit 0',
              },
            },
          ],
        },
      ],
    },
    // The model thinks for a long time: the turn is still running when the person stops it.
    { kind: 'stall' },
  )
  const agent = await agentFixture(root, llm, {
    mode: 'auto',
    agent: { loop: { maxRetries: 0, stallTimeoutMs: 60_000 } },
  })
  const turnId = await agent.prompt('start things')
  await agent.events.waitFor((f) => {
    if (f.event !== 'turn.part') return false
    const part = (f.data as { part: TurnPart }).part
    return part.type === 'tool' && part.id === 'left' && part.state === 'completed'
  })
  expect(await until(() => existsSync(join(root, 'bg.pid')) && existsSync(join(root, 'left.pid')))).toBe(true)
  const bg = pidIn(join(root, 'bg.pid'))
  const left = pidIn(join(root, 'left.pid'))
  killGroupAfterTest(bg)
  killGroupAfterTest(left)
  expect(running(bg) && running(left)).toBe(true)

  expect((await agent.session('session.abort')).status).toBe('ok')
  expect((await agent.finished(turnId)).status).toBe('aborted')
  expect(toolParts(await agent.turn(turnId)).map((p) => p.state)).toEqual(['completed', 'completed'])
  // Ended with the stop (SIGTERM, then SIGKILL after a grace): nothing keeps writing.
  expect(await until(() => !running(bg))).toBe(true)
  expect(await until(() => !running(left))).toBe(true)
})
