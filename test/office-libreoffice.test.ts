import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import CFB from 'cfb'
import { describe, expect, onTestFinished, test } from 'vitest'
import type { EventFrame } from '../src/shared/protocol'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { openProject, startCore } from './support/core'
import { corpusFile, makeDocx, makePptx, makeXlsx, unzipParts } from './support/office-fixtures'
import { editCell, editSlideText, LINE_BREAK } from '../src/shared/office'
import { tempDir } from './support/temp'

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: the LibreOffice tier — ${detection.reason}`)
const withLibreOffice = () => detection.kind === 'found'

function pageCount(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)?.length ?? 0
}

/** The reference: a bare one-shot `soffice --convert-to pdf` in its own fresh profile. */
function bareConvert(file: string): Buffer {
  const out = tempDir('retrace-lo-ref-')
  const soffice = detection.kind === 'found' ? detection.install.soffice : 'soffice'
  execFileSync(
    soffice,
    [
      `-env:UserInstallation=file://${join(out, 'profile')}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      out,
      file,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  )
  const pdf = readdirSync(out).find((name) => name.endsWith('.pdf'))
  if (!pdf) throw new Error(`soffice produced no PDF for ${file}`)
  return readFileSync(join(out, pdf))
}

async function project(files: Record<string, Buffer | Uint8Array>) {
  const root = tempDir('retrace-office-project-')
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true })
    writeFileSync(join(root, name), bytes)
  }
  const core = startCore({ office: { env: { ...process.env, RETRACE_OFFICE_BUNDLE: '' } } })
  const opened = await openProject(core, root)
  const events: EventFrame[] = []
  core.onEvent((frame) => events.push(frame))
  const mutate = (action: string, payload: unknown, key = randomUUID()) =>
    core.handle({
      request_id: randomUUID(),
      action,
      owner: { project_id: opened.projectId },
      idempotency_key: key,
      payload,
    })
  // The PDF comes back through the engine's byte transfer, as the renderer would fetch it.
  const pdfOf = async (result: { pdf: { url: string } }) => {
    const answer = await core.serveBytes(result.pdf.url.slice('/api/bytes/'.length), {})
    if (answer.status !== 200 || !answer.body) throw new Error(`byte transfer answered ${answer.status}`)
    const chunks: Uint8Array[] = []
    for await (const chunk of answer.body) chunks.push(chunk)
    expect(answer.headers['Content-Type']).toBe('application/pdf')
    return Buffer.concat(chunks)
  }
  return { core, events, mutate, pdfOf, ...opened }
}

/** Has LibreOffice itself save a document with a password, as ODT and as Word 97. */
async function saveWithPassword(soffice: string, python: string, dir: string): Promise<void> {
  const pipe = `retrace-test-${randomUUID().slice(0, 8)}`
  const office = spawn(
    soffice,
    [
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--headless',
      '--invisible',
      '--norestore',
      `--accept=pipe,name=${pipe};urp;`,
    ],
    { stdio: 'ignore', detached: true },
  )
  const script = `
import uno, time
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
def prop(n, v):
    p = PropertyValue(); p.Name = n; p.Value = v; return p
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
for i in range(600):
    try:
        context = resolver.resolve('uno:pipe,name=${pipe};urp;StarOffice.ComponentContext'); break
    except NoConnectException:
        time.sleep(0.1)
# The pipe can answer before the office is ready to load a document (seen once in a loaded CI run),
# so the first load is retried for a bounded 10 s instead of failing the fixture.
doc = None
for i in range(50):
    try:
        desktop = context.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', context)
        doc = desktop.loadComponentFromURL('private:factory/swriter', '_blank', 0, (prop('Hidden', True),))
    except Exception:
        doc = None
    if doc is not None:
        break
    time.sleep(0.2)
doc.getText().setString('secret')
doc.storeToURL(uno.systemPathToFileUrl('${join(dir, 'locked.odt')}'), (prop('FilterName', 'writer8'), prop('Password', 'pw')))
doc.storeToURL(uno.systemPathToFileUrl('${join(dir, 'locked.doc')}'), (prop('FilterName', 'MS Word 97'), prop('Password', 'pw')))
doc.close(True)
desktop.terminate()
`
  const exited = new Promise((resolve) => office.once('exit', resolve))
  try {
    execFileSync(python, ['-c', script], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 90_000 })
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
  } finally {
    if (office.exitCode === null && office.signalCode === null && office.pid !== undefined) {
      process.kill(-office.pid, 'SIGKILL')
    }
  }
}

/** A killed LibreOffice leaves its single-instance pipe in /tmp: remove the dead ones this test made. */
async function removeDeadPipes(before: Set<string>): Promise<void> {
  for (const name of readdirSync('/tmp')) {
    if (before.has(name) || !name.startsWith('OSL_PIPE_')) continue
    const path = join('/tmp', name)
    const alive = await new Promise<boolean>((resolve) => {
      const socket = connect(path)
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (!alive) rmSync(path, { force: true })
  }
}

/** An OOXML file as Office encrypts it: a compound file with EncryptionInfo and EncryptedPackage. */
function encryptedOoxml(): Buffer {
  const container = CFB.utils.cfb_new()
  CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]))
  CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(4096, 7))
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array)
}

describe('office.status', () => {
  test('lists the built-in engine always, LibreOffice as found on this machine, ONLYOFFICE as not installed', async () => {
    const { call } = await project({})
    const response = await call('office.status', {})
    expect(response.status).toBe('ok')
    const result = (
      response as { result: { engines: Array<Record<string, unknown>>; bundle: Record<string, unknown> } }
    ).result
    expect(result.engines.map((e) => e.id)).toEqual(['builtin', 'libreoffice', 'onlyoffice'])
    expect(result.engines[0]).toMatchObject({ available: true, edit: ['docx', 'pptx', 'xlsx'] })
    expect(result.engines[1]).toMatchObject(
      withLibreOffice()
        ? { available: true, version: expect.stringMatching(/^\d+\.\d+/) }
        : { available: false, reason: 'not-found' },
    )
    expect(result.engines[2]).toMatchObject({ available: false, reason: 'not-installed' })
    // The committed pin: no release yet, so no Install offer.
    expect(result.bundle).toMatchObject({ pinned: false, licence: 'AGPL-3.0-only' })
  })

  test('without LibreOffice, previews and conversions say so instead of failing', async () => {
    const root = tempDir('retrace-office-project-')
    writeFileSync(join(root, 'a.docx'), await makeDocx('<w:p><w:r><w:t>Hi</w:t></w:r></w:p>'))
    const core = startCore({ office: { detect: async () => ({ kind: 'missing', reason: 'test' }) } })
    const { call, projectId } = await openProject(core, root)
    const status = (await call('office.status', {})) as {
      result: { engines: Array<{ id: string; available: boolean }> }
    }
    expect(status.result.engines.find((e) => e.id === 'libreoffice')).toMatchObject({
      available: false,
      reason: 'not-found',
    })
    expect(await call('office.preview', { path: 'a.docx' })).toMatchObject({
      status: 'ok',
      result: { kind: 'unavailable', reason: 'no-engine' },
    })
    const converted = await core.handle({
      request_id: randomUUID(),
      action: 'office.convert',
      owner: { project_id: projectId },
      idempotency_key: randomUUID(),
      payload: { path: 'a.docx', to: 'odt' },
    })
    expect(converted).toMatchObject({
      status: 'error',
      error: { code: 'UNAVAILABLE', details: { reason: 'no-engine' } },
    })
  })
})

describe('office.open_external', () => {
  test('hands the project file to LibreOffice as an external editor, inside the project only', async () => {
    const root = tempDir('retrace-office-project-')
    writeFileSync(join(root, 'a.docx'), await makeDocx('<w:p/>'))
    const record = join(tempDir('retrace-fake-lo-'), 'args.txt')
    const fake = join(tempDir('retrace-fake-lo-'), 'soffice')
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(record)}\n`, { mode: 0o755 })
    const core = startCore({
      office: { detect: async () => ({ kind: 'found', install: { soffice: fake, version: '7.4', python: null } }) },
    })
    const { call } = await openProject(core, root)
    expect(await call('office.open_external', { path: 'a.docx' })).toMatchObject({
      status: 'ok',
      result: { opened: true },
    })
    for (let i = 0; i < 50 && !existsSync(record); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(readFileSync(record, 'utf8').trim().split('\n')).toEqual([
      '--nologo',
      '--norestore',
      join(realpathSync(root), 'a.docx'),
    ])
    expect(await call('office.open_external', { path: '../outside.docx' })).toMatchObject({
      status: 'error',
      error: { code: 'PERMISSION_DENIED' },
    })
  })
})

describe('office.inspect', () => {
  test('names the format by content, and marks password-protected and damaged files', async () => {
    const truncated = corpusFile('poi-truncated62886.docx') ?? Buffer.from('PK\u0003\u0004broken')
    const legacy = corpusFile('poi-travel-form.doc')
    const { call } = await project({
      'plain.docx': await makeDocx('<w:p><w:r><w:t>Hi</w:t></w:r></w:p>'),
      'boxed.docx': await makeDocx('<w:sdt><w:sdtContent><w:p/></w:sdtContent></w:sdt>'),
      'secret.docx': encryptedOoxml(),
      'broken.docx': truncated,
      'notes.txt': Buffer.from('hello'),
      ...(legacy ? { 'form.doc': legacy } : {}),
    })
    expect(await call('office.inspect', { path: 'plain.docx' })).toMatchObject({
      result: { format: 'docx', state: 'ok', docx_losses: [] },
    })
    expect(await call('office.inspect', { path: 'boxed.docx' })).toMatchObject({
      result: { state: 'ok', docx_losses: [{ feature: 'content-control', count: 1 }] },
    })
    expect(await call('office.inspect', { path: 'secret.docx' })).toMatchObject({
      result: { format: 'docx', state: 'password-protected' },
    })
    expect(await call('office.inspect', { path: 'broken.docx' })).toMatchObject({ result: { state: 'corrupt' } })
    expect(await call('office.inspect', { path: 'notes.txt' })).toMatchObject({ result: { state: 'unsupported' } })
    if (legacy)
      expect(await call('office.inspect', { path: 'form.doc' })).toMatchObject({
        result: { format: 'doc', state: 'ok' },
      })
  })
})

describe.skipIf(detection.kind === 'missing')('LibreOffice tier', () => {
  test('preview page count equals a bare soffice --convert-to pdf, and the second open is served from the cache', async () => {
    const names = [
      'poi-60329-tables-hdrftr.docx',
      'poi-aptia-slides-images.pptx',
      'poi-54288-merged-styles.xlsx',
      'poi-travel-form.doc',
      'odfdo-example.odp',
    ]
    // Generated documents always (a three-page DOCX, a deck, a workbook), the real corpus files
    // where the corpus is present: the tier never depends on files outside the repository.
    const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'
    const files: Record<string, Uint8Array> = {
      'generated.docx': await makeDocx(
        ['One', 'Two', 'Three'].map((word) => `<w:p><w:r><w:t>Page ${word}</w:t></w:r></w:p>`).join(pageBreak),
      ),
      'generated.pptx': await makePptx(),
      'generated.xlsx': await makeXlsx(),
      ...Object.fromEntries(names.flatMap((name) => (corpusFile(name) ? [[name, corpusFile(name) as Buffer]] : []))),
    }
    const { call, root, pdfOf, core } = await project(files)
    for (const name of Object.keys(files)) {
      const response = await call('office.preview', { path: name })
      expect(response, name).toMatchObject({
        status: 'ok',
        result: { kind: 'pdf', engine: 'libreoffice', cached: false },
      })
      const result = (response as { result: { pdf: { url: string; mime: string } } }).result
      expect(result.pdf.url).toMatch(/^\/api\/bytes\/[\w-]{20,}$/)
      expect(result.pdf.mime).toBe('application/pdf')
      expect(pageCount(await pdfOf(result)), name).toBe(pageCount(bareConvert(join(root, name))))
    }
    const converter = await core.office.converter()
    const served = { ...converter?.stats }
    const again = await call('office.preview', { path: Object.keys(files)[0] ?? '' })
    expect(again).toMatchObject({ result: { kind: 'pdf', cached: true } })
    expect(converter?.stats).toEqual(served)
    expect(served.resident).toBeGreaterThan(0)
  }, 120_000)

  test('password-protected and truncated files get explicit states, not a crash', async () => {
    const truncated = corpusFile('poi-truncated62886.docx')
    const { call } = await project({
      'secret.xlsx': encryptedOoxml(),
      ...(truncated ? { 'broken.docx': truncated } : {}),
    })
    expect(await call('office.preview', { path: 'secret.xlsx' })).toMatchObject({
      result: { kind: 'unavailable', reason: 'password-protected' },
    })
    if (truncated) {
      expect(await call('office.preview', { path: 'broken.docx' })).toMatchObject({
        result: { kind: 'unavailable', reason: 'corrupt' },
      })
    }
  })

  test('real password-protected ODT and DOC files (saved by LibreOffice) are recognised before any engine opens them', async () => {
    if (detection.kind !== 'found' || detection.install.python === null) return
    const dir = tempDir('retrace-encrypted-')
    await saveWithPassword(detection.install.soffice, detection.install.python, dir)
    const { call, core } = await project({
      'locked.odt': readFileSync(join(dir, 'locked.odt')),
      'locked.doc': readFileSync(join(dir, 'locked.doc')),
    })
    for (const path of ['locked.odt', 'locked.doc']) {
      expect(await call('office.inspect', { path })).toMatchObject({ result: { state: 'password-protected' } })
      expect(await call('office.preview', { path })).toMatchObject({
        result: { kind: 'unavailable', reason: 'password-protected' },
      })
    }
    // Were inspection bypassed, LibreOffice itself refuses to load them without a password.
    const converter = await core.office.converter()
    const outcome = await converter?.convert({
      input: join(dir, 'locked.odt'),
      output: join(dir, 'out.pdf'),
      target: 'pdf',
      timeoutMs: 60_000,
    })
    expect(outcome).toMatchObject({ kind: 'failed' })
    expect(existsSync(join(dir, 'out.pdf'))).toBe(false)
  })

  test('a crashed listener is restarted, and the document it died on is converted one-shot', async () => {
    if (detection.kind !== 'found' || detection.install.python === null) {
      console.log('skipped: no Python with the uno module, so no resident listener to crash')
      return
    }
    const docs: Record<string, Uint8Array> = {}
    for (let i = 0; i < 3; i++) docs[`d${i}.docx`] = await makeDocx(`<w:p><w:r><w:t>Document ${i}</w:t></w:r></w:p>`)
    const { call, core } = await project(docs)
    const before = new Set(readdirSync('/tmp'))
    onTestFinished(() => removeDeadPipes(before))
    expect(await call('office.preview', { path: 'd0.docx' })).toMatchObject({ result: { kind: 'pdf' } })
    const converter = await core.office.converter()
    const pid = converter?.residentPid()
    expect(pid).toBeTypeOf('number')
    // Kill the listener while it converts the next document.
    const pending = call('office.preview', { path: 'd1.docx' })
    await new Promise((resolve) => setTimeout(resolve, 30))
    process.kill(-(pid ?? 0), 'SIGKILL')
    expect(await pending).toMatchObject({ result: { kind: 'pdf' } })
    expect(await call('office.preview', { path: 'd2.docx' })).toMatchObject({ result: { kind: 'pdf' } })
    expect(converter?.residentPid()).not.toBe(pid)
    expect(converter?.stats.resident).toBeGreaterThanOrEqual(2)
    expect(converter?.stats.starts).toBeGreaterThanOrEqual(2)
  })

  test('.doc → .docx creates a new journaled file next to the original and never overwrites', async () => {
    const legacy = corpusFile('poi-travel-form.doc')
    if (!legacy) return
    const { root, mutate, call, events } = await project({ 'forms/travel.doc': legacy })
    const key = randomUUID()
    const first = await mutate('office.convert', { path: 'forms/travel.doc', to: 'docx' }, key)
    expect(first).toMatchObject({ status: 'ok', result: { path: 'forms/travel.docx' } })
    expect(readFileSync(join(root, 'forms/travel.doc')).equals(legacy)).toBe(true)
    const converted = readFileSync(join(root, 'forms/travel.docx'))
    expect(converted.subarray(0, 2).toString()).toBe('PK')
    const inspected = await call('office.inspect', { path: 'forms/travel.docx' })
    expect(inspected).toMatchObject({ result: { format: 'docx', state: 'ok' } })
    // The same key replays the stored outcome and converts nothing again.
    const replay = await mutate('office.convert', { path: 'forms/travel.doc', to: 'docx' }, key)
    expect(replay.status === 'ok' && first.status === 'ok' && replay.result).toEqual(
      first.status === 'ok' && first.result,
    )
    expect(readdirSync(join(root, 'forms')).sort()).toEqual(['travel.doc', 'travel.docx'])
    // A new request never overwrites the earlier result.
    const second = await mutate('office.convert', { path: 'forms/travel.doc', to: 'docx' })
    expect(second).toMatchObject({ status: 'ok', result: { path: 'forms/travel (1).docx' } })
    expect(readFileSync(join(root, 'forms/travel.docx')).equals(converted)).toBe(true)
    // Journaled as human operations.
    const journal = (await call('journal.transactions', {})) as {
      result: { transactions: Array<{ kind: string; files: Array<{ path: string; operation: string }> }> }
    }
    expect(journal.result.transactions.map((t) => [t.kind, t.files.map((f) => `${f.operation} ${f.path}`)])).toEqual([
      ['human', ['create forms/travel.docx']],
      ['human', ['create forms/travel (1).docx']],
    ])
    // Across families is refused, and so is the document's own format.
    expect(await mutate('office.convert', { path: 'forms/travel.doc', to: 'xlsx' })).toMatchObject({
      error: { code: 'UNSUPPORTED', details: { reason: 'wrong-family', allowed: ['docx', 'odt'] } },
    })
    // Conversions past a second announce their phase and elapsed time (no percentages).
    const progress = events.filter((e) => e.event === 'office.progress')
    for (const frame of progress) expect(frame.data).toMatchObject({ operation: 'convert', path: 'forms/travel.doc' })
  })

  test('LibreOffice reopens built-in edits: recalculated totals after a cell edit, edited slide text', async () => {
    const sheet = await editCell(await makeXlsx(), {
      sheet: 'Data',
      address: 'A2',
      input: { kind: 'number', value: 25 },
    })
    const deck = await editSlideText(await makePptx(), {
      slide: 1,
      shapeId: '3',
      paragraphs: ['Revenue grew 15% this year', `Costs${LINE_BREAK}stayed flat`],
    })
    if (sheet.kind !== 'ok' || deck.kind !== 'ok') throw new Error('edit refused')
    const { mutate, root } = await project({ 'book.xlsx': sheet.bytes, 'deck.pptx': deck.bytes })
    expect(await mutate('office.convert', { path: 'book.xlsx', to: 'ods' })).toMatchObject({ status: 'ok' })
    expect(await mutate('office.convert', { path: 'deck.pptx', to: 'odp' })).toMatchObject({ status: 'ok' })
    const content = async (file: string) =>
      (await unzipParts(readFileSync(join(root, file)))).get('content.xml')?.toString() ?? ''
    const book = await content('book.ods')
    // SUM(A1:A3) with A2 = 25, and the other sheet's Data!A4*2 — both recomputed, not the stale 60/120.
    expect(book).toContain('office:value="65"')
    expect(book).toContain('office:value="130"')
    expect(book).not.toContain('office:value="120"')
    expect(await content('deck.odp')).toContain('15%')
  })

  test('a conversion longer than a second reports progress events ending in done', async () => {
    const deck = corpusFile('poi-aptia-slides-images.pptx')
    if (!deck) return
    const { mutate, events } = await project({ 'deck.pptx': deck })
    expect(await mutate('office.convert', { path: 'deck.pptx', to: 'odp' })).toMatchObject({
      status: 'ok',
      result: { path: 'deck.odp' },
    })
    const progress = events.filter((e) => e.event === 'office.progress').map((e) => e.data)
    // The first conversion also starts LibreOffice (~2 s here): over a second.
    expect(progress.length).toBeGreaterThan(0)
    expect(progress[progress.length - 1]).toMatchObject({ phase: 'done', operation: 'convert' })
    expect(progress.every((p) => typeof p.elapsed_ms === 'number' && (p.elapsed_ms as number) >= 1000)).toBe(true)
  })
})
