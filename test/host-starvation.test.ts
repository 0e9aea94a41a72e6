import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { startChildWebHost, type ChildWebHost } from './support/child-web-host'
import { request } from './support/core'
import { tempDir } from './support/temp'
import { FrameClient } from './support/ws-client'

const hosts: ChildWebHost[] = []
const floods: Flood[] = []
afterEach(async () => {
  for (const flood of floods.splice(0)) flood.stop()
  for (const host of hosts.splice(0)) await host.stop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A local process that opens connections and never says a word, reopening each one that is closed. */
class Flood {
  private readonly open = new Set<Socket>()
  private stopped = false
  /** Connections the host has closed (or refused) so far. */
  closedByHost = 0

  constructor(
    private readonly port: number,
    private readonly size: number,
    private readonly localAddress = '127.0.0.1',
  ) {
    for (let i = 0; i < size; i++) this.openOne()
  }

  private openOne(): void {
    if (this.stopped) return
    const socket = connect({ port: this.port, host: '127.0.0.1', localAddress: this.localAddress })
    socket.on('error', () => undefined)
    this.open.add(socket)
    socket.once('close', () => {
      this.open.delete(socket)
      if (this.stopped) return
      this.closedByHost++
      // At once, as a hostile process would (a short pause keeps it from spinning the shared CPU).
      setTimeout(() => this.openOne(), 20)
    })
  }

  stop(): void {
    this.stopped = true
    for (const socket of this.open) socket.destroy()
  }
}

/** A plain HTTP request on a fresh connection (no keep-alive agent: every call is a new accept). */
function fetchOnce(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, agent: false, headers: { Host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')))
    req.on('error', reject)
    req.end()
  })
}

/** One request on the client's WebSocket; mutations carry an idempotency key. */
async function call(
  client: FrameClient,
  action: string,
  payload: unknown,
  owner: Record<string, string> = {},
  mutation = false,
) {
  const envelope = { ...request(action, payload, owner), ...(mutation ? { idempotency_key: randomUUID() } : {}) }
  client.send(envelope)
  for (;;) {
    const frame = (await client.next(30_000)) as {
      request_id?: string
      status: string
      result?: unknown
      error?: { code: string; message: string; details?: Record<string, unknown> }
    }
    if (frame.request_id === envelope.request_id) return frame
  }
}

async function setup(limits: Parameters<typeof startChildWebHost>[2] = {}) {
  const project = tempDir()
  const photo = Buffer.alloc(300 * 1024)
  for (let i = 0; i < photo.length; i++) photo[i] = (i * 7) & 0xff
  writeFileSync(join(project, 'photo.bin'), photo)
  const host = await startChildWebHost(tempDir('retrace-data-'), project, limits)
  hosts.push(host)
  const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  const listed = (await call(client, 'project.list', {})) as { result: { projects: Array<{ project_id: string }> } }
  const owner = { project_id: listed.result.projects[0]?.project_id ?? '' }
  const issued = (await call(client, 'files.read_bytes', { path: 'photo.bin' }, owner)) as { result: { url: string } }
  return { host, client, owner, photo, url: issued.result.url }
}

/** What the real window does on a reload: the page, the WebSocket with a request, a byte transfer. */
async function windowGetsIn(host: ChildWebHost, url: string, photo: Buffer): Promise<void> {
  const page = await fetchOnce(host.port, `/?token=${host.token}`)
  expect(page.status).toBe(200)
  expect(page.body.toString()).toContain('<div id="root">')
  const ws = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  expect((await call(ws, 'app.info', {})).status).toBe('ok')
  ws.close()
  const bytes = await fetchOnce(host.port, url, { Cookie: host.cookie })
  expect(bytes.status).toBe(200)
  expect(bytes.body.equals(photo)).toBe(true)
}

describe('the app port: idle token-less sockets never keep the real window out', () => {
  test('300 idle sockets reopened as they close: page loads, WebSocket + app.info and byte transfers all get in', async () => {
    const { host, url, photo } = await setup({ limits: { preAuthDeadlineMs: 1_500 } })
    const flood = new Flood(host.port, 300)
    floods.push(flood)
    await sleep(500)
    // Rounds across several pre-auth deadlines, while the flood keeps every slot it can.
    for (let round = 0; round < 8; round++) {
      await windowGetsIn(host, url, photo)
      await sleep(400)
    }
    // The idle sockets were closed (at the deadline or to make room), not kept.
    expect(flood.closedByHost).toBeGreaterThan(300)
    flood.stop()
  }, 90_000)

  test('an idle socket is closed after the pre-auth deadline; one peer cannot take every slot', async () => {
    const { host, url, photo } = await setup({
      limits: { preAuthDeadlineMs: 4_000, admissionGraceMs: 200, maxPreAuthPerPeer: 8, maxPreAuthConnections: 12 },
    })
    const closedAt = new Map<Socket, number>()
    const open = (localAddress: string) => {
      const socket = connect({ port: host.port, host: '127.0.0.1', localAddress })
      socket.on('error', () => undefined)
      socket.once('close', () => closedAt.set(socket, Date.now()))
      return new Promise<Socket>((resolve) => socket.once('connect', () => resolve(socket)))
    }
    const other: Socket[] = []
    for (let i = 0; i < 12; i++) other.push(await open('127.0.0.2'))
    // Past their grace, 127.0.0.2's sockets are the first to make room.
    await sleep(600)
    for (let i = 0; i < 2; i++) other.push(await open('127.0.0.2'))
    const mine: Socket[] = []
    for (let i = 0; i < 3; i++) mine.push(await open('127.0.0.1'))
    await sleep(300)
    // Over its share, 127.0.0.2's own oldest two made room for its newer ones; with the gate full,
    // the next three (from 127.0.0.1) took theirs from 127.0.0.2, the peer holding the most.
    expect(other.map((s) => closedAt.has(s))).toEqual([...Array(5).fill(true), ...Array(9).fill(false)])
    expect(mine.map((s) => closedAt.has(s))).toEqual([false, false, false])
    await windowGetsIn(host, url, photo)
    // Past the deadline every silent socket is gone.
    await sleep(5_000)
    expect([...other, ...mine].every((s) => closedAt.has(s))).toBe(true)
  }, 60_000)
})

describe('the Office origin holds a bounded number of connections', () => {
  test('1 500 idle sockets under a 400-descriptor limit: the port keeps at most its cap, file writes and reads stay correct', async () => {
    const { host, client, owner, url, photo } = await setup({ maxOpenFiles: 400 })
    const office = new Flood(host.officePort, 1_500)
    floods.push(office)
    await sleep(2_000)
    // The engine's own files are not starved of descriptors: a write and a read answer exactly.
    for (let i = 0; i < 5; i++) {
      const written = await call(
        client,
        'files.write',
        { path: `notes-${i}.md`, content: `note ${i}\n`, expected_revision: null },
        owner,
        true,
      )
      expect(written).toMatchObject({ status: 'ok' })
      const read = (await call(client, 'files.read', { path: `notes-${i}.md` }, owner)) as {
        result?: { text: string }
      }
      expect(read.result?.text).toBe(`note ${i}\n`)
    }
    await windowGetsIn(host, url, photo)
    // The origin still answers a request of its own (no bundle installed: 404, not a hang).
    const asset = await fetchOnce(host.officePort, '/web-apps/app.js')
    expect(asset.status).toBe(404)
    expect(host.openFds()).toBeLessThan(300)
    office.stop()
  }, 90_000)
})

describe('at the descriptor limit', () => {
  test('reads and writes that meet EMFILE say so (never a race); the host stays up and the window gets in once the flood ends', async () => {
    const { host, client, owner, url, photo } = await setup({ maxOpenFiles: 120 })
    // More idle sockets than the process has descriptors: the gate's hard ceiling is above the limit.
    const flood = new Flood(host.port, 300)
    floods.push(flood)
    await sleep(1_500)
    const outcomes = []
    for (let i = 0; i < 5; i++) {
      outcomes.push(
        await call(
          client,
          'files.write',
          { path: `deep/er/n${i}.md`, content: 'x', expected_revision: null },
          owner,
          true,
        ),
        await call(client, 'files.read', { path: 'photo.bin' }, owner),
      )
    }
    flood.stop()
    for (const outcome of outcomes) {
      if (outcome.status === 'ok') continue
      expect(outcome.error).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'too-many-open-files' } })
      expect((outcome.error as { message: string }).message).toMatch(/\((EMFILE|ENFILE)\)/)
    }
    // The flood did reach the limit: at least one operation met it.
    expect(outcomes.some((o) => o.status !== 'ok')).toBe(true)
    await sleep(500)
    await windowGetsIn(host, url, photo)
  }, 60_000)
})
