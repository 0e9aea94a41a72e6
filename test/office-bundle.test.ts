import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import { answerOfficeAsset } from '../src/main/core/office'
import { startWebHost, type WebHost } from '../src/main/web/server'
import type { EventFrame } from '../src/shared/protocol'
import { gzipSync } from 'node:zlib'
import {
  bundleFiles,
  goodBundle,
  manifestFor,
  sha256,
  startBundleServer,
  tarBytes,
  tarGz,
  tarHeader,
  type BundleServer,
  type TarEntry,
} from './support/bundle-fixtures'
import { openProject, startCore } from './support/core'
import { watchEngine } from './support/liveness'
import { tempDir } from './support/temp'

const servers: Array<BundleServer | WebHost> = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

async function setup(extractLimits = { maxBytes: 10 * 1024 * 1024, maxEntries: 100, maxRatio: 1000 }) {
  const server = await startBundleServer()
  servers.push(server)
  const pinFile = join(tempDir('retrace-pin-'), 'office-bundle.json')
  const dataDir = tempDir('retrace-data-')
  const pin = (name: string, body: Buffer, overrides: Record<string, unknown> = {}) => {
    server.serve(name, body)
    writeFileSync(
      pinFile,
      JSON.stringify({
        version: String(overrides.version ?? '8.3.0'),
        url: server.url(name),
        size: body.length,
        sha256: sha256(body),
        licence: 'AGPL-3.0-only',
        source: 'https://example.invalid/source',
        ...overrides,
      }),
    )
  }
  const core = startCore({
    dataDir,
    office: {
      env: { RETRACE_OFFICE_BUNDLE: pinFile },
      detect: async () => ({ kind: 'missing', reason: 'not needed' }),
      extractLimits,
    },
  })
  const events: EventFrame[] = []
  core.onEvent((frame) => events.push(frame))
  const { projectId } = await openProject(core, tempDir('retrace-office-project-'))
  // Installs are asked from a project's document view; their progress goes to that project.
  const install = (key = randomUUID()) =>
    core.handle({
      request_id: randomUUID(),
      action: 'office.install',
      owner: { project_id: projectId },
      idempotency_key: key,
      payload: {},
    })
  const finished = (installId: string) =>
    new Promise<EventFrame>((resolve) => {
      const done = () =>
        events.find(
          (e) =>
            e.event === 'office.install.progress' &&
            e.data.install_id === installId &&
            ['done', 'failed'].includes(String(e.data.phase)),
        )
      const found = done()
      if (found) return resolve(found)
      const subscription = core.onEvent(() => {
        const frame = done()
        if (frame) {
          subscription.dispose()
          resolve(frame)
        }
      })
    })
  const installAndWait = async () => {
    const response = await install()
    if (response.status !== 'ok') throw new Error(JSON.stringify(response.error))
    const result = response.result as { install_id: string; state: string }
    if (result.state === 'installed') return { phase: 'done', result }
    const frame = await finished(result.install_id)
    return { phase: String(frame.data.phase), error: frame.data.error as { code: string } | undefined, result }
  }
  return { server, core, dataDir, pin, install, installAndWait, events }
}

function officeFiles(dataDir: string) {
  const bundles = existsSync(join(dataDir, 'office', 'bundles')) ? readdirSync(join(dataDir, 'office', 'bundles')) : []
  const tmp = existsSync(join(dataDir, 'office', 'tmp')) ? readdirSync(join(dataDir, 'office', 'tmp')) : []
  return { bundles, tmp }
}

async function status(core: Core) {
  const response = await core.handle({ request_id: randomUUID(), action: 'office.status', owner: {}, payload: {} })
  return (response as { result: { engines: Array<Record<string, unknown>>; bundle: Record<string, unknown> } }).result
}

describe('ONLYOFFICE bundle install', () => {
  test('a good bundle installs with real byte progress, is selected, and is served from its own origin', async () => {
    const { core, pin, installAndWait, events, dataDir } = await setup()
    const archive = goodBundle('8.3.0')
    pin('good.tar.gz', archive)
    expect((await status(core)).bundle).toMatchObject({ pinned: true, version: '8.3.0', size: archive.length })
    const outcome = await installAndWait()
    expect(outcome.phase).toBe('done')
    const progress = events.filter((e) => e.event === 'office.install.progress').map((e) => e.data)
    expect(progress.map((p) => p.phase)).toEqual(['download', 'download', 'extract', 'verify', 'publish', 'done'])
    expect(progress.every((p) => p.total_bytes === archive.length)).toBe(true)
    expect(events.filter((e) => e.event === 'office.install.progress').every((e) => e.owner.project_id)).toBe(true)
    expect(progress[1]).toMatchObject({ received_bytes: archive.length })
    const directory = await core.office.bundleDirectory()
    expect(directory && readFileSync(join(directory, 'web-apps/api.js'), 'utf8')).toContain('8.3.0')
    expect(officeFiles(dataDir).tmp).toEqual([])

    const web = await startWebHost({ core, rendererDir: tempDir('retrace-renderer-') })
    servers.push(web)
    const only = (await status(core)).engines.find((e) => e.id === 'onlyoffice')
    expect(only).toMatchObject({ available: true, version: '8.3.0', origin: web.officeOrigin, entry: 'index.html' })
    const port = Number(new URL(web.officeOrigin).port)
    const page = await http(port, 'GET', '/index.html')
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors http://127.0.0.1:${web.port}`)
    expect(page.headers['set-cookie']).toBeUndefined()
    expect((await http(port, 'GET', '/x2t/x2t.wasm')).headers['content-type']).toBe('application/wasm')
    expect((await http(port, 'HEAD', '/web-apps/api.js')).status).toBe(200)
  })

  test('the Office origin answers 404/405 for the app API, WebSocket, listings, other methods and hosts', async () => {
    const { core, pin, installAndWait } = await setup()
    pin('good.tar.gz', goodBundle('8.3.0'))
    await installAndWait()
    const web = await startWebHost({ core, rendererDir: tempDir('retrace-renderer-') })
    servers.push(web)
    const port = Number(new URL(web.officeOrigin).port)
    expect((await http(port, 'GET', `/api/ws?token=${web.token}`)).status).toBe(404)
    expect((await http(port, 'GET', '/api/bytes/anything')).status).toBe(404)
    expect((await http(port, 'GET', `/?token=${web.token}`)).status).toBe(404)
    expect((await http(port, 'GET', '/web-apps/')).status).toBe(404)
    expect((await http(port, 'GET', '/retrace-office-manifest.json')).status).toBe(200)
    expect((await http(port, 'GET', '/.retrace-bundle.json')).status).toBe(404)
    expect((await http(port, 'GET', '/web-apps/%2e%2e/%2e%2e/current.json')).status).toBe(404)
    expect((await http(port, 'POST', '/index.html')).status).toBe(405)
    expect((await http(port, 'PUT', '/index.html')).status).toBe(405)
    expect((await http(port, 'GET', '/index.html', { Host: `evil.example:${port}` })).status).toBe(403)
    expect(await upgrade(port, `/api/ws?token=${web.token}`)).toMatch(/^HTTP\/1\.1 404/)
  })

  test('concurrent requests share one install, and a finished key replays its outcome', async () => {
    const { server, pin, install, installAndWait } = await setup()
    pin('good.tar.gz', goodBundle('8.3.0'))
    const [a, b] = await Promise.all([install(), install()])
    const idA = (a as { result: { install_id: string } }).result.install_id
    expect((b as { result: { install_id: string } }).result.install_id).toBe(idA)
    const again = await installAndWait()
    expect(again.phase).toBe('done')
    expect(server.hits.get('good.tar.gz')).toBe(1)
  })

  test.each([
    ['a wrong digest', 'digest-mismatch'],
    ['a ".." entry', 'unsafe-entry'],
    ['an absolute path', 'unsafe-entry'],
    ['a symlink entry', 'unsafe-entry'],
    ['a hard link entry', 'unsafe-entry'],
    ['a device entry', 'unsafe-entry'],
    ['an oversized download', 'too-large'],
    ['a truncated download', 'truncated'],
    ['a file missing from the manifest', 'manifest-mismatch'],
    ['a bomb beyond the ratio limit', 'limits-exceeded'],
  ])('%s is refused, the previous bundle stays selected and no temporary files remain', async (name, code) => {
    const { core, server, pin, installAndWait, dataDir } = await setup()
    pin('v1.tar.gz', goodBundle('8.2.0'), { version: '8.2.0' })
    expect((await installAndWait()).phase).toBe('done')
    const previous = await core.office.bundleDirectory()

    const good = goodBundle('8.3.0')
    switch (name) {
      case 'a wrong digest':
        pin('v2.tar.gz', good, { sha256: sha256('something else') })
        break
      case 'a ".." entry':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'file', path: 'web-apps/../../escape.txt', content: 'x' }]))
        break
      case 'an absolute path':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'file', path: '/tmp/escape.txt', content: 'x' }]))
        break
      case 'a symlink entry':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'symlink', path: 'web-apps/link', target: '/etc/passwd' }]))
        break
      case 'a hard link entry':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'link', path: 'web-apps/hard', target: 'index.html' }]))
        break
      case 'a device entry':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'chardev', path: 'web-apps/null' }]))
        break
      case 'an oversized download':
        pin('v2.tar.gz', good)
        server.serve('v2.tar.gz', good, { extraBytes: 4096 })
        break
      case 'a truncated download':
        pin('v2.tar.gz', good)
        server.serve('v2.tar.gz', good, { truncateAt: Math.floor(good.length / 2) })
        break
      case 'a file missing from the manifest':
        pin('v2.tar.gz', goodBundle('8.3.0', [{ type: 'file', path: 'unlisted.js', content: 'alert(1)' }]))
        break
      case 'a bomb beyond the ratio limit':
        pin('v2.tar.gz', tarGz([{ type: 'file', path: 'zeros.bin', content: Buffer.alloc(9 * 1024 * 1024) }]))
        break
    }
    const outcome = await installAndWait()
    expect(outcome).toMatchObject({ phase: 'failed', error: { code } })
    expect(await core.office.bundleDirectory()).toBe(previous)
    expect(officeFiles(dataDir)).toEqual({ bundles: [expect.stringMatching(/^8\.2\.0-/)], tmp: [] })
    expect(existsSync('/tmp/escape.txt') && readFileSync('/tmp/escape.txt', 'utf8') === 'x').toBe(false)
    expect((await status(core)).engines.find((e) => e.id === 'onlyoffice')).toMatchObject({ version: '8.2.0' })
  })

  test('a key replays its install outcome, failed ones with their code', async () => {
    const { pin, install, events } = await setup()
    pin('bad.tar.gz', goodBundle('8.3.0'), { sha256: sha256('not it') })
    const key = randomUUID()
    const first = (await install(key)) as { result: { install_id: string } }
    while (!events.some((e) => e.event === 'office.install.progress' && e.data.phase === 'failed')) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await install(key)).toMatchObject({
      status: 'ok',
      result: { install_id: first.result.install_id, state: 'failed', error: { code: 'digest-mismatch' } },
    })
  })

  test('an install needs a complete pin; the committed build pin offers none', async () => {
    const core = startCore({ office: { env: {}, detect: async () => ({ kind: 'missing', reason: 'x' }) } })
    const { projectId } = await openProject(core, tempDir('retrace-office-project-'))
    const response = await core.handle({
      request_id: randomUUID(),
      action: 'office.install',
      owner: { project_id: projectId },
      idempotency_key: randomUUID(),
      payload: {},
    })
    expect(response).toMatchObject({ status: 'error', error: { code: 'UNAVAILABLE', details: { reason: 'unpinned' } } })
  })
})

/** The entries of a good bundle (manifest first), for archives built around them. */
function goodEntries(version: string, modes: Record<string, number> = {}): TarEntry[] {
  const files = bundleFiles(version)
  return [
    { type: 'file', path: 'retrace-office-manifest.json', content: manifestFor(version, files) },
    { type: 'dir', path: 'web-apps/', ...(modes['web-apps/'] !== undefined ? { mode: modes['web-apps/'] } : {}) },
    { type: 'dir', path: 'x2t/', ...(modes['x2t/'] !== undefined ? { mode: modes['x2t/'] } : {}) },
    ...Object.entries(files).map(([path, content]) => ({
      type: 'file' as const,
      path,
      content,
      ...(modes[path] !== undefined ? { mode: modes[path] } : {}),
    })),
  ]
}

/**
 * A valid bundle whose gzip stream also inflates to 1 GiB: either the body of a pax header that tar
 * skips unread, or data after the end-of-archive blocks. Built from concatenated gzip members (one
 * 16 MiB member repeated), so the file is 4 MiB and nothing of 1 GiB is ever held in memory. The
 * data compresses about 250:1 — under tar's own 1000:1 guard, which therefore never trips.
 */
function gzipBomb(where: 'pax-header' | 'after-end'): Buffer {
  const unit = randomBytes(256)
  const chunk = Buffer.alloc(16 * 1024 * 1024)
  for (let at = 0; at < chunk.length; at += unit.length) unit.copy(chunk, at)
  const member = gzipSync(chunk)
  const bomb = Array.from({ length: 64 }, () => member)
  const bundle = goodEntries('8.3.0')
  return where === 'pax-header'
    ? Buffer.concat([
        gzipSync(tarHeader({ type: 'pax', path: 'PaxHeader/bomb' }, 64 * chunk.length)),
        ...bomb,
        gzipSync(tarBytes(bundle)),
      ])
    : Buffer.concat([gzipSync(tarBytes(bundle)), ...bomb])
}

describe('hostile bundle archives', () => {
  test.each(['pax-header', 'after-end'] as const)(
    'a gzip bomb (%s) whose digest matches the pin stops early with limits-exceeded; nothing is installed and the engine answers throughout',
    async (where) => {
      const { core, pin, installAndWait, dataDir } = await setup()
      const archive = gzipBomb(where)
      expect(archive.length).toBeLessThan(8 * 1024 * 1024)
      pin('bomb.tar.gz', archive)
      const { value: outcome, liveness } = await watchEngine(core, installAndWait)
      console.log(
        `bundle bomb (${where}): app.info ${liveness.answers}× during the install, slowest ${liveness.maxLatencyMs.toFixed(0)} ms, RSS +${liveness.rssGrowthMiB.toFixed(0)} MiB`,
      )
      expect(outcome).toMatchObject({ phase: 'failed', error: { code: 'limits-exceeded' } })
      expect(await core.office.bundleDirectory()).toBeNull()
      expect(officeFiles(dataDir)).toEqual({ bundles: [], tmp: [] })
      // Liveness, not speed: before the fix one read of the archive inflated 1 GiB in a single
      // synchronous call.
      expect(liveness.answers).toBeGreaterThanOrEqual(1)
      expect(liveness.maxLatencyMs).toBeLessThan(1_500)
      expect(liveness.rssGrowthMiB).toBeLessThan(256)
    },
    60_000,
  )

  test('a manifest over 16 MiB is refused before it is parsed', async () => {
    const { core, pin, installAndWait } = await setup({ maxBytes: 64 * 1024 * 1024, maxEntries: 100, maxRatio: 1000 })
    const files = bundleFiles('8.3.0')
    // Valid JSON all the same: the listing, then 17 MiB of whitespace.
    const manifest = manifestFor('8.3.0', files) + ' '.repeat(17 * 1024 * 1024)
    pin(
      'huge-manifest.tar.gz',
      tarGz([
        { type: 'file', path: 'retrace-office-manifest.json', content: manifest },
        ...Object.entries(files).map(([path, content]) => ({ type: 'file' as const, path, content })),
      ]),
    )
    expect(await installAndWait()).toMatchObject({ phase: 'failed', error: { code: 'manifest-invalid' } })
    expect(await core.office.bundleDirectory()).toBeNull()
  })

  test('setuid, setgid and sticky bits (and group/other write) in the archive never reach the installed files', async () => {
    const { core, pin, installAndWait } = await setup()
    pin(
      'modes.tar.gz',
      gzipSync(
        tarBytes(
          goodEntries('8.3.0', {
            'web-apps/': 0o2777,
            'x2t/': 0o1777,
            'index.html': 0o4755,
            'web-apps/api.js': 0o6777,
            'x2t/x2t.wasm': 0o2644,
            'fonts/readme.txt': 0o666,
          }),
        ),
      ),
    )
    expect(await installAndWait()).toMatchObject({ phase: 'done' })
    const directory = await core.office.bundleDirectory()
    if (!directory) throw new Error('no bundle installed')
    const modes: Record<string, string> = {}
    const walk = (relative: string) => {
      for (const name of readdirSync(join(directory, relative))) {
        const path = relative === '' ? name : `${relative}/${name}`
        const info = lstatSync(join(directory, path))
        modes[path] = (info.mode & 0o7777).toString(8)
        if (info.isDirectory()) walk(path)
      }
    }
    walk('')
    expect(modes).toMatchObject({
      'web-apps': '755',
      x2t: '755',
      'index.html': '755',
      'web-apps/api.js': '755',
      'x2t/x2t.wasm': '644',
      'fonts/readme.txt': '644',
    })
    for (const [path, mode] of Object.entries(modes)) expect(Number.parseInt(mode, 8) & 0o7022, path).toBe(0)
  })
})

describe('Office origin answers', () => {
  test('serves only allow-listed files of the bundle tree', async () => {
    const dir = tempDir('retrace-bundle-')
    writeFileSync(join(dir, 'a.js'), 'x')
    writeFileSync(join(dir, 'secret.sh'), 'rm -rf /')
    expect((await answerOfficeAsset(dir, '/a.js', 'GET', 'http://127.0.0.1:1')).status).toBe(200)
    expect((await answerOfficeAsset(dir, '/secret.sh', 'GET', 'http://127.0.0.1:1')).status).toBe(404)
    expect((await answerOfficeAsset(null, '/a.js', 'GET', 'http://127.0.0.1:1')).status).toBe(404)
    expect((await answerOfficeAsset(dir, '/a.js', 'DELETE', 'http://127.0.0.1:1')).status).toBe(405)
  })
})

function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => (body += chunk.toString()))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

function upgrade(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    })
    req.on('response', (response) => resolve(`HTTP/1.1 ${response.statusCode}`))
    req.on('upgrade', () => resolve('HTTP/1.1 101'))
    req.on('error', reject)
    req.end()
  })
}
