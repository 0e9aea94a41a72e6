import { randomUUID } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { appContentSecurityPolicy } from '../../shared/csp'
import { request, startCore } from '../../../test/support/core'
import { httpGet } from '../../../test/support/http'
import { tempDir } from '../../../test/support/temp'
import { FrameClient } from '../../../test/support/ws-client'
import { startWebHost, type WebHost } from './server'

const hosts: WebHost[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
})

async function start() {
  const rendererDir = tempDir()
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>')
  mkdirSync(join(rendererDir, 'assets'))
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  const core = startCore()
  const host = await startWebHost({ core, rendererDir })
  hosts.push(host)
  const wsUrl = (token: string | null = host.token) =>
    `ws://127.0.0.1:${host.port}/api/ws${token === null ? '' : `?token=${token}`}`
  return { core, host, wsUrl, rendererDir }
}

describe('browser-mode host: HTTP', () => {
  test('the printed URL is http://127.0.0.1:<port>/?token=<token>', async () => {
    const { host } = await start()
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/)
    expect(host.url).toContain(`:${host.port}/`)
  })

  test('the app is served only with the token, and then with the CSP header and a token cookie', async () => {
    const { host } = await start()
    expect((await httpGet(host.port, '/')).status).toBe(403)
    expect((await httpGet(host.port, '/?token=wrong')).status).toBe(403)
    const ok = await httpGet(host.port, `/?token=${host.token}`)
    expect(ok.status).toBe(200)
    // The app may frame the Office origin, and nothing else.
    expect(ok.headers['content-security-policy']).toBe(appContentSecurityPolicy({ officeOrigin: host.officeOrigin }))
    const cookie = String(ok.headers['set-cookie']).split(';')[0] ?? ''
    expect(cookie).toBe(`retrace_token_${host.port}=${host.token}`)
    const asset = await httpGet(host.port, '/assets/app.js', { Cookie: cookie })
    expect(asset).toMatchObject({ status: 200, body: 'console.log(1)' })
    expect(asset.headers['content-type']).toMatch(/javascript/)
    expect((await httpGet(host.port, '/assets/app.js')).status).toBe(403)
  })

  test('a non-loopback Host header (DNS rebinding) or a foreign Origin is refused even with the token', async () => {
    const { host } = await start()
    const path = `/?token=${host.token}`
    expect((await httpGet(host.port, path, { Host: `evil.example:${host.port}` })).status).toBe(403)
    expect((await httpGet(host.port, path, { Host: '127.0.0.1:1' })).status).toBe(403)
    expect((await httpGet(host.port, path, { Origin: 'http://evil.example' })).status).toBe(403)
    expect((await httpGet(host.port, path, { Host: `localhost:${host.port}` })).status).toBe(200)
  })

  test('paths outside the renderer directory are never served', async () => {
    const { host } = await start()
    const cookie = `retrace_token_${host.port}=${host.token}`
    for (const path of [
      '/../../../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/assets/..%2f..%2f..%2fetc%2fpasswd',
      '/%00',
    ]) {
      const answer = await httpGet(host.port, path, { Cookie: cookie })
      expect([403, 404]).toContain(answer.status)
      expect(answer.body).not.toContain('root:')
    }
    expect((await httpGet(host.port, '/', { Cookie: cookie }, 'POST')).status).toBe(405)
  })
})

describe('browser-mode host: WebSocket', () => {
  test('refuses a connection without the token, with a foreign Origin or a rebinding Host', async () => {
    const { host, wsUrl } = await start()
    await expect(FrameClient.connect(wsUrl(null))).rejects.toThrow('HTTP 403')
    await expect(FrameClient.connect(wsUrl('nope'))).rejects.toThrow('HTTP 403')
    await expect(FrameClient.connect(wsUrl(), { Origin: 'http://evil.example' })).rejects.toThrow('HTTP 403')
    await expect(FrameClient.connect(wsUrl(), { Host: `evil.example:${host.port}` })).rejects.toThrow('HTTP 403')
    const client = await FrameClient.connect(wsUrl(), { Origin: `http://127.0.0.1:${host.port}` })
    client.close()
  })

  test('one JSON envelope per frame in, exactly one response per request out', async () => {
    const { wsUrl } = await start()
    const folder = tempDir()
    writeFileSync(join(folder, 'a.txt'), 'alpha')
    const client = await FrameClient.connect(wsUrl())
    const open = request('project.open', { path: folder })
    client.send(open)
    const response = (await client.next()) as { request_id: string; result: { project_id: string } }
    expect(response.request_id).toBe(open.request_id)
    const read = request('files.read', { path: 'a.txt' }, { project_id: response.result.project_id })
    client.send(read)
    expect(await client.next()).toMatchObject({ request_id: read.request_id, status: 'ok', result: { text: 'alpha' } })
    client.close()
  })

  test('garbage frames get INVALID_REQUEST answers and the connection stays usable', async () => {
    const { wsUrl } = await start()
    const client = await FrameClient.connect(wsUrl())
    client.send('{not json')
    expect(await client.next()).toMatchObject({ request_id: null, status: 'error', error: { code: 'INVALID_REQUEST' } })
    client.socket.send(Buffer.from([1, 2, 3]), { binary: true })
    expect(await client.next()).toMatchObject({ request_id: null, status: 'error', error: { code: 'INVALID_REQUEST' } })
    const list = { request_id: randomUUID(), action: 'project.list', owner: {}, payload: {} }
    client.send(list)
    expect(await client.next()).toMatchObject({ request_id: list.request_id, status: 'ok' })
    client.close()
  })

  test('many concurrent requests are all answered, each matched by its own request_id', async () => {
    const { wsUrl } = await start()
    const client = await FrameClient.connect(wsUrl())
    const sent = Array.from({ length: 200 }, () => request('project.list', {}))
    for (const envelope of sent) client.send(envelope)
    const answered: string[] = []
    for (let i = 0; i < sent.length; i++) answered.push(((await client.next()) as { request_id: string }).request_id)
    expect(answered).toHaveLength(sent.length)
    expect(new Set(answered)).toEqual(new Set(sent.map((envelope) => envelope.request_id)))
    client.close()
  })

  test('events carry their project and reach only clients that opened it', async () => {
    const { wsUrl } = await start()
    const first = tempDir()
    const second = tempDir()
    const a = await FrameClient.connect(wsUrl())
    const b = await FrameClient.connect(wsUrl())
    const openIn = async (client: FrameClient, folder: string) => {
      const open = request('project.open', { path: folder })
      client.send(open)
      return ((await client.next()) as { result: { project_id: string } }).result.project_id
    }
    const projectA = await openIn(a, first)
    await openIn(b, second)
    const write = {
      ...request('files.write', { path: 'x.txt', content: 'x', expected_revision: null }, { project_id: projectA }),
      idempotency_key: randomUUID(),
    }
    a.send(write)
    const frames = [await a.next(), await a.next()]
    expect(frames.find((f) => (f as { event?: string }).event === 'workspace.changed')).toMatchObject({
      owner: { project_id: projectA },
      data: { paths: ['x.txt'] },
    })
    // b opened another project: nothing of project A reaches it.
    await expect(b.next(500)).rejects.toThrow('no frame in time')
    a.close()
    b.close()
  })

  test('close() ends open connections', async () => {
    const { host, wsUrl } = await start()
    const client = await FrameClient.connect(wsUrl())
    await host.close()
    hosts.splice(hosts.indexOf(host), 1)
    await client.closed
  })
})
