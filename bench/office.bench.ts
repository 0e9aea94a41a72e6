import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createCore } from '../src/main/core'
import { detectLibreOffice } from '../src/main/core/office/libreoffice/detect'
import { makeLongDocx } from '../test/support/office-fixtures'
import { medianPairMs, report } from './measure'

/**
 * A warm LibreOffice preview (the resident listener, a new revision each time so the cache never
 * answers) of a 10-page DOCX against a bare one-shot `soffice --convert-to pdf` of the same file
 * (its profile kept between calls, which only helps the baseline). Issue 17 wants ≥ 5× faster.
 */
export async function benchOffice(): Promise<void> {
  const found = await detectLibreOffice()
  if (found.kind === 'missing') {
    process.stdout.write(`office: skipped — ${found.reason}\n`)
    return
  }
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-office-'))
  const core = createCore({
    dataDir: join(work, 'data'),
    host: { shell: 'browser', appVersion: 'bench', log: () => {} },
  })
  try {
    const project = join(work, 'project')
    mkdirSync(project)
    const opened = await core.handle({
      request_id: randomUUID(),
      action: 'project.open',
      owner: {},
      payload: { path: project },
    })
    if (opened.status !== 'ok') throw new Error('cannot open bench project')
    const owner = { project_id: (opened.result as { project_id: string }).project_id }
    let run = 0
    const preview = async () => {
      // A new revision each time: the conversion, not the cache, is measured.
      writeFileSync(join(project, 'ten-pages.docx'), await makeLongDocx(10, `run ${++run}`))
      const response = await core.handle({
        request_id: randomUUID(),
        action: 'office.preview',
        owner,
        payload: { path: 'ten-pages.docx' },
      })
      if (response.status !== 'ok' || (response.result as { kind: string }).kind !== 'pdf') {
        throw new Error(`office.preview failed: ${JSON.stringify(response)}`)
      }
    }
    const baselineFile = join(work, 'baseline', 'ten-pages.docx')
    mkdirSync(join(work, 'baseline'))
    writeFileSync(baselineFile, await makeLongDocx(10, 'baseline'))
    const profile = pathToFileURL(join(work, 'baseline-profile')).href
    const oneShot = () =>
      new Promise<void>((resolve, reject) =>
        execFile(
          found.install.soffice,
          [
            `-env:UserInstallation=${profile}`,
            '--headless',
            '--convert-to',
            'pdf',
            '--outdir',
            join(work, 'baseline'),
            baselineFile,
          ],
          { timeout: 120_000 },
          (error) => (error ? reject(error) : resolve()),
        ),
      )
    const [subject, baseline] = await medianPairMs(preview, oneShot, 7, 1)
    report('office.preview of a 10-page DOCX (warm) vs soffice --convert-to pdf', subject, baseline)
    process.stdout.write(`  → the resident path is ${(baseline / subject).toFixed(1)}× faster (issue 17: ≥ 5×)\n`)
  } finally {
    core.dispose()
    await new Promise((resolve) => setTimeout(resolve, 500))
    rmSync(work, { recursive: true, force: true })
  }
}
