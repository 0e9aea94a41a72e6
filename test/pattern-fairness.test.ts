import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import type { TurnPart } from '../src/shared/protocol'
import { agentFixture, toolParts } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'

/*
 * Issue 23 review: the model's grep/glob patterns run in at most two workers for the whole engine.
 * A hostile model that asks for many catastrophic patterns at once (tool calls of one step run in
 * parallel) must not make every other session's search wait behind all of them: turns take the
 * workers in turn, so another session's grep waits for at most one call's budget, not for a queue
 * the hostile model filled. Two engines in one process share the workers, as sessions do.
 */

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

const HOSTILE_CALLS = 6
const loop = { maxRetries: 0, stallTimeoutMs: 30_000, patternBudgetMs: 1_500 }

test("a model's burst of catastrophic greps does not queue another session's grep behind all of them", async () => {
  const hostileRoot = realpathSync(tempDir('retrace-fair-'))
  writeFileSync(join(hostileRoot, 'evil.txt'), `${'a'.repeat(40)}b\n`)
  const hostileModel = await startFakeOpenAI()
  fakes.push(hostileModel)
  hostileModel.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: Array.from({ length: HOSTILE_CALLS }, (_, i) => ({
            id: `call_evil_${i}`,
            name: 'grep',
            input: { pattern: `(a+)+$|x${i}` },
          })),
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'All timed out.' }] },
  )
  const hostile = await agentFixture(hostileRoot, hostileModel, { mode: 'auto', agent: { loop } })

  const otherRoot = realpathSync(tempDir('retrace-fair-'))
  writeFileSync(join(otherRoot, 'notes.txt'), 'find me\n')
  const otherModel = await startFakeOpenAI()
  fakes.push(otherModel)
  otherModel.enqueue(
    { kind: 'stream', steps: [{ toolCalls: [{ id: 'call_ok', name: 'grep', input: { pattern: 'find' } }] }] },
    { kind: 'stream', steps: [{ text: 'Found it.' }] },
  )
  const other = await agentFixture(otherRoot, otherModel, { mode: 'auto', agent: { loop } })

  // How many of the hostile calls had settled when the other session's grep settled.
  const settledHostile = new Set<string>()
  let settledWhenOtherDone: number | undefined
  hostile.core.onEvent((frame) => {
    if (frame.event !== 'turn.part') return
    const part = (frame.data as { part: TurnPart }).part
    if (part.type === 'tool' && (part.state === 'completed' || part.state === 'error')) settledHostile.add(part.id)
  })
  other.core.onEvent((frame) => {
    if (frame.event !== 'turn.part') return
    const part = (frame.data as { part: TurnPart }).part
    if (part.type === 'tool' && part.id === 'call_ok' && part.state === 'completed') {
      settledWhenOtherDone ??= settledHostile.size
    }
  })

  const hostileTurn = await hostile.prompt('search everything')
  await hostile.events.waitFor((f) => {
    if (f.event !== 'turn.part') return false
    const part = (f.data as { part: TurnPart }).part
    return part.type === 'tool' && part.id === `call_evil_${HOSTILE_CALLS - 1}` && part.state === 'running'
  })
  const otherTurn = await other.prompt('find it')
  expect((await other.finished(otherTurn, 30_000)).status).toBe('complete')
  expect((await hostile.finished(hostileTurn, 30_000)).status).toBe('complete')

  const [found] = toolParts(await other.turn(otherTurn))
  expect(found).toMatchObject({ state: 'completed', output: 'notes.txt:1: find me' })
  for (const part of toolParts(await hostile.turn(hostileTurn))) {
    expect(part).toMatchObject({ state: 'error', error: { code: 'TIMEOUT' } })
  }
  // Served once a worker came free from the two hostile calls already running, not after the
  // whole burst (before: all six).
  expect(settledWhenOtherDone).toBeDefined()
  expect(settledWhenOtherDone).toBeLessThanOrEqual(2)
})
