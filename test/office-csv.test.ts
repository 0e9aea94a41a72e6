import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { openProject, startCore } from './support/core'
import { unzipParts } from './support/office-fixtures'
import { tempDir } from './support/temp'

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: CSV through LibreOffice — ${detection.reason}`)

/** Comma-separated, UTF-8, a quoted field with a comma and a non-ASCII name: what people export. */
const PLAIN_CSV = 'name,qty,note\napple,3,"red, crisp"\nPoire,5,crème\n'

async function csvProject(engine: 'as-found' | 'one-shot-only' = 'as-found') {
  const root = tempDir('retrace-office-csv-')
  writeFileSync(join(root, 'fruit.csv'), PLAIN_CSV)
  // Without a UNO Python there is no resident listener: every conversion is a one-shot soffice.
  const oneShot =
    engine === 'one-shot-only' && detection.kind === 'found'
      ? { detect: async (): Promise<Detection> => ({ kind: 'found', install: { ...detection.install, python: null } }) }
      : {}
  const core = startCore({ office: { env: { ...process.env, RETRACE_OFFICE_BUNDLE: '' }, ...oneShot } })
  const opened = await openProject(core, root)
  const convert = (to: 'xlsx' | 'ods') =>
    core.handle({
      request_id: randomUUID(),
      action: 'office.convert',
      owner: { project_id: opened.projectId },
      idempotency_key: randomUUID(),
      payload: { path: 'fruit.csv', to },
    })
  return { core, convert, ...opened }
}

describe.skipIf(detection.kind === 'missing')('CSV through LibreOffice', () => {
  test('a plain three-line CSV previews as a one-page PDF', async () => {
    const { call, core } = await csvProject()
    const response = await call('office.preview', { path: 'fruit.csv' })
    expect(response).toMatchObject({ status: 'ok', result: { kind: 'pdf', engine: 'libreoffice' } })
    const url = (response as { result: { pdf: { url: string } } }).result.pdf.url
    const answer = await core.serveBytes(url.slice('/api/bytes/'.length), {})
    const chunks: Uint8Array[] = []
    for await (const chunk of answer.body ?? []) chunks.push(chunk)
    const pdf = Buffer.concat(chunks)
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
    expect(pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)?.length).toBe(1)
  })

  test('a plain three-line CSV converts to XLSX and ODS with its cells split at the commas', async () => {
    const { convert, root } = await csvProject()
    expect(await convert('xlsx')).toMatchObject({ status: 'ok', result: { path: 'fruit.xlsx' } })
    const book = await unzipParts(readFileSync(join(root, 'fruit.xlsx')))
    const strings = book.get('xl/sharedStrings.xml')?.toString() ?? ''
    const sheet = book.get('xl/worksheets/sheet1.xml')?.toString() ?? ''
    // The quoted field stays one cell, UTF-8 is read as UTF-8, and quantities are numbers.
    for (const text of ['name', 'apple', 'red, crisp', 'Poire', 'crème']) expect(strings).toContain(`>${text}<`)
    expect(sheet).toMatch(/<c r="B2"[^>]*><v>3<\/v>/)
    expect(sheet).toMatch(/<c r="C3"/)

    expect(await convert('ods')).toMatchObject({ status: 'ok', result: { path: 'fruit.ods' } })
    const content = (await unzipParts(readFileSync(join(root, 'fruit.ods')))).get('content.xml')?.toString() ?? ''
    expect(content).toContain('office:value="5"')
    expect(content).toContain('red, crisp')
    expect(readFileSync(join(root, 'fruit.csv'), 'utf8')).toBe(PLAIN_CSV)
  })

  test('the one-shot path (no resident listener) reads the CSV with the same options', async () => {
    const { convert, root, core } = await csvProject('one-shot-only')
    expect(await convert('xlsx')).toMatchObject({ status: 'ok', result: { path: 'fruit.xlsx' } })
    expect((await core.office.converter())?.stats).toMatchObject({ resident: 0, oneShot: 1 })
    const strings = (await unzipParts(readFileSync(join(root, 'fruit.xlsx')))).get('xl/sharedStrings.xml')?.toString()
    expect(strings).toContain('>red, crisp<')
    expect(strings).toContain('>crème<')
  })
})
