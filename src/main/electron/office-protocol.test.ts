import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { tempDir } from '../../../test/support/temp'

// The real package would try to download the Electron binary; the glue is tested around its seams.
vi.mock('electron', () => ({ app: {}, protocol: { handle: vi.fn() } }))

const { answerOfficeRequest, OFFICE_ORIGIN, OFFICE_SCHEME_PRIVILEGES, registerOfficeProtocol } =
  await import('./office-protocol')
const { answerAppRequest } = await import('./app-protocol')

function bundle() {
  const dir = tempDir('retrace-bundle-')
  mkdirSync(join(dir, 'web-apps'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html>')
  writeFileSync(join(dir, 'web-apps', 'api.js'), 'window.DocsAPI = {}')
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.js'), 'secret')
  symlinkSync(join(outside, 'secret.js'), join(dir, 'web-apps', 'leak.js'))
  return dir
}

const coreWith = (dir: string | null) => {
  const origins: string[] = []
  return {
    origins,
    office: {
      bundleDirectory: async () => dir,
      attachOrigin: (origin: string) => {
        origins.push(origin)
        return { dispose: () => origins.splice(origins.indexOf(origin), 1) }
      },
    } as never,
  }
}

describe('retrace-office:// protocol', () => {
  test('is its own standard, secure origin, and the app may frame only it', async () => {
    expect(OFFICE_SCHEME_PRIVILEGES).toMatchObject({
      scheme: 'retrace-office',
      privileges: { standard: true, secure: true },
    })
    expect(OFFICE_ORIGIN).toBe('retrace-office://bundle')
    const dir = tempDir()
    writeFileSync(join(dir, 'index.html'), '<!doctype html>')
    const app = await answerAppRequest(dir, 'app://retrace/index.html', 'GET')
    expect(app.headers.get('content-security-policy')).toContain('frame-src retrace-office://bundle')
  })

  test('serves GET/HEAD of the bundle tree only, framed only by the app', async () => {
    const core = coreWith(bundle())
    const get = await answerOfficeRequest(core, 'retrace-office://bundle/web-apps/api.js', 'GET', 'app://retrace')
    expect(get.status).toBe(200)
    expect(get.headers.get('content-type')).toMatch(/javascript/)
    expect(get.headers.get('content-security-policy')).toContain('frame-ancestors app://retrace')
    expect(await get.text()).toBe('window.DocsAPI = {}')
    const statusOf = async (url: string, method = 'GET') =>
      (await answerOfficeRequest(core, url, method, 'app://retrace')).status
    expect(await statusOf('retrace-office://bundle/index.html', 'HEAD')).toBe(200)
    expect(await statusOf('retrace-office://bundle/index.html', 'POST')).toBe(405)
    expect(await statusOf('retrace-office://bundle/api/ws')).toBe(404)
    expect(await statusOf('retrace-office://bundle/web-apps/')).toBe(404)
    expect(await statusOf('retrace-office://bundle/web-apps/leak.js')).toBe(404)
    expect(await statusOf('retrace-office://other/index.html')).toBe(404)
    expect(
      await answerOfficeRequest(coreWith(null), 'retrace-office://bundle/index.html', 'GET', 'app://retrace'),
    ).toMatchObject({
      status: 404,
    })
  })

  test('registering routes the scheme and announces the origin to the engine', async () => {
    const core = coreWith(bundle())
    const handle = vi.fn()
    const registration = registerOfficeProtocol({ handle } as never, core, 'app://retrace')
    expect(handle).toHaveBeenCalledWith('retrace-office', expect.any(Function))
    expect(core.origins).toEqual(['retrace-office://bundle'])
    const handler = handle.mock.calls[0]?.[1] as (request: { url: string; method: string }) => Promise<Response>
    expect((await handler({ url: 'retrace-office://bundle/index.html', method: 'GET' })).status).toBe(200)
    registration.dispose()
    expect(core.origins).toEqual([])
  })
})
