import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { appContentSecurityPolicy } from '../../shared/csp'
import { request, startCore } from '../../../test/support/core'
import { httpGet } from '../../../test/support/http'
import { tempDir } from '../../../test/support/temp'
import { planApplyPatch } from '../core/journal'
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
  test('a restart listens where the last run did, so the window keeps its address; a taken port is skipped', async () => {
    const { host, rendererDir } = await start()
    const core = startCore()
    // The first host still holds its port: the second cannot have it and picks another.
    const second = await startWebHost({ core, rendererDir, preferredPort: host.port })
    hosts.push(second)
    expect(second.port).not.toBe(host.port)
    const wanted = host.port
    await hosts.shift()?.close()
    const third = await startWebHost({ core, rendererDir, preferredPort: wanted })
    hosts.push(third)
    expect(third.port).toBe(wanted)
    expect((await httpGet(third.port, `/?token=${third.token}`)).status).toBe(200)
  })

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

function httpPost(port: number, path: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('browser-mode host: session revert / unrevert for scripts', () => {
  test('POST revert rewinds code and conversation before the latest prompt; unrevert brings it back; both need the token', async () => {
    const { core, host } = await start()
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'v0\n')
    const opened = await core.handle(request('project.open', { path: root }))
    const projectId = (opened as { result: { project_id: string } }).result.project_id
    const created = await core.handle(request('session.create', {}, { project_id: projectId }))
    const sessionId = (created as { result: { session_id: string } }).result.session_id
    for (const [from, to] of [
      ['v0', 'v1'],
      ['v1', 'v2'],
    ]) {
      const turn = await core.turns.begin(projectId, sessionId, `make it ${to}`)
      if (turn.kind !== 'ok') throw new Error('no turn')
      await core.turns.mutate(projectId, turn.result, (context) =>
        planApplyPatch(context, `*** Begin Patch\n*** Update File: a.txt\n-${from}\n+${to}\n*** End Patch`),
      )
      await core.turns.finalize(projectId, turn.result, { parts: [], status: 'complete' })
    }
    const path = (verb: string, token: string | null = host.token) =>
      `/api/session/${sessionId}/${verb}${token === null ? '' : `?token=${token}`}`
    expect((await httpPost(host.port, path('revert', null), '{}')).status).toBe(403)
    expect((await httpPost(host.port, path('revert', 'wrong'), '{}')).status).toBe(403)
    expect((await httpPost(host.port, path('revert'), '{}', { Origin: 'http://evil.example' })).status).toBe(403)
    expect((await httpPost(host.port, path('revert'), '{}', { Host: `evil.example:${host.port}` })).status).toBe(403)
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v2\n')
    // Other methods and paths stay refused.
    expect((await httpGet(host.port, path('revert'), {}, 'PUT')).status).toBe(405)
    expect((await httpPost(host.port, `/api/session/${sessionId}/delete?token=${host.token}`, '{}')).status).toBe(405)
    expect((await httpPost(host.port, path('revert'), 'not json')).status).toBe(400)
    expect((await httpPost(host.port, `/api/session/ses_unknown/revert?token=${host.token}`, '')).status).toBe(404)

    const reverted = await httpPost(host.port, path('revert'), JSON.stringify({ idempotency_key: randomUUID() }))
    expect(reverted.status).toBe(200)
    expect(JSON.parse(reverted.body)).toMatchObject({ status: 'committed', prompt_text: 'make it v2' })
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v1\n')

    const unreverted = await httpPost(host.port, path('unrevert'), '')
    expect(unreverted.status).toBe(200)
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v2\n')
    // Nothing left to unrevert: 409 with the reason, nothing written.
    const again = await httpPost(host.port, path('unrevert'), '')
    expect(again.status).toBe(409)
    expect(JSON.parse(again.body)).toMatchObject({ error: { code: 'UNAVAILABLE' } })

    // part_id targets an earlier prompt: its turn id (or its prompt node id).
    const transcript = await core.handle(
      request('session.transcript', { session_id: sessionId }, { project_id: projectId }),
    )
    const nodes = (transcript as { result: { nodes: Array<{ node_id: string; kind: string }> } }).result.nodes
    const firstPrompt = nodes.find((n) => n.kind === 'user')?.node_id ?? ''
    const targeted = await httpPost(host.port, path('revert'), JSON.stringify({ part_id: firstPrompt }))
    expect(targeted.status).toBe(200)
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('v0\n')
  })
})
