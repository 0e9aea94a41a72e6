import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { agentFixture, toolParts } from './support/agent'
import { corpusFile, makeDocx, makeXlsx, docxParagraph } from './support/office-fixtures'
import { scriptedModel } from './support/scripted-model'
import { tempDir } from './support/temp'

// Issue 26: `read` of ODF and legacy documents (odt/doc → docx, ods/xls → xlsx, odp/ppt → pptx)
// through LibreOffice's OOXML copy, driven by a scripted loopback model through the real engine
// and the machine's real soffice. Without LibreOffice the earlier type-and-hint answer stays.

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: ODF/legacy reading through LibreOffice — ${detection.reason}`)

const NOTICE =
  '(converted by LibreOffice for reading; anchors are for reading only — office_edit needs a .docx/.xlsx/.pptx: convert the file first)'

const paragraph = docxParagraph
const heading = (text: string) =>
  `<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`
const cell = (text: string) => `<w:tc><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:tc>`

function projectWith(files: Record<string, Uint8Array>): string {
  const root = tempDir('retrace-odf-')
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true })
    writeFileSync(join(root, name), content)
  }
  return root
}

/** Every file of the project with its bytes: "zero writes" is this map unchanged. */
function treeOf(root: string): Map<string, Buffer> {
  return new Map(
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name)
        return [path.slice(root.length + 1), readFileSync(path)]
      }),
  )
}

/** The staging folder of conversions for reading: every job's folder is gone once it answered. */
function stagedLeft(dataDir: string): string[] {
  const dir = join(dataDir, 'office', 'reading')
  return existsSync(dir) ? readdirSync(dir) : []
}

/** How many conversions LibreOffice finished for the engine (its resident listener or one-shot). */
function conversionsOf(converter: { stats: { resident: number; oneShot: number } } | undefined): number {
  return (converter?.stats.resident ?? 0) + (converter?.stats.oneShot ?? 0)
}

/** A bare one-shot `soffice --convert-to` of `source` in its own fresh profile: the test's own files. */
function sofficeConvert(source: Uint8Array, name: string, to: string): Buffer {
  if (detection.kind !== 'found') throw new Error('no LibreOffice')
  const dir = tempDir('retrace-odf-src-')
  writeFileSync(join(dir, name), source)
  const out = join(dir, 'out')
  execFileSync(
    detection.install.soffice,
    [
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--headless',
      '--convert-to',
      to,
      '--outdir',
      out,
      join(dir, name),
    ],
    { stdio: 'ignore', timeout: 120_000 },
  )
  const produced = readdirSync(out).find((file) => file.endsWith(`.${to}`))
  if (!produced) throw new Error(`soffice produced no .${to} from ${name}`)
  return readFileSync(join(out, produced))
}

describe.skipIf(detection.kind === 'missing')('read of ODF and legacy documents through LibreOffice', () => {
  let odt: Buffer
  let doc: Buffer
  beforeAll(async () => {
    const docx = await makeDocx(
      heading('Quarterly report') +
        paragraph('Revenue grew by twelve percent.') +
        `<w:tbl><w:tr>${cell('Region')}${cell('North')}</w:tr></w:tbl>` +
        paragraph('Costs stayed flat.'),
    )
    odt = sofficeConvert(docx, 'report.docx', 'odt')
    doc = sofficeConvert(docx, 'report.docx', 'doc')
  }, 240_000)

  test('an .odt and a .doc read as the DOCX view with anchors, headed by the converted notice; paging reads the same copy', async () => {
    const dataDir = tempDir('retrace-odf-data-')
    const root = projectWith({ 'report.odt': odt, 'legacy/report.doc': doc })
    const before = treeOf(root)
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.odt' } }],
      [{ id: 'r2', name: 'read', input: { file_path: 'legacy/report.doc' } }],
      [{ id: 'r3', name: 'read', input: { file_path: 'report.odt', offset: 2, limit: 1 } }],
    )
    const agent = await agentFixture(root, llm, { dataDir })
    const turnId = await agent.prompt('summarise the reports')
    await agent.finished(turnId, 120_000)
    const [odtRead, docRead, paged] = toolParts(await agent.turn(turnId))
    for (const read of [odtRead, docRead]) {
      expect(read).toMatchObject({ state: 'completed' })
      const lines = (read?.output ?? '').split('\n')
      expect(lines[0]).toBe(NOTICE)
      expect(read?.output).toMatch(/p1\b.*Quarterly report/)
      expect(read?.output).toMatch(/Revenue grew by twelve percent\./)
      expect(read?.output).toMatch(/t1\.r1\.c2\b.*North/)
      expect(read?.output).toMatch(/Costs stayed flat\./)
    }
    expect(paged).toMatchObject({ state: 'completed' })
    expect(paged?.output?.split('\n')[0]).toBe(NOTICE)
    expect(paged?.output).toMatch(/Revenue grew/)
    expect(paged?.output).not.toMatch(/Quarterly report/)
    // Two contents, two conversions: the paged read was served from the converted copy kept by digest.
    expect(conversionsOf(await agent.core.office.converter())).toBe(2)
    expect(treeOf(root)).toEqual(before)
    expect(stagedLeft(dataDir)).toEqual([])
  }, 180_000)

  test('an .ods and an .xls read as the XLSX view: sheets, cell addresses, values and formulas', async () => {
    const xlsx = await makeXlsx()
    const root = projectWith({
      'budget.ods': sofficeConvert(xlsx, 'budget.xlsx', 'ods'),
      'budget.xls': sofficeConvert(xlsx, 'budget.xlsx', 'xls'),
    })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'budget.ods' } }],
      [{ id: 'r2', name: 'read', input: { file_path: 'budget.xls', range: 'Summary' } }],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('what is the total?')
    await agent.finished(turnId, 120_000)
    const [ods, xls] = toolParts(await agent.turn(turnId))
    expect(ods).toMatchObject({ state: 'completed' })
    expect(ods?.output?.split('\n')[0]).toBe(NOTICE)
    expect(ods?.output).toMatch(/Data/)
    expect(ods?.output).toMatch(/A4\b.*=SUM\(A1:A3\)/)
    expect(ods?.output).toMatch(/A4\b.*60/)
    expect(xls).toMatchObject({ state: 'completed' })
    expect(xls?.output?.split('\n')[0]).toBe(NOTICE)
    expect(xls?.output).toMatch(/A1\b.*=Data!A4\*2/)
  }, 240_000)

  test('the corpus ODP reads as slides and shapes, the corpus DOC as paragraphs', async () => {
    const odp = corpusFile('odfdo-example.odp')
    const travel = corpusFile('poi-travel-form.doc')
    if (!odp || !travel) return
    const root = projectWith({ 'example.odp': odp, 'travel.doc': travel })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'example.odp' } }],
      [{ id: 'r2', name: 'read', input: { file_path: 'travel.doc' } }],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('what do these say?')
    await agent.finished(turnId, 120_000)
    const [slides, form] = toolParts(await agent.turn(turnId))
    expect(slides).toMatchObject({ state: 'completed' })
    expect(slides?.output?.split('\n')[0]).toBe(NOTICE)
    expect(slides?.output).toMatch(/\bs1\.sh\d+/)
    expect(form).toMatchObject({ state: 'completed' })
    expect(form?.output?.split('\n')[0]).toBe(NOTICE)
    expect(form?.output).toMatch(/\bp1\b/)
    expect(form?.output).toMatch(/travel/i)
  }, 180_000)

  test('office_edit of an .odt is refused with the exact conversion to run, and nothing is written', async () => {
    const root = projectWith({ 'report.odt': odt })
    const before = treeOf(root)
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.odt' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'report.odt', edits: [{ op: 'replace_text', anchor: 'p1', text: 'Annual report' }] },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('retitle it')
    await agent.finished(turnId, 120_000)
    const [read, edit] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'completed' })
    expect(edit).toMatchObject({ state: 'error', error: { code: 'UNSUPPORTED' } })
    expect(edit?.error?.message).toContain(
      "Convert it to OOXML first (DOCX): ask the person to use Convert in the Office view, or run `soffice --headless --convert-to docx --outdir '.' 'report.odt'` with bash where LibreOffice is installed; then read and change the converted file.",
    )
    expect(treeOf(root)).toEqual(before)
  }, 180_000)

  test('a damaged .odt is refused as damaged before LibreOffice sees it, with zero writes', async () => {
    const dataDir = tempDir('retrace-odf-data-')
    const root = projectWith({ 'minutes.odt': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff, 0xfe]) })
    const before = treeOf(root)
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'minutes.odt' } }])
    const agent = await agentFixture(root, llm, { dataDir })
    const turnId = await agent.prompt('read the minutes')
    await agent.finished(turnId, 120_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'INVALID_REQUEST' } })
    expect(read?.error?.message).toBe(
      '"minutes.odt" could not be converted for reading: the document is damaged or incomplete and cannot be opened. Nothing was written.',
    )
    expect(treeOf(root)).toEqual(before)
    expect(stagedLeft(dataDir)).toEqual([])
  }, 150_000)

  test('a package past the Office inspection bounds never reaches LibreOffice: TOO_LARGE, zero writes', async () => {
    const dataDir = tempDir('retrace-odf-data-')
    const root = projectWith({ 'report.odt': odt })
    const before = treeOf(root)
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'report.odt' } }])
    const agent = await agentFixture(root, llm, { dataDir, office: { inspectLimits: { maxEntries: 2 } } })
    const turnId = await agent.prompt('read it')
    await agent.finished(turnId, 60_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect(read?.error?.message).toMatch(
      /^"report\.odt" could not be converted for reading: .+\. Nothing was written\.$/,
    )
    expect(treeOf(root)).toEqual(before)
    expect(existsSync(join(dataDir, 'office', 'reading'))).toBe(false)
    expect(conversionsOf(await agent.core.office.converter())).toBe(0)
  }, 60_000)

  test('a DOCX named .doc is refused as wrong-format, naming its real content, before LibreOffice sees it', async () => {
    const root = projectWith({ 'notes.doc': await makeDocx(paragraph('Hello')) })
    const before = treeOf(root)
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'notes.doc' } }])
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('read it')
    await agent.finished(turnId, 60_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'INVALID_REQUEST' } })
    expect(read?.error?.message).toBe(
      '"notes.doc" could not be converted for reading: its content is DOCX, not an ODF or legacy document. Nothing was written.',
    )
    expect(treeOf(root)).toEqual(before)
    expect(conversionsOf(await agent.core.office.converter())).toBe(0)
  }, 60_000)

  test('a conversion past its time is refused as TOO_LARGE, naming the bound, with zero writes and no staged copy left', async () => {
    const dataDir = tempDir('retrace-odf-data-')
    const root = projectWith({ 'report.odt': odt })
    const before = treeOf(root)
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'report.odt' } }])
    const agent = await agentFixture(root, llm, { dataDir, documentLimits: { convertTimeMs: 1 } })
    const turnId = await agent.prompt('read it')
    await agent.finished(turnId, 60_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect(read?.error?.message).toBe(
      '"report.odt" could not be converted for reading: LibreOffice did not convert it within 1 s. Nothing was written.',
    )
    expect(treeOf(root)).toEqual(before)
    expect(stagedLeft(dataDir)).toEqual([])
  }, 120_000)

  test('a document over the conversion size bound is refused as TOO_LARGE before LibreOffice sees it', async () => {
    const dataDir = tempDir('retrace-odf-data-')
    const root = projectWith({ 'report.odt': odt })
    const before = treeOf(root)
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'report.odt' } }])
    const agent = await agentFixture(root, llm, { dataDir, documentLimits: { convertMaxInputBytes: 1024 * 1024 } })
    // A .odt larger than 1 MiB: the bound is checked on the bytes, before any staging.
    const padded = Buffer.concat([odt, Buffer.alloc(1024 * 1024)])
    writeFileSync(join(root, 'report.odt'), padded)
    before.set('report.odt', padded)
    const turnId = await agent.prompt('read it')
    await agent.finished(turnId, 60_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect(read?.error?.message).toBe(
      '"report.odt" could not be converted for reading: it is larger than the 1 MiB that is converted for reading. Nothing was written.',
    )
    expect(treeOf(root)).toEqual(before)
    expect(existsSync(join(dataDir, 'office', 'reading'))).toBe(false)
  }, 120_000)
})

describe('read of an ODF document without LibreOffice', () => {
  test('answers its type and size with the conversion hint, as before', async () => {
    const odt = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff, 0xfe])
    const root = projectWith({ 'minutes.odt': odt })
    const llm = await scriptedModel([{ id: 'r1', name: 'read', input: { file_path: 'minutes.odt' } }])
    const agent = await agentFixture(root, llm, {
      office: { detect: async () => ({ kind: 'missing', reason: 'test' }) },
    })
    const turnId = await agent.prompt('read the minutes')
    await agent.finished(turnId, 30_000)
    const [read] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'completed' })
    expect(read?.output).toMatch(
      /^Binary file minutes\.odt: .*, 8 bytes\. Only DOCX, XLSX, PPTX and PDF are read as documents: convert it to OOXML first/,
    )
  }, 60_000)
})
