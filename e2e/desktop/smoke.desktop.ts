import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startFakeOpenAI, type FakeLlmServer } from '../../test/support/fake-llm'
import { tinyPdf } from '../support/fixture'

/**
 * `npm run test:desktop`: the real desktop app — the packaged one in dist/ when `npm run dist` made
 * it, else the development app on the Electron binary — under Xvfb on Linux. It opens a PDF with
 * Retrace (which opens its folder as the project and the file in a tab), runs one turn against the
 * loopback fake model, checks the Electron items only a real binary can show, and takes a
 * screenshot. Where the binary (or a display) cannot be obtained, the test is skipped with the
 * reason printed — counted as skipped, never as passed.
 */
const ROOT = join(__dirname, '..', '..')
const SCREENSHOT = join(ROOT, 'test-results', 'desktop-smoke.png')

type DesktopApp =
  { kind: 'found'; executable: string; args: string[]; label: string } | { kind: 'unavailable'; reason: string }

function packagedApp(): string | undefined {
  const candidates: Record<string, string[]> = {
    linux: ['dist/linux-unpacked/retrace'],
    darwin: [
      `dist/mac-${process.arch}/Retrace.app/Contents/MacOS/Retrace`,
      'dist/mac/Retrace.app/Contents/MacOS/Retrace',
    ],
    win32: ['dist/win-unpacked/retrace.exe'],
  }
  return (candidates[process.platform] ?? []).map((path) => join(ROOT, path)).find((path) => existsSync(path))
}

/** The `electron` package's binary, fetched the way `npm start` fetches it on first run. */
function electronBinary(): { path: string } | { reason: string } {
  const dir = join(ROOT, 'node_modules', 'electron')
  const installed = () => {
    const pathFile = join(dir, 'path.txt')
    if (!existsSync(pathFile)) return undefined
    const path = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim())
    return existsSync(path) ? path : undefined
  }
  const before = installed()
  if (before) return { path: before }
  const fetched = spawnSync(process.execPath, [join(dir, 'install.js')], { encoding: 'utf8', timeout: 15 * 60_000 })
  const after = installed()
  if (after) return { path: after }
  const why =
    `${fetched.stderr ?? ''}\n${fetched.stdout ?? ''}`.trim().split('\n').filter(Boolean).at(-1) ?? 'no output'
  return { reason: `the Electron binary cannot be obtained on this machine (${why})` }
}

function findDesktopApp(): DesktopApp {
  if (process.env.RETRACE_DESKTOP_APP) {
    const executable = process.env.RETRACE_DESKTOP_APP
    return existsSync(executable)
      ? { kind: 'found', executable, args: [], label: `the app at ${executable}` }
      : { kind: 'unavailable', reason: `RETRACE_DESKTOP_APP names a missing file: ${executable}` }
  }
  const packaged = packagedApp()
  if (packaged) return { kind: 'found', executable: packaged, args: [], label: `the packaged app (${packaged})` }
  const electron = electronBinary()
  if ('reason' in electron) return { kind: 'unavailable', reason: electron.reason }
  return { kind: 'found', executable: electron.path, args: [ROOT], label: 'the development app (out/ on Electron)' }
}

/** A display: the session's own, or an Xvfb started here (Linux). */
async function display(): Promise<{ env: Record<string, string>; stop(): void } | { reason: string }> {
  if (process.platform !== 'linux' || process.env.DISPLAY) return { env: {}, stop() {} }
  const xvfb = ['/usr/bin/Xvfb', '/usr/local/bin/Xvfb'].find((path) => existsSync(path))
  if (!xvfb) return { reason: 'there is no display and Xvfb is not installed (Debian package xvfb)' }
  const number = [...Array(40).keys()].map((n) => 90 + n).find((n) => !existsSync(`/tmp/.X11-unix/X${n}`))
  if (number === undefined) return { reason: 'no free X display number for Xvfb' }
  const server = spawn(xvfb, [`:${number}`, '-screen', '0', '1400x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' })
  for (let i = 0; i < 100 && !existsSync(`/tmp/.X11-unix/X${number}`); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { env: { DISPLAY: `:${number}` }, stop: () => server.kill() }
}

const found = findDesktopApp()
const screen = found.kind === 'found' ? await display() : { reason: found.reason }
const skipReason = found.kind === 'unavailable' ? found.reason : 'reason' in screen ? screen.reason : null
if (skipReason) process.stdout.write(`\ntest:desktop skipped: ${skipReason}.\n\n`)

describe.skipIf(skipReason !== null)('the desktop app', () => {
  let work: string
  let llm: FakeLlmServer
  let child: ChildProcess
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    if (found.kind !== 'found' || 'reason' in screen) return
    spawnSync(process.execPath, [join(ROOT, 'scripts', 'ensure-build.mjs')], { stdio: 'inherit' })
    work = mkdtempSync(join(tmpdir(), 'retrace-desktop-'))
    mkdirSync(join(work, 'project'))
    writeFileSync(join(work, 'project', 'README.md'), '# Desktop smoke\n')
    writeFileSync(join(work, 'project', 'paper.pdf'), tinyPdf('Desktop smoke'))
    llm = await startFakeOpenAI([], { models: ['fake-model'] })
    process.stdout.write(`test:desktop runs ${found.label}\n`)
    child = spawn(
      found.executable,
      [
        ...found.args,
        '--remote-debugging-port=0',
        // Chromium refuses to start its OS sandbox as root (CI); the renderer's sandbox: true stays.
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
        join(work, 'project', 'paper.pdf'),
      ],
      {
        env: { ...process.env, ...screen.env, RETRACE_DATA_DIR: join(work, 'data') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const endpoint = await new Promise<string>((resolve, reject) => {
      let seen = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen)
        if (match?.[1]) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`the app exited (${code}) before it was ready:\n${seen}`)))
    })
    browser = await chromium.connectOverCDP(endpoint)
    await expect
      .poll(
        () =>
          browser
            .contexts()
            .flatMap((context) => context.pages())
            .find((p) => /^app:\/\//.test(p.url())),
        {
          timeout: 60_000,
        },
      )
      .toBeDefined()
    page = browser
      .contexts()
      .flatMap((context) => context.pages())
      .find((p) => /^app:\/\//.test(p.url())) as Page
  }, 20 * 60_000)

  afterAll(async () => {
    await browser?.close().catch(() => undefined)
    if (child && child.exitCode === null) {
      // The OS-shutdown path: the app stops its work and quits by itself.
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
    await llm?.close()
    if ('stop' in screen) screen.stop()
    if (work) rmSync(work, { recursive: true, force: true })
  })

  test('a PDF opened with Retrace opens its folder as the project and the file in a tab', async () => {
    expect(page.url()).toMatch(/^app:\/\/retrace\/index\.html\?open=paper\.pdf$/)
    await expect
      .poll(() => page.locator('[data-testid="pdf-page"][data-rendered="true"]').count(), { timeout: 60_000 })
      .toBeGreaterThan(0)
  })

  test('the page has no Node, one small bridge, the CSP header, and cannot navigate or open windows', async () => {
    const facts = await page.evaluate(async () => {
      const response = await fetch('/index.html')
      const opened = window.open('https://example.com/')
      return {
        require: typeof (globalThis as { require?: unknown }).require,
        process: typeof (globalThis as { process?: unknown }).process,
        bridge: Object.keys((window as unknown as { retraceBridge: object }).retraceBridge).sort(),
        csp: response.headers.get('content-security-policy'),
        opened: opened === null,
      }
    })
    expect(facts).toMatchObject({ require: 'undefined', process: 'undefined', opened: true })
    expect(facts.bridge).toEqual(['onCommand', 'onFrame', 'send'])
    expect(facts.csp).toContain("default-src 'self'")
    await page.evaluate(() => {
      window.location.href = 'https://example.com/'
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(page.url()).toMatch(/^app:\/\/retrace\//)
  })

  test('one turn against the loopback fake model', async () => {
    llm.enqueue({ kind: 'stream', steps: [{ text: 'Hello from the fake model.' }], splitText: 6 })
    await page.evaluate(async (baseUrl) => {
      const bridge = (
        window as unknown as { retraceBridge: { send(f: unknown): void; onFrame(l: (f: unknown) => void): () => void } }
      ).retraceBridge
      const requestId = crypto.randomUUID()
      await new Promise<void>((resolve, reject) => {
        const stop = bridge.onFrame((frame) => {
          const answer = frame as { request_id?: string; status?: string; error?: unknown }
          if (answer.request_id !== requestId) return
          stop()
          if (answer.status === 'ok') resolve()
          else reject(new Error(JSON.stringify(answer.error)))
        })
        bridge.send({
          request_id: requestId,
          action: 'settings.save_provider',
          owner: {},
          payload: {
            kind: 'openai-compatible',
            name: 'Fake',
            base_url: baseUrl,
            model: 'fake-model',
            key: { kind: 'none' },
            activate: true,
          },
        })
      })
    }, llm.url)
    await expect.poll(() => page.getByTestId('chat').count(), { timeout: 30_000 }).toBe(1)
    if ((await page.getByTestId('composer-input').count()) === 0) await page.getByTestId('session-new').click()
    await page.getByTestId('composer-input').fill('Say hello')
    await page.getByTestId('composer-input').press('Enter')
    await expect
      .poll(() => page.getByTestId('transcript').innerText(), { timeout: 60_000 })
      .toContain('Hello from the fake model.')
    mkdirSync(join(ROOT, 'test-results'), { recursive: true })
    await page.screenshot({ path: SCREENSHOT })
    process.stdout.write(`test:desktop screenshot: ${SCREENSHOT}\n`)
  })
})
