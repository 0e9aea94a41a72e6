import { execFileSync } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import type { EventFrame } from '../src/shared/protocol'
import { detectLibreOffice } from '../src/main/core/office/libreoffice/detect'
import { startBundleServer, tarGz, type BundleServer } from './support/bundle-fixtures'
import { openProject, startCore } from './support/core'
import { makeLongDocx } from './support/office-fixtures'
import { fakePack, integrityOf, packEntries } from './support/pack-fixtures'
import { tempDir } from './support/temp'

const PACK_NAME = '@matbee/libreoffice-converter'
const servers: BundleServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

interface SetupOptions {
  readonly pack?: { maxRssBytes?: number; idleMs?: number; startTimeoutMs?: number }
  readonly conversionTimeoutMs?: number
  /** The machine's own LibreOffice detection instead of "none". */
  readonly realDetect?: boolean
  readonly files?: Record<string, string | Uint8Array>
  /** The engine's own extraction limits (the real pack is 250 MB unpacked) instead of tight test ones. */
  readonly defaultLimits?: boolean
}

async function setup(options: SetupOptions = {}) {
  const server = await startBundleServer()
  servers.push(server)
  const pinFile = join(tempDir('retrace-pack-pin-'), 'office-pack.json')
  const dataDir = tempDir('retrace-data-')
  const pinAs = (body: Buffer, pinJson: string) => {
    server.serve('pack.tgz', body)
    writeFileSync(pinFile, pinJson)
  }
  const pin = (body: Buffer, overrides: Record<string, unknown> = {}) => {
    server.serve('pack.tgz', body)
    writeFileSync(
      pinFile,
      JSON.stringify({
        name: PACK_NAME,
        version: '2.7.2',
        // The pinned address is never reached: the mirror variable points at the loopback server.
        url: 'https://registry.invalid/pack.tgz',
        size: body.length,
        unpacked_size: 4096,
        integrity: integrityOf(body),
        licence: 'MPL-2.0',
        source: 'https://example.invalid/source',
        ...overrides,
      }),
    )
  }
  const root = tempDir('retrace-office-project-')
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(root, name), content)
  const core = startCore({
    dataDir,
    office: {
      env: { RETRACE_OFFICE_BUNDLE: '', RETRACE_OFFICE_PACK: pinFile, RETRACE_OFFICE_PACK_URL: server.url('pack.tgz') },
      ...(options.realDetect
        ? {}
        : { detect: async () => ({ kind: 'missing' as const, reason: 'not on this test machine' }) }),
      ...(options.defaultLimits
        ? {}
        : { extractLimits: { maxBytes: 10 * 1024 * 1024, maxEntries: 100, maxRatio: 1000 } }),
      ...(options.pack ? { pack: options.pack } : {}),
      ...(options.conversionTimeoutMs ? { conversionTimeoutMs: options.conversionTimeoutMs } : {}),
    },
  })
  const events: EventFrame[] = []
  core.onEvent((frame) => events.push(frame))
  const { projectId, call } = await openProject(core, root)
  const install = (key = randomUUID()) =>
    core.handle({
      request_id: randomUUID(),
      action: 'office.pack_install',
      owner: { project_id: projectId },
      idempotency_key: key,
      payload: {},
    })
  const finished = (installId: string) =>
    new Promise<EventFrame>((resolve) => {
      const done = () =>
        events.find(
          (e) =>
            e.event === 'office.pack.progress' &&
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
    if (result.state === 'installed') return { phase: 'done', error: undefined }
    const frame = await finished(result.install_id)
    return { phase: String(frame.data.phase), error: frame.data.error as { code: string; message: string } | undefined }
  }
  const preview = async (path: string) => {
    const response = await call('office.preview', { path })
    if (response.status !== 'ok') throw new Error(JSON.stringify(response.error))
    return response.result as {
      kind: string
      engine?: string
      pdf?: { url: string }
      reason?: string
      message?: string
    }
  }
  const pdfOf = async (url: string) => {
    const answer = await core.serveBytes(url.slice('/api/bytes/'.length), {})
    if (answer.status !== 200 || !answer.body) throw new Error(`byte transfer answered ${answer.status}`)
    const chunks: Uint8Array[] = []
    for await (const chunk of answer.body) chunks.push(chunk)
    return Buffer.concat(chunks)
  }
  return { server, core, dataDir, pin, pinAs, install, installAndWait, events, preview, pdfOf, call, root, projectId }
}

async function status(core: Core) {
  const response = await core.handle({ request_id: randomUUID(), action: 'office.status', owner: {}, payload: {} })
  return (
    response as {
      result: { engines: Array<Record<string, unknown>>; pack: Record<string, unknown> }
    }
  ).result
}

/** What the pack folder holds: published versions and leftovers of the download/staging area. */
function packFiles(dataDir: string) {
  const dir = join(dataDir, 'office', 'pack')
  const versions = existsSync(dir) ? readdirSync(dir).filter((name) => name !== '.tmp') : []
  const tmp = existsSync(join(dir, '.tmp')) ? readdirSync(join(dir, '.tmp')) : []
  return { versions, tmp }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`never happened: ${what}`)
}

describe('LibreOffice WebAssembly pack: install', () => {
  test('offered without LibreOffice; installs from the mirror with real byte progress; pages then come from a worker process', async () => {
    const { core, pin, installAndWait, events, dataDir, preview, pdfOf } = await setup({
      files: { 'table.csv': 'name,amount\nA,1\n' },
    })
    const archive = fakePack(PACK_NAME, '2.7.2')
    pin(archive)
    const before = await status(core)
    expect(before.pack).toMatchObject({
      pinned: true,
      offered: true,
      installed: false,
      size: archive.length,
      licence: 'MPL-2.0',
    })
    expect(before.engines.find((e) => e.id === 'libreoffice-wasm')).toMatchObject({
      available: false,
      reason: 'not-installed',
    })
    expect(await preview('table.csv')).toMatchObject({ kind: 'unavailable', reason: 'no-engine' })

    expect(await installAndWait()).toMatchObject({ phase: 'done' })
    const progress = events.filter((e) => e.event === 'office.pack.progress').map((e) => e.data)
    expect(progress.map((p) => p.phase)).toEqual(['download', 'download', 'extract', 'verify', 'publish', 'done'])
    expect(progress[1]).toMatchObject({ received_bytes: archive.length, total_bytes: archive.length })
    expect(packFiles(dataDir)).toEqual({ versions: ['2.7.2'], tmp: [] })

    const after = await status(core)
    expect(after.pack).toMatchObject({ offered: false, installed: true })
    expect(after.engines.find((e) => e.id === 'libreoffice-wasm')).toMatchObject({ available: true, version: '2.7.2' })

    const shown = await preview('table.csv')
    expect(shown).toMatchObject({ kind: 'pdf', engine: 'libreoffice-wasm' })
    const pdf = (await pdfOf(shown.pdf?.url ?? '')).toString('latin1')
    expect(pdf).toMatch(/^%PDF-1\.4 fake pdf from csv pid \d+$/)
    // Converted in a separate process, not in the engine.
    const pid = Number(/pid (\d+)/.exec(pdf)?.[1])
    expect(pid).not.toBe(process.pid)
    expect((await core.office.converter())?.residentPid()).toBe(pid)
  })

  test('two requests share one install and one download', async () => {
    const { server, pin, install, dataDir } = await setup()
    pin(fakePack(PACK_NAME, '2.7.2'))
    const [first, second] = await Promise.all([install(), install()])
    const a = (first as { result: { install_id: string } }).result
    const b = (second as { result: { install_id: string } }).result
    expect(a.install_id).toBe(b.install_id)
    await until(() => packFiles(dataDir).versions.length === 1 && packFiles(dataDir).tmp.length === 0, 'published')
    expect(server.hits.get('pack.tgz')).toBe(1)
  })

  const refusals: Array<
    [
      string,
      (body: Buffer) => {
        body: Buffer
        serve?: { truncateAt?: number; extraBytes?: number }
        pin?: Record<string, unknown>
      },
      string,
    ]
  > = [
    [
      'a wrong SHA-512',
      (body) => ({ body, pin: { integrity: integrityOf(Buffer.from('other bytes')) } }),
      'digest-mismatch',
    ],
    ['a download over the pinned size', (body) => ({ body, serve: { extraBytes: 4096 } }), 'too-large'],
    ['an interrupted download', (body) => ({ body, serve: { truncateAt: Math.floor(body.length / 2) } }), 'truncated'],
    [
      'a ".." entry',
      () => ({
        body: tarGz([
          ...packEntries(PACK_NAME, '2.7.2'),
          { type: 'file', path: 'package/../../escape.txt', content: 'x' },
        ]),
      }),
      'unsafe-entry',
    ],
    [
      'a symbolic link',
      () => ({
        body: tarGz([
          ...packEntries(PACK_NAME, '2.7.2'),
          { type: 'symlink', path: 'package/wasm/link', target: '/etc/passwd' },
        ]),
      }),
      'unsafe-entry',
    ],
    [
      'a hard link',
      () => ({
        body: tarGz([
          ...packEntries(PACK_NAME, '2.7.2'),
          { type: 'link', path: 'package/wasm/hard', target: 'package/wasm/soffice.data' },
        ]),
      }),
      'unsafe-entry',
    ],
    ['another package under the pinned name', () => ({ body: fakePack('left-pad', '2.7.2') }), 'manifest-mismatch'],
    [
      'a tarball without the WASM',
      () => ({ body: tarGz(packEntries(PACK_NAME, '2.7.2', { 'package/wasm/soffice.wasm': undefined })) }),
      'manifest-invalid',
    ],
  ]
  test.each(refusals)('%s installs nothing and leaves nothing behind', async (_name, make, code) => {
    const { server, pin, installAndWait, dataDir, core } = await setup()
    const made = make(fakePack(PACK_NAME, '2.7.2'))
    pin(made.body, made.pin ?? {})
    if (made.serve) server.serve('pack.tgz', made.body, made.serve)
    const outcome = await installAndWait()
    expect(outcome).toMatchObject({ phase: 'failed', error: { code } })
    expect(outcome.error?.message).not.toMatch(/bundle/)
    expect(packFiles(dataDir)).toEqual({ versions: [], tmp: [] })
    expect(existsSync(join(dataDir, 'escape.txt'))).toBe(false)
    expect((await status(core)).pack).toMatchObject({ installed: false, offered: true })
  })

  test('with a native LibreOffice found, the pack is not offered', async (context) => {
    const native = await detectLibreOffice()
    if (native.kind !== 'found') {
      console.log(`skipped: no native LibreOffice here (${native.reason})`)
      context.skip()
    }
    const { core, pin } = await setup({ realDetect: true })
    pin(fakePack(PACK_NAME, '2.7.2'))
    expect((await status(core)).pack).toMatchObject({ pinned: true, offered: false, installed: false })
  })
})

describe('LibreOffice WebAssembly pack: the worker process', () => {
  async function installed(options: SetupOptions) {
    const context = await setup(options)
    context.pin(fakePack(PACK_NAME, '2.7.2'))
    expect(await context.installAndWait()).toMatchObject({ phase: 'done' })
    return context
  }

  test('a worker that dies on a document is replaced and the document tried once more', async () => {
    const { preview, core } = await installed({ files: { 'once.csv': 'CRASH_ONCE\n' } })
    expect(await preview('once.csv')).toMatchObject({ kind: 'pdf', engine: 'libreoffice-wasm' })
    expect((await core.office.converter())?.stats).toMatchObject({ restarts: 1 })
  })

  test('a worker that dies twice on a document ends in a precise failure, and the next document still converts', async () => {
    const { preview } = await installed({ files: { 'crash.csv': 'CRASH\n', 'fine.csv': 'a,b\n' } })
    const failed = await preview('crash.csv')
    expect(failed).toMatchObject({ kind: 'unavailable', reason: 'conversion-failed' })
    expect(failed.message).toMatch(/failed twice on this document: the pack worker exited \(code 7\)/)
    expect(await preview('fine.csv')).toMatchObject({ kind: 'pdf' })
  })

  test('a document past the time budget ends the worker and says so', async () => {
    const { preview, core } = await installed({ files: { 'hang.csv': 'HANG\n' }, conversionTimeoutMs: 1500 })
    const answer = await preview('hang.csv')
    expect(answer).toMatchObject({ kind: 'unavailable', reason: 'conversion-failed' })
    expect(answer.message).toMatch(/did not finish within 2 s/)
    expect((await core.office.converter())?.residentPid()).toBeUndefined()
  })

  test('a worker over the memory cap is ended (RSS, not only the JS heap)', async () => {
    const { preview } = await installed({ files: { 'hog.csv': 'HOG\n' }, pack: { maxRssBytes: 400 * 1024 * 1024 } })
    const answer = await preview('hog.csv')
    expect(answer).toMatchObject({ kind: 'unavailable', reason: 'conversion-failed' })
    expect(answer.message).toMatch(/over the 400 MB cap/)
  })

  test('a conversion through the pack writes a new file next to the original, through the journal', async () => {
    const { core, root, projectId } = await installed({ files: { 'table.csv': 'name,amount\nA,1\n' } })
    const owner = { project_id: projectId }
    const response = await core.handle({
      request_id: randomUUID(),
      action: 'office.convert',
      owner,
      idempotency_key: randomUUID(),
      payload: { path: 'table.csv', to: 'ods' },
    })
    expect(response).toMatchObject({ status: 'ok', result: { path: 'table.ods' } })
    expect(readFileSync(join(root, 'table.ods'), 'latin1')).toMatch(/^%PDF-1\.4 fake ods from csv pid \d+$/)
    expect(readFileSync(join(root, 'table.csv'), 'utf8')).toBe('name,amount\nA,1\n')
  })

  test('the worker gets no secrets of the engine environment (API keys, tokens)', async () => {
    process.env.RETRACE_TEST_SECRET_KEY = 'sk-test'
    try {
      const { preview, pdfOf } = await installed({ files: { 'env.csv': 'ENV\n' } })
      const shown = await preview('env.csv')
      const names = JSON.parse((await pdfOf(shown.pdf?.url ?? '')).toString('utf8')) as string[]
      expect(names).not.toContain('RETRACE_TEST_SECRET_KEY')
      expect(names).toContain('RETRACE_OFFICE_PACK_DIR')
    } finally {
      delete process.env.RETRACE_TEST_SECRET_KEY
    }
  })

  test('a password-protected document is reported as such', async () => {
    const { preview } = await installed({ files: { 'locked.csv': 'LOCKED\n' } })
    expect(await preview('locked.csv')).toMatchObject({ kind: 'unavailable', reason: 'password-protected' })
  })

  test('an idle worker is shut down and started again for the next document', async () => {
    const { preview, core } = await installed({ files: { 'a.csv': 'a\n', 'b.csv': 'b\n' }, pack: { idleMs: 300 } })
    expect(await preview('a.csv')).toMatchObject({ kind: 'pdf' })
    const pid = (await core.office.converter())?.residentPid()
    expect(pid).toBeGreaterThan(0)
    await until(() => !alive(pid ?? 0), 'the idle worker exited')
    expect(await preview('b.csv')).toMatchObject({ kind: 'pdf' })
    expect((await core.office.converter())?.stats.starts).toBe(2)
  })
})

/**
 * The real pack (79 MB from the registry, cached under node_modules/.cache): it installs through
 * the same loopback mirror and converts a generated DOCX with the page count native LibreOffice
 * gives. Downloaded only when RETRACE_TEST_OFFICE_PACK=1; otherwise it runs when the tarball is
 * already cached, and is skipped with the reason.
 */
describe('LibreOffice WebAssembly pack: the real pack', () => {
  const pinned = JSON.parse(readFileSync(join(__dirname, '..', 'build', 'office-pack.json'), 'utf8')) as {
    name: string
    version: string
    integrity: string
    size: number
  }
  const cacheDir = join(__dirname, '..', 'node_modules', '.cache', 'retrace-office-pack')
  const cached = join(cacheDir, `pack-${pinned.version}.tgz`)

  function realTarball(): { file: string } | { skip: string } {
    if (!existsSync(cached)) {
      if (process.env.RETRACE_TEST_OFFICE_PACK !== '1') {
        return { skip: `the real pack is not cached at ${cached} (RETRACE_TEST_OFFICE_PACK=1 downloads it)` }
      }
      mkdirSync(cacheDir, { recursive: true })
      try {
        const out = execFileSync(
          'npm',
          ['pack', `${pinned.name}@${pinned.version}`, '--json', '--pack-destination', cacheDir],
          {
            timeout: 180_000,
            encoding: 'utf8',
          },
        )
        const [info] = JSON.parse(out) as Array<{ filename: string }>
        copyFileSync(join(cacheDir, info?.filename ?? ''), cached)
      } catch (error) {
        return { skip: `npm pack could not fetch the pack (${(error as Error).message.split('\n')[0]})` }
      }
    }
    const digest = `sha512-${createHash('sha512').update(readFileSync(cached)).digest('base64')}`
    if (digest !== pinned.integrity) return { skip: `the cached pack ${cached} is not the pinned bytes` }
    return { file: cached }
  }

  test(
    'DOCX → PDF through the installed pack has the page count of native LibreOffice',
    { timeout: 420_000 },
    async (context) => {
      const tarball = realTarball()
      if ('skip' in tarball) {
        console.log(`skipped: ${tarball.skip}`)
        return context.skip()
      }
      const docx = await makeLongDocx(5, 'pack')
      const { installAndWait, preview, pdfOf, pinAs } = await setup({
        files: { 'report.docx': docx },
        defaultLimits: true,
        conversionTimeoutMs: 240_000,
        pack: { startTimeoutMs: 240_000 },
      })
      // The pin exactly as the build ships it; only its address is the loopback mirror.
      pinAs(readFileSync(tarball.file), readFileSync(join(__dirname, '..', 'build', 'office-pack.json'), 'utf8'))
      expect(await installAndWait()).toMatchObject({ phase: 'done' })
      const shown = await preview('report.docx')
      expect(shown).toMatchObject({ kind: 'pdf', engine: 'libreoffice-wasm' })
      const pages = pageCount(await pdfOf(shown.pdf?.url ?? ''))

      const native = await detectLibreOffice()
      if (native.kind !== 'found') {
        console.log(`no native LibreOffice to compare with (${native.reason}); expecting the 5 generated pages`)
        expect(pages).toBe(5)
        return
      }
      // The same document through the machine's LibreOffice (found, so it is preferred over the pack).
      const reference = await setup({ files: { 'report.docx': docx }, realDetect: true, conversionTimeoutMs: 120_000 })
      const nativeShown = await reference.preview('report.docx')
      expect(nativeShown).toMatchObject({ kind: 'pdf', engine: 'libreoffice' })
      expect(pages).toBe(pageCount(await reference.pdfOf(nativeShown.pdf?.url ?? '')))
    },
  )
})

function pageCount(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)?.length ?? 0
}
