import { randomUUID } from 'node:crypto'
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore, type Core } from '../src/main/core'
import { detectLibreOffice } from '../src/main/core/office/libreoffice/detect'
import { makeLongDocx } from '../test/support/office-fixtures'
import { medianPairMs, report } from './measure'

/** Where `test/office-pack.test.ts` caches the registry tarball (RETRACE_TEST_OFFICE_PACK=1 fetches it). */
const CACHED_PACK = join(__dirname, '..', 'node_modules', '.cache', 'retrace-office-pack', 'pack-2.7.2.tgz')

/**
 * A warm `office.preview` of a 10-page DOCX through the LibreOffice WebAssembly pack (its worker
 * process already loaded; a new revision each time so the cache never answers) against the same
 * preview through the native resident listener. The pack installs from the cached registry
 * tarball over a loopback mirror, as the tests do; without it or without LibreOffice, skipped.
 */
export async function benchOfficePack(): Promise<void> {
  const found = await detectLibreOffice()
  if (found.kind === 'missing') {
    process.stdout.write(`office pack: skipped — no native LibreOffice to compare with (${found.reason})\n`)
    return
  }
  if (!existsSync(CACHED_PACK)) {
    process.stdout.write(`office pack: skipped — the pack is not cached at ${CACHED_PACK}\n`)
    return
  }
  const mirror = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Length': String(statSync(CACHED_PACK).size) })
    createReadStream(CACHED_PACK).pipe(response)
  })
  await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/pack.tgz`
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-office-pack-'))
  const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }
  const withPack = createCore({
    dataDir: join(work, 'pack-data'),
    host,
    office: {
      env: { RETRACE_OFFICE_PACK_URL: url },
      detect: async () => ({ kind: 'missing', reason: 'the pack side of the benchmark' }),
    },
  })
  const native = createCore({ dataDir: join(work, 'native-data'), host })
  try {
    const project = join(work, 'project')
    mkdirSync(project)
    const ownerOf = async (core: Core) => {
      const opened = await core.handle({
        request_id: randomUUID(),
        action: 'project.open',
        owner: {},
        payload: { path: project },
      })
      if (opened.status !== 'ok') throw new Error('cannot open bench project')
      return { project_id: (opened.result as { project_id: string }).project_id }
    }
    const packOwner = await ownerOf(withPack)
    const nativeOwner = await ownerOf(native)
    const installed = await installPack(withPack, packOwner)
    if (!installed) {
      process.stdout.write('office pack: skipped — the pack did not install\n')
      return
    }
    let run = 0
    const previewWith = (core: Core, owner: { project_id: string }, engine: string) => async () => {
      const name = `ten-pages-${++run}.docx`
      writeFileSync(join(project, name), await makeLongDocx(10, `run ${run}`))
      const response = await core.handle({
        request_id: randomUUID(),
        action: 'office.preview',
        owner,
        payload: { path: name },
      })
      const result = response.status === 'ok' ? (response.result as { kind: string; engine?: string }) : undefined
      // Each side must be served by the engine it measures (a fallback would measure the wrong one).
      if (result?.kind !== 'pdf' || result.engine !== engine) {
        throw new Error(`office.preview failed: ${JSON.stringify(response)}`)
      }
    }
    const [subject, baseline] = await medianPairMs(
      previewWith(withPack, packOwner, 'libreoffice-wasm'),
      previewWith(native, nativeOwner, 'libreoffice'),
      3,
      1,
    )
    report('office.preview 10-page DOCX: WebAssembly pack vs native listener', subject, baseline)
  } finally {
    withPack.dispose()
    native.dispose()
    mirror.close()
    await new Promise((resolve) => setTimeout(resolve, 500))
    rmSync(work, { recursive: true, force: true })
  }
}

async function installPack(core: Core, owner: { project_id: string }): Promise<boolean> {
  const done = new Promise<boolean>((resolve) => {
    core.onEvent((frame) => {
      if (frame.event !== 'office.pack.progress') return
      if (frame.data.phase === 'done') resolve(true)
      if (frame.data.phase === 'failed') resolve(false)
    })
  })
  const response = await core.handle({
    request_id: randomUUID(),
    action: 'office.pack_install',
    owner,
    idempotency_key: randomUUID(),
    payload: {},
  })
  if (response.status !== 'ok') return false
  if ((response.result as { state: string }).state === 'installed') return true
  return done
}
