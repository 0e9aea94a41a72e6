import { createHash, randomUUID } from 'node:crypto'
import { connect, type Socket } from 'node:net'
import { request as httpRequest } from 'node:http'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { request, startCore } from '../../../test/support/core'
import { httpGet } from '../../../test/support/http'
import { tempDir } from '../../../test/support/temp'
import { FrameClient } from '../../../test/support/ws-client'
import { startWebHost, type HostLimits, type WebHost } from './server'

const hosts: WebHost[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
})

async function start(limits: Partial<HostLimits> = {}) {
  const rendererDir = tempDir()
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
  const core = startCore()
  const host = await startWebHost({ core, rendererDir, limits })
  hosts.push(host)
  const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
  const project = tempDir()
  const opened = request('project.open', { path: project })
  client.send(opened)
  let projectId = ''
  for (;;) {
    const frame = (await client.next()) as { request_id?: string; result?: { project_id: string } }
    if (frame.request_id === opened.request_id) {
      projectId = frame.result?.project_id ?? ''
      break
    }
  }
  const call = async (action: string, payload: unknown) => {
    const envelope = request(action, payload, { project_id: projectId })
    client.send(envelope)
    for (;;) {
      const frame = (await client.next()) as { request_id?: string; status: string; result?: unknown }
      if (frame.request_id === envelope.request_id) return frame
    }
  }
  const cookie = `retrace_token_${host.port}=${host.token}`
  return { host, client, project, projectId, call, cookie, core }
}

function getBytes(port: number, path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method, headers: { Host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('byte transfer: large bytes travel over HTTP, never inside a JSON frame', () => {
  test('files.read_bytes gives a URL that serves exactly that revision, with ranges, and 409 once the file changed', async () => {
    const { host, project, call, cookie } = await start()
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff
    bytes.write('%PDF-1.7', 0)
    writeFileSync(join(project, 'paper.pdf'), bytes)
    const issued = (await call('files.read_bytes', { path: 'paper.pdf' })) as {
      result: { url: string; size: number; mime: string; revision: string }
    }
    expect(issued.result).toMatchObject({ size: bytes.length, mime: 'application/pdf' })
    expect(issued.result.url).toMatch(/^\/api\/bytes\/[A-Za-z0-9_-]{20,}$/)

    const whole = await getBytes(host.port, issued.result.url, { Cookie: cookie })
    expect(whole.status).toBe(200)
    expect(whole.body.equals(bytes)).toBe(true)
    expect(whole.headers['content-type']).toBe('application/pdf')
    expect(String(whole.headers['content-security-policy'])).toContain('sandbox')
    const slice = await getBytes(host.port, issued.result.url, { Cookie: cookie, Range: 'bytes=100-199' })
    expect(slice.status).toBe(206)
    expect(slice.headers['content-range']).toBe(`bytes 100-199/${bytes.length}`)
    expect(slice.body.equals(bytes.subarray(100, 200))).toBe(true)
    const head = await getBytes(host.port, issued.result.url, { Cookie: cookie }, 'HEAD')
    expect(head).toMatchObject({ status: 200, body: Buffer.alloc(0) })
    expect(head.headers['content-length']).toBe(String(bytes.length))
    // The token is required like anywhere else; an unknown ticket is simply not there.
    expect((await getBytes(host.port, issued.result.url, {})).status).toBe(403)
    expect((await getBytes(host.port, '/api/bytes/not-a-ticket', { Cookie: cookie })).status).toBe(404)
    expect((await getBytes(host.port, issued.result.url, { Cookie: cookie, Range: 'bytes=999999999-' })).status).toBe(
      416,
    )

    writeFileSync(join(project, 'paper.pdf'), Buffer.concat([bytes, Buffer.from('more')]))
    expect((await getBytes(host.port, issued.result.url, { Cookie: cookie })).status).toBe(409)
  })
})

describe('byte transfer of a stored version', () => {
  test('streams the blob whole and by range, and a blob corrupted on disk is never served as complete', async () => {
    const { host, project, projectId, call, cookie, core } = await start()
    const original = Buffer.alloc(2 * 1024 * 1024 + 5)
    for (let i = 0; i < original.length; i++) original[i] = (i * 13) & 0xff
    writeFileSync(join(project, 'clip.bin'), original)
    const revision = `sha256:${createHash('sha256').update(original).digest('hex')}`
    // Saving over the file keeps the original as a File History version (a blob in the store).
    const saved = await core.handle({
      ...request(
        'files.write',
        { path: 'clip.bin', content: 'replaced', expected_revision: revision },
        {
          project_id: projectId,
        },
      ),
      idempotency_key: randomUUID(),
    })
    expect(saved.status).toBe('ok')
    const history = (await call('files.history', { path: 'clip.bin' })) as {
      result: { versions: Array<{ version_id: string; size: number }> }
    }
    const version = history.result.versions.find((v) => v.size === original.length)
    const read = (await call('files.read_version', { path: 'clip.bin', version_id: version?.version_id })) as {
      result: { url: string }
    }
    const whole = await getBytes(host.port, read.result.url, { Cookie: cookie })
    expect(whole.status).toBe(200)
    expect(whole.body.equals(original)).toBe(true)
    const slice = await getBytes(host.port, read.result.url, { Cookie: cookie, Range: 'bytes=1000000-1000099' })
    expect(slice.status).toBe(206)
    expect(slice.body.equals(original.subarray(1_000_000, 1_000_100))).toBe(true)

    // One flipped byte in the stored blob (same size): neither a whole read nor a range returns it.
    const blob = join(core.dataDir, 'blobs', 'sha256', revision.slice(7, 9), revision.slice(9))
    chmodSync(blob, 0o600)
    const corrupt = Buffer.from(original)
    corrupt[1_500_000] = (corrupt[1_500_000] ?? 0) ^ 0xff
    writeFileSync(blob, corrupt)
    await expect(getBytes(host.port, read.result.url, { Cookie: cookie })).rejects.toThrow()
    await expect(getBytes(host.port, read.result.url, { Cookie: cookie, Range: 'bytes=0-99' })).rejects.toThrow()
  })
})

describe('headers', () => {
  test('the app refuses to be framed, and a request with two Host headers is refused', async () => {
    const { host } = await start()
    const page = await httpGet(host.port, `/?token=${host.token}`)
    expect(String(page.headers['content-security-policy'])).toContain("frame-ancestors 'none'")
    expect(page.headers['x-frame-options']).toBe('DENY')
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(host.port, '127.0.0.1', () => {
        socket.write(
          `GET /?token=${host.token} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
        )
      })
      let text = ''
      socket.on('data', (d) => (text += d.toString()))
      socket.on('close', () => resolve(text))
    })
    expect(raw.split('\r\n')[0]).toContain('403')
  })
})

describe('resource limits', () => {
  test('token-less idle connections are closed at the pre-auth deadline, over the cap too', async () => {
    const { host, cookie } = await start({ preAuthDeadlineMs: 300, maxPreAuthConnections: 5 })
    const sockets: Socket[] = []
    const closed: Array<Promise<number>> = []
    const started = Date.now()
    for (let i = 0; i < 8; i++) {
      const socket = connect(host.port, '127.0.0.1')
      sockets.push(socket)
      closed.push(new Promise((resolve) => socket.on('close', () => resolve(Date.now() - started))))
      await new Promise((resolve) => socket.once('connect', resolve))
    }
    const times = await Promise.all(closed)
    // Three more than the cap, still within their grace: all eight are gone without ever sending a byte.
    expect(times).toHaveLength(8)
    // The host still serves an authorised request afterwards.
    expect((await httpGet(host.port, '/', { Cookie: cookie })).status).toBe(200)
  })

  test('a client that stops reading is paused and then disconnected; others are served meanwhile', async () => {
    const { host, call, project } = await start({
      pauseAboveBytes: 1024 * 1024,
      resumeBelowBytes: 256 * 1024,
      disconnectAboveBytes: 16 * 1024 * 1024,
      stallTimeoutMs: 1_500,
    })
    writeFileSync(join(project, 'big.txt'), 'y'.repeat(2 * 1024 * 1024))
    await call('files.read', { path: 'big.txt' })
    const projectId = ((await call('project.list', {})) as { result: { projects: Array<{ project_id: string }> } })
      .result.projects[0]?.project_id as string
    const slow = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
    slow.socket.pause()
    for (let i = 0; i < 200; i++) slow.send(request('files.read', { path: 'big.txt' }, { project_id: projectId }))
    const rssBefore = process.memoryUsage().rss
    // Meanwhile another client is answered promptly.
    const other = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
    for (let i = 0; i < 20; i++) {
      const info = request('app.info', {})
      const sent = performance.now()
      other.send(info)
      for (;;) {
        const frame = (await other.next()) as { request_id?: string }
        if (frame.request_id === info.request_id) break
      }
      expect(performance.now() - sent).toBeLessThan(2_000)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // Stalled past the timeout, it was dropped: reading again it finds the connection closed.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    slow.socket.resume()
    await slow.closed
    const grew = (process.memoryUsage().rss - rssBefore) / 1024 / 1024
    expect(grew).toBeLessThan(256)
    other.close()
  }, 60_000)
})

describe('backpressure slows a client down and never drops one that reads normally', () => {
  test('ten concurrent 60 MB reads on one WebSocket all succeed', async () => {
    const { host, project } = await start()
    const line = `${'x'.repeat(99)}\n`
    writeFileSync(join(project, 'big.txt'), line.repeat(600_000))
    const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
    const opened = request('project.open', { path: project })
    client.send(opened)
    const projectId = ((await client.next(30_000)) as { result: { project_id: string } }).result.project_id
    // A browser spends a while parsing each 60 MB frame before it reads the next: a steady reader.
    client.socket.on('message', () => {
      client.socket.pause()
      setTimeout(() => client.socket.resume(), 300)
    })
    const reads = Array.from({ length: 10 }, () =>
      request('files.read', { path: 'big.txt' }, { project_id: projectId }),
    )
    for (const read of reads) client.send(read)
    const answers: Array<{ status: string; size?: number; code?: string }> = []
    for (let i = 0; i < reads.length; i++) {
      const closed = client.closed.then(() => ({ status: 'CLOSED' }))
      const frame = (await Promise.race([client.next(60_000), closed])) as {
        status: string
        result?: { size: number }
        error?: { code: string }
      }
      answers.push({ status: frame.status, size: frame.result?.size, code: frame.error?.code })
    }
    expect(answers).toEqual(Array(10).fill({ status: 'ok', size: 60_000_000, code: undefined }))
    // The client is still connected and answered.
    const info = request('app.info', {})
    client.send(info)
    expect(await client.next()).toMatchObject({ request_id: info.request_id, status: 'ok' })
    client.close()
  }, 120_000)
})
