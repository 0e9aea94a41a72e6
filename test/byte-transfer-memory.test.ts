import { createHash } from 'node:crypto'
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { startChildWebHost, type ChildWebHost } from './support/child-web-host'
import { request } from './support/core'
import { tempDir } from './support/temp'
import { FrameClient } from './support/ws-client'

const hosts: ChildWebHost[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function call(client: FrameClient, action: string, payload: unknown, owner: Record<string, string> = {}) {
  const envelope = request(action, payload, owner)
  client.send(envelope)
  for (;;) {
    const frame = (await client.next(60_000)) as { request_id?: string; status: string; result?: unknown }
    if (frame.request_id === envelope.request_id) return frame
  }
}

/** Starts a GET and resolves with the response as soon as its headers arrive, before any body is read. */
function openReader(port: number, path: string, cookie: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}`, Cookie: cookie } })
    req.on('response', (res) => {
      res.pause()
      resolve({ req, res })
    })
    req.on('error', reject)
    req.end()
  })
}

function readAll(port: number, path: string, cookie: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}`, Cookie: cookie } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** The highest VmRSS seen over `ms`. */
async function peakRss(host: ChildWebHost, ms: number): Promise<number> {
  let peak = host.rssMiB()
  for (const until = Date.now() + ms; Date.now() < until;) {
    await sleep(100)
    peak = Math.max(peak, host.rssMiB())
  }
  return peak
}

/** A project whose 48 MB binary file was saved over once: its original is a File History version. */
async function largeVersion() {
  const project = tempDir()
  // Binary content (NUL bytes), so the version is served by byte transfer, not as text.
  const original = Buffer.alloc(48 * 1000 * 1000)
  for (let i = 0; i < original.length; i += 4096) original.writeUInt32LE(i, i)
  writeFileSync(join(project, 'video.bin'), original)
  const host = await startChildWebHost(tempDir('retrace-data-'), project)
  hosts.push(host)
  const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  const listed = (await call(client, 'project.list', {})) as { result: { projects: Array<{ project_id: string }> } }
  const owner = { project_id: listed.result.projects[0]?.project_id ?? '' }
  const revision = `sha256:${createHash('sha256').update(original).digest('hex')}`
  // Saving over the file records the 48 MB original as a File History version.
  const saved = request(
    'files.write',
    { path: 'video.bin', content_base64: Buffer.from('small now').toString('base64'), expected_revision: revision },
    owner,
  )
  client.send({ ...saved, idempotency_key: crypto.randomUUID() })
  for (;;) {
    const frame = (await client.next(60_000)) as { request_id?: string; status: string }
    if (frame.request_id === saved.request_id) {
      expect(frame.status).toBe('ok')
      break
    }
  }
  const history = (await call(client, 'files.history', { path: 'video.bin' }, owner)) as {
    result: { versions: Array<{ version_id: string; size: number }> }
  }
  const version = history.result.versions.find((v) => v.size === original.length)
  expect(version).toBeDefined()
  const read = (await call(
    client,
    'files.read_version',
    { path: 'video.bin', version_id: version?.version_id ?? '' },
    owner,
  )) as { status: string; result: { kind: string; url: string } }
  expect(read.result.kind).toBe('binary')

  return { host, client, owner, original, version: version?.version_id ?? '', url: read.result.url }
}

describe('byte transfers of File History versions stream from the content store', () => {
  test('60 paused readers of a 48 MB version: the host grows < 200 MiB and returns near baseline after they close', async () => {
    const { host, client, original, url } = await largeVersion()
    await sleep(1_500)
    const baseline = host.rssMiB()
    const readers: Array<{ req: ClientRequest; res: IncomingMessage }> = []
    for (let i = 0; i < 60; i++) readers.push(await openReader(host.port, url, host.cookie))
    expect(readers.map((r) => r.res.statusCode)).toEqual(Array(60).fill(200))
    const paused = await peakRss(host, 3_000)
    // The engine still answers while they hang.
    expect((await call(client, 'app.info', {})).status).toBe('ok')
    for (const reader of readers) reader.req.destroy()
    await sleep(2_000)
    const after = await peakRss(host, 1_000)
    console.log(
      `60 paused readers of 48 MB: baseline ${baseline.toFixed(0)} MiB, paused +${(paused - baseline).toFixed(0)} MiB, after close +${(after - baseline).toFixed(0)} MiB`,
    )
    expect(paused - baseline).toBeLessThan(200)
    expect(after - baseline).toBeLessThan(100)

    // The transfer turns were given back: a whole read now gets exactly the version's bytes.
    const whole = await readAll(host.port, url, host.cookie)
    expect(whole.status).toBe(200)
    expect(whole.body.equals(original)).toBe(true)
    const ranged = await new Promise<Buffer>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: host.port,
          path: url,
          headers: { Host: `127.0.0.1:${host.port}`, Cookie: host.cookie, Range: 'bytes=1000000-1999999' },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve(Buffer.concat(chunks)))
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(ranged.equals(original.subarray(1_000_000, 2_000_000))).toBe(true)
    client.close()
  }, 120_000)

  test('12 concurrent files.read_version of the 48 MB version wait for the read budget instead of all loading at once', async () => {
    const { host, client, owner, version } = await largeVersion()
    await sleep(1_500)
    const baseline = host.rssMiB()
    let peak = baseline
    const sampler = setInterval(() => (peak = Math.max(peak, host.rssMiB())), 20)
    try {
      const sent = Array.from({ length: 12 }, () =>
        request('files.read_version', { path: 'video.bin', version_id: version }, owner),
      )
      for (const envelope of sent) client.send(envelope)
      const reads: Array<{ status: string }> = []
      while (reads.length < sent.length) {
        const frame = (await client.next(60_000)) as { request_id?: string; status: string }
        if (sent.some((e) => e.request_id === frame.request_id)) reads.push(frame)
      }
      expect(reads.map((r) => r.status)).toEqual(Array(12).fill('ok'))
    } finally {
      clearInterval(sampler)
    }
    console.log(`12 concurrent read_version of 48 MB: peak +${(peak - baseline).toFixed(0)} MiB`)
    // The budget is 128 MiB (two of these at once); all twelve at once would be 576 MB.
    expect(peak - baseline).toBeLessThan(300)
    client.close()
  }, 120_000)
})
