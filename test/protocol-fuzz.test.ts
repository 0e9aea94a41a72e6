import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startWebHost, type RunningWebHost } from '../e2e/support/web-host'
import { ERROR_CODES, ErrorResponse } from '../src/shared/protocol'
import { FrameClient } from './support/ws-client'

let work: string
let host: RunningWebHost
let client: FrameClient

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'retrace-fuzz-'))
  host = await startWebHost(work, join(work, '.data'))
  client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
})

afterAll(async () => {
  client?.close()
  await host?.stop()
  rmSync(work, { recursive: true, force: true })
})

const notUuid = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.constant(''),
  fc.uuid().map((id) => id.toUpperCase().replace(/-/g, '')),
  fc.uuid().map((id) => `${id}x`),
)
const actionName = fc.oneof(
  fc.constantFrom('project.open', 'project.list', 'files.list', 'files.read', 'app.info'),
  fc.string(),
  fc.integer(),
)
const malformedEnvelope = fc.oneof(
  // Missing or non-UUID request_id, whatever else the request says.
  fc.record({ request_id: notUuid, action: actionName, owner: fc.anything(), payload: fc.anything() }),
  fc.record({ action: actionName, payload: fc.anything() }, { requiredKeys: [] }),
  // A good id, but an unknown action, a bad payload or a bad owner.
  fc.record({
    request_id: fc.uuid({ version: 4 }),
    action: fc.string().filter((name) => !['project.list', 'app.info', 'project.pick'].includes(name)),
    owner: fc.constant({}),
    payload: fc.anything(),
  }),
  fc.record({
    request_id: fc.uuid({ version: 4 }),
    action: fc.constantFrom('project.open', 'files.read', 'files.list'),
    owner: fc.oneof(fc.anything(), fc.constant({ project_id: 'prj_missing' })),
    payload: fc.oneof(fc.anything(), fc.record({ path: fc.oneof(fc.integer(), fc.constant(null)) })),
  }),
  // Not an envelope at all.
  fc.anything(),
)

test('a thousand random malformed requests each get one well-formed error and the host stays up', async () => {
  const samples = fc.sample(malformedEnvelope, { numRuns: 1200, seed: 20261201 })
  const frames = [
    ...samples.map((sample) => JSON.stringify(sample) ?? 'undefined'),
    '{',
    '[]',
    '"just a string"',
    '\u0000',
    '{"request_id":',
    '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  ]
  const codes = new Map<string, number>()
  for (const frame of frames) {
    client.send(frame)
    const answer = await client.next()
    const parsed = ErrorResponse.safeParse(answer)
    expect(parsed.success, `answer to ${frame.slice(0, 200)}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(true)
    if (!parsed.success) continue
    const code = parsed.data.error.code
    expect(ERROR_CODES).toContain(code)
    expect(code, `a malformed request must not crash a handler: ${frame.slice(0, 200)}`).not.toBe('INTERNAL')
    codes.set(code, (codes.get(code) ?? 0) + 1)
    const sentId = (() => {
      try {
        return (JSON.parse(frame) as { request_id?: unknown } | null)?.request_id
      } catch {
        return undefined
      }
    })()
    // The id is echoed when it was a string, so the sender can pair the refusal with its request.
    if (typeof sentId === 'string' && sentId.length <= 200) expect(parsed.data.request_id).toBe(sentId)
  }
  expect(codes.get('INVALID_REQUEST') ?? 0).toBeGreaterThan(1000)

  expect(host.process.exitCode).toBeNull()
  const alive = { request_id: randomUUID(), action: 'project.list', owner: {}, payload: {} }
  client.send(alive)
  expect(await client.next()).toMatchObject({ request_id: alive.request_id, status: 'ok' })
})
