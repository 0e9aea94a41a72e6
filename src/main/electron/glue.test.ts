import { EventEmitter } from 'node:events'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test, vi } from 'vitest'
import { IPC_FRAME_CHANNEL, IPC_REQUEST_CHANNEL } from '../../shared/bridge'
import { appContentSecurityPolicy } from '../../shared/csp'
import { tempDir } from '../../../test/support/temp'

// The real package would try to download the Electron binary; the glue is tested around its seams.
vi.mock('electron', () => ({ app: {}, protocol: { handle: vi.fn() } }))

const { answerAppRequest, APP_ENTRY_URL, APP_SCHEME_PRIVILEGES, registerAppProtocol } = await import('./app-protocol')
const { decideNavigation, externalLinkTarget, isTrustedOrigin, trustedOrigins } = await import('./navigation')
const { isTrustedSender } = await import('./ipc-sender')
const { secureWebPreferences } = await import('./window')
const { attachCoreToIpc } = await import('./ipc-bridge')
const { createElectronHost } = await import('./host')

const noEncryption = {
  isEncryptionAvailable: () => false,
  encryptString: (): Buffer => {
    throw new Error('unavailable')
  },
  decryptString: (): string => {
    throw new Error('unavailable')
  },
}

function rendererDir() {
  const dir = tempDir()
  writeFileSync(join(dir, 'index.html'), '<!doctype html>')
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'assets', 'index.js'), 'export {}')
  const outside = tempDir()
  writeFileSync(join(outside, 'secret.txt'), 'secret')
  symlinkSync(join(outside, 'secret.txt'), join(dir, 'assets', 'leak.txt'))
  return dir
}

describe('app:// protocol', () => {
  test('the scheme is registered standard and secure so the renderer gets a real origin', () => {
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ scheme: 'app', privileges: { standard: true, secure: true } })
    expect(APP_ENTRY_URL).toBe('app://retrace/index.html')
  })

  test('serves renderer files with the CSP as a response header', async () => {
    const dir = rendererDir()
    const page = await answerAppRequest(dir, 'app://retrace/index.html', 'GET')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(
      appContentSecurityPolicy({ officeOrigin: 'retrace-office://bundle' }),
    )
    expect(await page.text()).toBe('<!doctype html>')
    const script = await answerAppRequest(dir, 'app://retrace/assets/index.js', 'GET')
    expect(script.headers.get('content-type')).toMatch(/javascript/)
  })

  test('refuses traversal, symlinks out of the renderer, other hosts and writes', async () => {
    const dir = rendererDir()
    const statusOf = async (url: string, method = 'GET') => (await answerAppRequest(dir, url, method)).status
    expect(await statusOf('app://retrace/assets/leak.txt')).toBe(403)
    // WHATWG URL parsing already folds %2e%2e segments, so this one lands inside the renderer dir.
    expect(await statusOf('app://retrace/%2e%2e/%2e%2e/etc/passwd')).toBe(404)
    expect(await statusOf('app://retrace/assets/..%2f..%2fetc%2fpasswd')).toBe(403)
    expect(await statusOf('app://other/index.html')).toBe(403)
    expect(await statusOf('app://retrace/missing.js')).toBe(404)
    expect(await statusOf('app://retrace/index.html', 'POST')).toBe(405)
  })

  test('/api/bytes/<ticket> is answered by the core on the app origin, streaming with its status and headers', async () => {
    const dir = rendererDir()
    const calls: Array<[string, unknown]> = []
    const serve = async (ticket: string, options: { range?: string | undefined; head?: boolean }) => {
      calls.push([ticket, options])
      return {
        status: 206 as const,
        headers: { 'Content-Type': 'application/pdf', 'Content-Range': 'bytes 0-2/10' },
        body: [new Uint8Array([1, 2]), new Uint8Array([3])],
      }
    }
    const answer = await answerAppRequest(dir, 'app://retrace/api/bytes/abc', 'GET', { serve, range: 'bytes=0-2' })
    expect(answer.status).toBe(206)
    expect(answer.headers.get('content-type')).toBe('application/pdf')
    expect([...new Uint8Array(await answer.arrayBuffer())]).toEqual([1, 2, 3])
    expect(calls).toEqual([['abc', { range: 'bytes=0-2', head: false }]])
    // Without a core (not started yet) there is nothing to serve.
    expect((await answerAppRequest(dir, 'app://retrace/api/bytes/abc', 'GET')).status).toBe(404)
  })

  test('registerAppProtocol routes the scheme to the same answer function', async () => {
    const dir = rendererDir()
    const handle = vi.fn()
    registerAppProtocol({ handle } as never, dir)
    expect(handle).toHaveBeenCalledWith('app', expect.any(Function))
    const handler = handle.mock.calls[0]?.[1] as (request: { url: string; method: string }) => Promise<Response>
    expect((await handler({ url: 'app://retrace/index.html', method: 'GET' })).status).toBe(200)
  })
})

describe('navigation and windows', () => {
  test('in-window navigation is always denied', () => {
    expect(decideNavigation()).toBe('deny')
  })

  test('only plain http(s) links may go to the system browser', () => {
    expect(externalLinkTarget('https://example.com/docs')).toBe('https://example.com/docs')
    expect(externalLinkTarget('http://example.com/')).toBe('http://example.com/')
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'app://retrace/x',
      'smb://host/share',
      'https://u:p@example.com/',
      'not a url',
    ]) {
      expect(externalLinkTarget(url)).toBeUndefined()
    }
  })

  test('the trusted origins are app://retrace and, only in development, the dev server', () => {
    const packaged = trustedOrigins(undefined)
    expect(isTrustedOrigin('app://retrace/index.html', packaged)).toBe(true)
    expect(isTrustedOrigin('app://evil/index.html', packaged)).toBe(false)
    expect(isTrustedOrigin('http://localhost:5173/', packaged)).toBe(false)
    const dev = trustedOrigins('http://localhost:5173/')
    expect(isTrustedOrigin('http://localhost:5173/index.html', dev)).toBe(true)
    expect(isTrustedOrigin('http://localhost:5174/', dev)).toBe(false)
  })

  test('every window is sandboxed and isolated with no Node integration', () => {
    expect(secureWebPreferences('/p/preload.cjs')).toEqual({
      preload: '/p/preload.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
    })
  })
})

describe('IPC', () => {
  const origins = trustedOrigins(undefined)
  const known = new Set([7])
  const main = { url: 'app://retrace/index.html', isMainFrame: true }

  test('only the main frame of our own window on our origin is a trusted sender', () => {
    expect(isTrustedSender({ webContentsId: 7, frame: main }, known, origins)).toBe(true)
    expect(isTrustedSender({ webContentsId: 8, frame: main }, known, origins)).toBe(false)
    expect(isTrustedSender({ webContentsId: 7, frame: { ...main, isMainFrame: false } }, known, origins)).toBe(false)
    expect(
      isTrustedSender({ webContentsId: 7, frame: { url: 'https://evil.example/', isMainFrame: true } }, known, origins),
    ).toBe(false)
    expect(isTrustedSender({ webContentsId: 7, frame: null }, known, origins)).toBe(false)
  })

  test('a page on another origin of ours (the Office origin, in its iframe or navigated to) gets no IPC', () => {
    for (const url of ['retrace-office://bundle/index.html', 'app://retrace.evil/index.html', 'file:///index.html']) {
      expect(isTrustedSender({ webContentsId: 7, frame: { url, isMainFrame: true } }, known, origins)).toBe(false)
      expect(isTrustedSender({ webContentsId: 7, frame: { url, isMainFrame: false } }, known, origins)).toBe(false)
    }
  })

  function fakeContents(id: number) {
    const sent: unknown[] = []
    return {
      id,
      sent,
      isDestroyed: () => false,
      send: (_channel: string, frame: unknown) => sent.push([_channel, frame]),
    }
  }

  test('a trusted request is handled by the core and answered to the same sender; others are refused unanswered', async () => {
    const ipcMain = new EventEmitter()
    const handled: unknown[] = []
    const core = {
      handle: async (frame: unknown) => {
        handled.push(frame)
        return { request_id: 'r', action: 'project.list', owner: {}, status: 'ok' as const, result: {} }
      },
      onEvent: () => ({ dispose() {} }),
    }
    const contents = fakeContents(7)
    const refused: string[] = []
    const bridge = attachCoreToIpc(
      ipcMain as never,
      core,
      { ids: known, all: () => [contents as never] },
      origins,
      (reason) => refused.push(reason),
    )
    ipcMain.emit(IPC_REQUEST_CHANNEL, { sender: contents, senderFrame: { url: main.url, parent: null } }, { hello: 1 })
    ipcMain.emit(IPC_REQUEST_CHANNEL, { sender: contents, senderFrame: { url: main.url, parent: {} } }, { iframe: 1 })
    ipcMain.emit(
      IPC_REQUEST_CHANNEL,
      { sender: fakeContents(9), senderFrame: { url: main.url, parent: null } },
      { other: 1 },
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(handled).toEqual([{ hello: 1 }])
    expect(contents.sent).toEqual([[IPC_FRAME_CHANNEL, expect.objectContaining({ status: 'ok' })]])
    expect(refused).toHaveLength(2)
    bridge.dispose()
    ipcMain.emit(IPC_REQUEST_CHANNEL, { sender: contents, senderFrame: { url: main.url, parent: null } }, { late: 1 })
    expect(handled).toHaveLength(1)
  })

  test("a project's events go only to the windows that opened it, until disposed", async () => {
    const ipcMain = new EventEmitter()
    let listener: ((frame: unknown) => void) | undefined
    const core = {
      handle: async () => ({
        request_id: null,
        action: 'project.open',
        owner: {},
        status: 'ok' as const,
        result: { project_id: 'prj_a' },
      }),
      onEvent: (l: (frame: unknown) => void) => {
        listener = l
        return { dispose: () => (listener = undefined) }
      },
    }
    const opener = fakeContents(7)
    const other = fakeContents(8)
    const bridge = attachCoreToIpc(
      ipcMain as never,
      core as never,
      { ids: new Set([7, 8]), all: () => [opener as never, other as never] },
      origins,
      () => {},
    )
    ipcMain.emit(IPC_REQUEST_CHANNEL, { sender: opener, senderFrame: { url: main.url, parent: null } }, { open: 1 })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const mine = { event: 'workspace.changed', owner: { project_id: 'prj_a' }, data: {} }
    const theirs = { event: 'workspace.changed', owner: { project_id: 'prj_b' }, data: {} }
    listener?.(mine)
    listener?.(theirs)
    bridge.dispose()
    expect(listener).toBeUndefined()
    expect(opener.sent.slice(1)).toEqual([[IPC_FRAME_CHANNEL, mine]])
    expect(other.sent).toEqual([])
  })
})

describe('desktop host', () => {
  test('the folder picker returns the chosen folder, or null when cancelled', async () => {
    const picked = createElectronHost({
      dialog: { showOpenDialog: async () => ({ canceled: false, filePaths: ['/home/me/project'] }) } as never,
      appVersion: '1.2.3',
      focusedWindow: () => undefined,
      safeStorage: noEncryption,
    })
    expect(picked.shell).toBe('desktop')
    expect(picked.secrets).toBeUndefined()
    expect(await picked.pickFolder?.()).toBe('/home/me/project')
    const cancelled = createElectronHost({
      dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) } as never,
      appVersion: '1.2.3',
      focusedWindow: () => undefined,
      safeStorage: noEncryption,
    })
    expect(await cancelled.pickFolder?.()).toBeNull()
  })

  test('stores provider keys only through safeStorage, and never when encryption is unavailable', () => {
    // A reversible stand-in for the OS keychain: what matters is that the host routes through it.
    const sealed = (plain: string) => Buffer.from(`sealed:${Buffer.from(plain).toString('base64')}`)
    const host = createElectronHost({
      dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) } as never,
      appVersion: '1.2.3',
      focusedWindow: () => undefined,
      safeStorage: {
        isEncryptionAvailable: () => true,
        encryptString: sealed,
        decryptString: (cipher: Buffer) => {
          const text = cipher.toString()
          if (!text.startsWith('sealed:')) throw new Error('Error while decrypting the ciphertext provided')
          return Buffer.from(text.slice(7), 'base64').toString()
        },
      },
    })
    const cipher = host.secrets?.encrypt('sk-secret') as Buffer
    expect(cipher.toString()).not.toContain('sk-secret')
    expect(host.secrets?.decrypt(cipher)).toBe('sk-secret')
    expect(host.secrets?.decrypt(Buffer.from('garbage'))).toBeNull()
  })
})

describe('content security policy', () => {
  test('is exactly the policy of spec 11, with no frames until the Office origin exists', () => {
    expect(appContentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; connect-src 'self' blob:; " +
        "img-src 'self' data: blob:; font-src 'self'; media-src 'self' blob:; style-src 'self' 'unsafe-inline'; " +
        "object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'; frame-ancestors 'none'",
    )
    expect(appContentSecurityPolicy({ officeOrigin: 'http://127.0.0.1:9' })).toMatch(
      /frame-src http:\/\/127\.0\.0\.1:9;/,
    )
  })
})
