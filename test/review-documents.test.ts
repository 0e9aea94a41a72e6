import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { DocumentDiff, ResultOf, TurnPart } from '../src/shared/protocol'
import { agentFixture, resultOf, toolParts } from './support/agent'
import { openProject, startCore } from './support/core'
import { scriptedModel, projectWith as projectFolder } from './support/scripted-model'
import { CORPUS_OFFICE, corpusFile, makeDocx, makePptx, makeXlsx, docxParagraph } from './support/office-fixtures'
import { tempDir } from './support/temp'

// Issue 26 end to end: a scripted loopback model reads and changes real DOCX, XLSX, PPTX and PDF
// files through office_edit / pdf_annotate; Review lists each row's counts and answers
// review.document with what changed inside; Undo puts the original bytes back exactly.

type Agent = Awaited<ReturnType<typeof agentFixture>>
type Files = ResultOf<'review.files'>
type Document = ResultOf<'review.document'>
type ToolPart = Extract<TurnPart, { type: 'tool' }>

/**
 * The saved file opens in LibreOffice (converted to PDF in a fresh profile), when it is installed;
 * otherwise the check is skipped with its reason printed.
 */
function reopensInLibreOffice(bytes: Buffer, name: string): void {
  const soffice = ['/usr/bin/soffice', '/usr/lib/libreoffice/program/soffice'].find((path) => existsSync(path))
  if (!soffice) {
    console.log(`skipped: reopening ${name} in LibreOffice — soffice is not installed`)
    return
  }
  const dir = tempDir('retrace-reopen-')
  writeFileSync(join(dir, name), bytes)
  execFileSync(
    soffice,
    [
      `-env:UserInstallation=file://${join(dir, 'profile')}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      dir,
      join(dir, name),
    ],
    { stdio: 'ignore', timeout: 120_000 },
  )
  const pdf = readdirSync(dir).find((file) => file.endsWith('.pdf'))
  expect(pdf, `LibreOffice could not open the saved ${name}`).toBeDefined()
}

/** The saved PDF passes qpdf's structural check, when qpdf is installed. */
function passesQpdf(bytes: Buffer): void {
  if (!existsSync('/usr/bin/qpdf')) {
    console.log('skipped: qpdf --check — qpdf is not installed')
    return
  }
  const dir = tempDir('retrace-qpdf-')
  writeFileSync(join(dir, 'saved.pdf'), bytes)
  // Exit 0: no errors; 3: warnings only (both open in every reader); 2 throws here.
  try {
    execFileSync('/usr/bin/qpdf', ['--check', join(dir, 'saved.pdf')], { stdio: 'pipe', timeout: 30_000 })
  } catch (error) {
    expect((error as { status?: number }).status, String((error as { stdout?: Buffer }).stdout)).toBe(3)
  }
}

const paragraph = docxParagraph

/** A one-page PDF with one line of Helvetica text, its cross-reference table at exact offsets. */
function makePdf(line: string): Buffer {
  const content = `BT /F1 18 Tf 72 720 Td (${line}) Tj ET`
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((object, index) => {
    offsets.push(body.length)
    body += `${index + 1} 0 obj\n${object}\nendobj\n`
  })
  const xref = body.length
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

const projectWith = (files: Record<string, Uint8Array | string>) => projectFolder(files, 'retrace-review-docs-')

async function turnRow(agent: Agent, turnId: string, path: string) {
  const files = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as Files
  const row = files.files.find((file) => file.path === path)
  if (!row) throw new Error(`${path} is not in the turn's review: ${files.files.map((f) => f.path).join(', ')}`)
  return { snapshotId: files.snapshot_id, row }
}

async function documentDiff(agent: Agent, snapshotId: string, path: string): Promise<DocumentDiff> {
  const answer = resultOf(await agent.session('review.document', { snapshot_id: snapshotId, path })) as Document
  if (answer.kind !== 'diff') throw new Error(`review.document: ${answer.reason}: ${answer.message}`)
  return answer.diff
}

async function undo(agent: Agent, turnId: string) {
  const plan = resultOf(await agent.session('history.plan', { operation: 'undo', turn_id: turnId })) as {
    plan_hash: string
  }
  expect(resultOf(await agent.session('history.apply', { plan_hash: plan.plan_hash }))).toMatchObject({
    status: 'committed',
  })
}

const words = (diff: { segments: Array<{ kind: string; text: string }> }, kind: 'added' | 'removed') =>
  diff.segments
    .filter((segment) => segment.kind === kind)
    .map((segment) => segment.text)
    .join('')

function completed(parts: ToolPart[], id: string): ToolPart {
  const part = parts.find((p) => p.id === id)
  expect(part, `${id}: ${JSON.stringify(part?.error)}`).toMatchObject({ state: 'completed' })
  return part as ToolPart
}

describe('the agent changes documents and Review shows what changed inside them', () => {
  test('DOCX: paragraph replaced and inserted; the row counts paragraphs, the redline has the words, Undo is byte-exact', async () => {
    const original = Buffer.from(
      await makeDocx(paragraph('Quarterly report') + paragraph('Revenue grew by ten percent this quarter.')),
    )
    const root = projectWith({ 'report.docx': original })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: {
            path: 'report.docx',
            edits: [
              { op: 'replace_text', anchor: 'p2', text: 'Revenue grew by twelve percent this quarter.' },
              { op: 'insert_paragraph', after: 'p2', text: 'Costs fell by three percent.' },
            ],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('update the report')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    const read = completed(parts, 'r1')
    expect(read.output).toContain('p2')
    expect(read.output).toContain('Revenue grew by ten percent this quarter.')
    const edit = completed(parts, 'e1')
    expect(edit.output).toMatch(/report\.docx/)
    expect(edit.output).toMatch(/read the file again/)
    expect(edit.receipt_ids).toHaveLength(1)

    const { snapshotId, row } = await turnRow(agent, turnId, 'report.docx')
    expect(row.document_counts).toEqual({ unit: 'paragraph', added: 1, removed: 0, changed: 1 })
    const branch = resultOf(await agent.session('review.files', { scope: 'branch' })) as Files
    expect(branch.files.find((file) => file.path === 'report.docx')?.document_counts).toEqual(row.document_counts)
    const diff = await documentDiff(agent, snapshotId, 'report.docx')
    expect(diff.kind).toBe('docx')
    if (diff.kind !== 'docx') return
    const changed = diff.entries.find((entry) => entry.change === 'changed')
    expect(changed && words(changed, 'added')).toContain('twelve')
    expect(changed && words(changed, 'removed')).toContain('ten')
    const added = diff.entries.find((entry) => entry.change === 'added')
    expect(added && words(added, 'added')).toContain('Costs fell by three percent.')

    reopensInLibreOffice(readFileSync(join(root, 'report.docx')), 'report.docx')
    await undo(agent, turnId)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), original)).toBe(0)
  }, 180_000)

  test('XLSX: a cell set recalculates its dependent formulas; Review lists the changed cells', async () => {
    const original = Buffer.from(await makeXlsx())
    const root = projectWith({ 'numbers.xlsx': original })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'numbers.xlsx', range: 'Data' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'numbers.xlsx', edits: [{ op: 'set_cells', sheet: 'Data', range: 'A1', values: [[15]] }] },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('raise the first value')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    expect(completed(parts, 'r1').output).toContain('A4')
    completed(parts, 'e1')

    const { snapshotId, row } = await turnRow(agent, turnId, 'numbers.xlsx')
    expect(row.document_counts?.unit).toBe('cell')
    const diff = await documentDiff(agent, snapshotId, 'numbers.xlsx')
    expect(diff.kind).toBe('xlsx')
    if (diff.kind !== 'xlsx') return
    const data = diff.sheets.find((sheet) => sheet.name === 'Data')
    expect(data?.cells.find((cell) => cell.address === 'A1')).toMatchObject({
      // Shown as the cell's number format (0.00) shows it.
      before: { value: '10.00' },
      after: { value: '15.00' },
    })
    // The total over A1:A3 follows its input: 60 → 65.
    expect(data?.cells.find((cell) => cell.address === 'A4')).toMatchObject({
      before: { value: '60.00', formula: 'SUM(A1:A3)' },
      after: { value: '65.00', formula: 'SUM(A1:A3)' },
    })
    // And so does the other sheet's formula over that total: Data!A4*2.
    expect(diff.sheets.find((sheet) => sheet.name === 'Summary')?.cells).toEqual([
      { address: 'A1', before: { value: '120', formula: 'Data!A4*2' }, after: { value: '130', formula: 'Data!A4*2' } },
    ])
    expect(row.document_counts?.changed).toBe(diff.counts.cells)

    reopensInLibreOffice(readFileSync(join(root, 'numbers.xlsx')), 'numbers.xlsx')
    await undo(agent, turnId)
    expect(Buffer.compare(readFileSync(join(root, 'numbers.xlsx')), original)).toBe(0)
  }, 180_000)

  test('PPTX: a shape’s text set and a slide added; Review lists the slides', async () => {
    const original = Buffer.from(await makePptx())
    const root = projectWith({ 'deck.pptx': original })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'deck.pptx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: {
            path: 'deck.pptx',
            edits: [
              { op: 'replace_text', anchor: 's1.sh2', text: 'Annual review' },
              // The deck's only layout is Blank (no title placeholder): an empty slide at the end.
              { op: 'add_slide', after: 2 },
            ],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('retitle and add a slide')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    expect(completed(parts, 'r1').output).toContain('s1.sh2')
    completed(parts, 'e1')

    const { snapshotId, row } = await turnRow(agent, turnId, 'deck.pptx')
    expect(row.document_counts).toEqual({ unit: 'slide', added: 1, removed: 0, changed: 1 })
    const diff = await documentDiff(agent, snapshotId, 'deck.pptx')
    expect(diff.kind).toBe('pptx')
    if (diff.kind !== 'pptx') return
    const retitled = diff.slides.find((slide) => slide.change === 'changed')
    expect(retitled?.shapes.map((shape) => words(shape, 'added')).join('')).toContain('Annual')
    expect(diff.slides.find((slide) => slide.change === 'added')?.after_index).toBe(3)

    reopensInLibreOffice(readFileSync(join(root, 'deck.pptx')), 'deck.pptx')
    await undo(agent, turnId)
    expect(Buffer.compare(readFileSync(join(root, 'deck.pptx')), original)).toBe(0)
  }, 180_000)

  test('PDF: a highlight and a note; Review lists the annotations with page and contents', async () => {
    const original = makePdf('Retrace keeps every change reviewable.')
    const root = projectWith({ 'paper.pdf': original })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'paper.pdf' } }],
      [
        {
          id: 'a1',
          name: 'pdf_annotate',
          input: {
            path: 'paper.pdf',
            annotations: [
              { op: 'highlight', page: 1, text: 'every change' },
              { op: 'note', page: 1, text: 'Cite the journal here.', near_text: 'reviewable' },
            ],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('annotate the paper')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    expect(completed(parts, 'r1').output).toContain('Retrace keeps every change reviewable.')
    completed(parts, 'a1')

    const { snapshotId, row } = await turnRow(agent, turnId, 'paper.pdf')
    expect(row.document_counts).toEqual({ unit: 'annotation', added: 2, removed: 0, changed: 0 })
    const diff = await documentDiff(agent, snapshotId, 'paper.pdf')
    expect(diff.kind).toBe('pdf')
    if (diff.kind !== 'pdf') return
    expect(diff.annotations.map((change) => [change.change, change.after?.type, change.after?.page])).toEqual(
      expect.arrayContaining([
        ['added', 'highlight', 1],
        ['added', 'freetext', 1],
      ]),
    )
    expect(diff.annotations.find((change) => change.after?.type === 'freetext')?.after?.contents).toBe(
      'Cite the journal here.',
    )

    passesQpdf(readFileSync(join(root, 'paper.pdf')))
    await undo(agent, turnId)
    expect(Buffer.compare(readFileSync(join(root, 'paper.pdf')), original)).toBe(0)
  }, 60_000)

  test('ask mode: the approval card shows the document change in words and carries its diff', async () => {
    const original = Buffer.from(
      await makeDocx(paragraph('Quarterly report') + paragraph('The numbers below are a draft.')),
    )
    const root = projectWith({ 'report.docx': original })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: {
            path: 'report.docx',
            edits: [{ op: 'replace_text', anchor: 'p2', text: 'The numbers below are final.' }],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('finalise')
    const card = await agent.approvalFor(turnId, 'e1')
    expect(card.approval?.documents).toHaveLength(1)
    const shown = card.approval?.documents?.[0]
    expect(shown?.path).toBe('report.docx')
    expect(shown?.diff?.kind).toBe('docx')
    expect(card.approval?.diff).toMatch(/^Document: DOCX: \+0 ¶ −0 ¶, 1 changed$/m)
    expect(card.approval?.diff).not.toMatch(/Binary file/)
    expect((await agent.session('session.approve', { tool_call_id: 'e1', decision: 'approve' })).status).toBe('ok')
    await agent.finished(turnId, 30_000)
    completed(toolParts(await agent.turn(turnId)), 'e1')
  }, 60_000)

  test('review.document of a row that is not a document answers unreadable, and an unknown path NOT_FOUND', async () => {
    const root = projectWith({ 'notes.bin': Buffer.from([0, 1, 2, 3]) })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'notes.bin' } }],
      [{ id: 'w1', name: 'write', input: { file_path: 'notes.txt', content: 'plain\n' } }],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('write a note')
    await agent.finished(turnId, 30_000)
    const { snapshotId, row } = await turnRow(agent, turnId, 'notes.txt')
    expect(row.document_counts).toBeUndefined()
    const answer = resultOf(
      await agent.session('review.document', { snapshot_id: snapshotId, path: 'notes.txt' }),
    ) as Document
    expect(answer).toMatchObject({ kind: 'unreadable', reason: 'not-a-document' })
    const missing = await agent.session('review.document', { snapshot_id: snapshotId, path: 'nope.docx' })
    expect(missing.status === 'error' && missing.error).toMatchObject({
      code: 'NOT_FOUND',
      details: { reason: 'not-in-review' },
    })
    const stale = await agent.session('review.document', { snapshot_id: 'gone', path: 'notes.txt' })
    expect(stale.status === 'error' && stale.error.code).toBe('STALE_SNAPSHOT')
  }, 60_000)

  test('git workspace: a DOCX saved outside Retrace gets its counts and diff, and a later save makes the snapshot stale', async () => {
    const root = tempDir('retrace-review-docs-ws-')
    const run = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' })
    run('init', '-q')
    run('config', 'user.email', 'test@example.com')
    run('config', 'user.name', 'Test')
    writeFileSync(join(root, 'report.docx'), await makeDocx(paragraph('Quarterly report') + paragraph('Old plan.')))
    run('add', '-A')
    run('commit', '-qm', 'initial')
    writeFileSync(
      join(root, 'report.docx'),
      await makeDocx(paragraph('Quarterly report') + paragraph('Old plan.') + paragraph('A new closing line.')),
    )
    const core = startCore({ reviewDocumentCountsBudgetMs: 60_000 })
    const project = await openProject(core, root)
    const files = resultOf(await project.call('review.files', { scope: 'workspace' })) as Files
    const row = files.files.find((file) => file.path === 'report.docx')
    expect(row?.document_counts).toEqual({ unit: 'paragraph', added: 1, removed: 0, changed: 0 })
    const answer = resultOf(
      await project.call('review.document', { snapshot_id: files.snapshot_id, path: 'report.docx' }),
    ) as Document
    expect(answer.kind === 'diff' && answer.diff.kind).toBe('docx')
    writeFileSync(join(root, 'report.docx'), await makeDocx(paragraph('Rewritten.')))
    const stale = await project.call('review.document', { snapshot_id: files.snapshot_id, path: 'report.docx' })
    expect(stale.status === 'error' && stale.error).toMatchObject({
      code: 'STALE_SNAPSHOT',
      details: { reason: 'basis-changed' },
    })
  }, 60_000)

  test('a document diff over its budget is unreadable (timeout) in review.document and its row has no counts', async () => {
    const root = tempDir('retrace-review-docs-slow-')
    const before = await makeDocx(paragraph('Quarterly report'))
    writeFileSync(join(root, 'report.docx'), before)
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [{ id: 'w1', name: 'write', input: { file_path: 'report.docx', source_path: 'next.docx' } }],
    )
    writeFileSync(join(root, 'next.docx'), await makeDocx(paragraph('Annual report')))
    // No document job can finish in 1 ms: every diff is stopped from outside.
    const agent = await agentFixture(root, llm, { documentLimits: { timeMs: 1 } })
    const turnId = await agent.prompt('replace the report')
    await agent.finished(turnId, 30_000)
    const { snapshotId, row } = await turnRow(agent, turnId, 'report.docx')
    expect(row.document_counts).toBeNull()
    const answer = resultOf(await agent.session('review.document', { snapshot_id: snapshotId, path: 'report.docx' }))
    expect(answer).toMatchObject({ kind: 'unreadable', reason: 'timeout' })
  }, 60_000)

  test('real corpus files: a DOCX table cell and a PPTX shape plus a slide from another layout, each undone byte-exactly', async () => {
    const docx = corpusFile('poi-60329-tables-hdrftr.docx')
    const pptx = corpusFile('poi-aptia-slides-images.pptx')
    if (!docx || !pptx) return
    const root = projectWith({ 'protocol.docx': docx, 'awards.pptx': pptx })
    const llm = await scriptedModel(
      [
        { id: 'r1', name: 'read', input: { file_path: 'protocol.docx' } },
        { id: 'r2', name: 'read', input: { file_path: 'awards.pptx', limit: 2 } },
      ],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: {
            path: 'protocol.docx',
            edits: [{ op: 'replace_text', anchor: 't2.r1.c4', text: '2.0 Dated 12/03/2026' }],
          },
        },
        {
          id: 'e2',
          name: 'office_edit',
          input: {
            path: 'awards.pptx',
            edits: [
              { op: 'replace_text', anchor: 's1.sh5', text: 'Deputy President Acton' },
              { op: 'add_slide', after: 9, layout_of: 2, title: 'Questions', body: 'Thank you' },
            ],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('update both')
    await agent.finished(turnId, 60_000)
    const parts = toolParts(await agent.turn(turnId))
    expect(completed(parts, 'r1').output).toContain('[t2.r1.c4] 1.0 Dated 06/22/2015')
    expect(completed(parts, 'r2').output).toContain('[s1.sh5] Senior Deputy President Acton')
    completed(parts, 'e1')
    completed(parts, 'e2')

    const { snapshotId, row } = await turnRow(agent, turnId, 'protocol.docx')
    expect(row.document_counts).toEqual({ unit: 'paragraph', added: 0, removed: 0, changed: 1 })
    const docDiff = await documentDiff(agent, snapshotId, 'protocol.docx')
    const cell =
      docDiff.kind === 'docx' ? docDiff.entries.find((entry) => entry.after_anchor === 't2.r1.c4') : undefined
    const side = (without: 'added' | 'removed') =>
      cell?.segments
        .filter((segment) => segment.kind !== without)
        .map((segment) => segment.text)
        .join('')
    expect(side('added')).toBe('1.0 Dated 06/22/2015')
    expect(side('removed')).toBe('2.0 Dated 12/03/2026')
    const deck = await turnRow(agent, turnId, 'awards.pptx')
    expect(deck.row.document_counts).toEqual({ unit: 'slide', added: 1, removed: 0, changed: 1 })
    const deckDiff = await documentDiff(agent, deck.snapshotId, 'awards.pptx')
    expect(deckDiff.kind === 'pptx' && deckDiff.slides.find((slide) => slide.change === 'added')?.title).toBe(
      'Questions',
    )

    reopensInLibreOffice(readFileSync(join(root, 'protocol.docx')), 'protocol.docx')
    reopensInLibreOffice(readFileSync(join(root, 'awards.pptx')), 'awards.pptx')
    await undo(agent, turnId)
    expect(Buffer.compare(readFileSync(join(root, 'protocol.docx')), docx)).toBe(0)
    expect(Buffer.compare(readFileSync(join(root, 'awards.pptx')), pptx)).toBe(0)
  }, 240_000)

  test('a password-protected PDF (corpus) is refused by read and pdf_annotate alike, and stays byte-identical', async () => {
    const path = join(CORPUS_OFFICE, '..', 'pdf', 'pdfjs-issue3371-encrypted.pdf')
    if (!existsSync(path)) {
      console.log(`skipped: corpus file ${path} is not present`)
      return
    }
    const locked = readFileSync(path)
    const root = projectWith({ 'locked.pdf': locked })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'locked.pdf' } }],
      [{ id: 'a1', name: 'pdf_annotate', input: { path: 'locked.pdf', annotations: [{ op: 'remove', id: '12R' }] } }],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('clean the notes')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    for (const id of ['r1', 'a1']) {
      const part = parts.find((p) => p.id === id)
      expect(part, id).toMatchObject({ state: 'error', error: { code: 'UNSUPPORTED' } })
    }
    expect(Buffer.compare(readFileSync(join(root, 'locked.pdf')), locked)).toBe(0)
  }, 60_000)

  test('a document over the byte bound: read refuses it with TOO_LARGE, Review answers too-large without counts', async () => {
    const root = tempDir('retrace-review-docs-big-')
    writeFileSync(join(root, 'report.docx'), await makeDocx(paragraph('Quarterly report')))
    writeFileSync(join(root, 'next.docx'), await makeDocx(paragraph('Annual report')))
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [{ id: 'w1', name: 'write', input: { file_path: 'report.docx', source_path: 'next.docx' } }],
    )
    // Every DOCX is bigger than 200 bytes (a ZIP of four parts).
    const agent = await agentFixture(root, llm, { documentLimits: { maxInputBytes: 200 } })
    const turnId = await agent.prompt('replace the report')
    await agent.finished(turnId, 30_000)
    const read = toolParts(await agent.turn(turnId)).find((part) => part.id === 'r1')
    expect(read).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    const { snapshotId, row } = await turnRow(agent, turnId, 'report.docx')
    expect(row.document_counts).toBeNull()
    const answer = resultOf(await agent.session('review.document', { snapshot_id: snapshotId, path: 'report.docx' }))
    expect(answer).toMatchObject({ kind: 'unreadable', reason: 'too-large' })
  }, 60_000)

  test('Review of a document replaced by a password-protected or damaged version answers unreadable with the reason', async () => {
    const encryptedPath = join(CORPUS_OFFICE, '..', 'pdf', 'pdfjs-issue3371-encrypted.pdf')
    if (!existsSync(encryptedPath)) {
      console.log(`skipped: corpus file ${encryptedPath} is not present`)
      return
    }
    const root = projectWith({
      'paper.pdf': makePdf('An open paper.'),
      'locked.pdf': readFileSync(encryptedPath),
      'report.docx': await makeDocx(paragraph('Quarterly report')),
      // A ZIP named .docx whose package has no Word document in it.
      'broken.docx': await makeDocx('').then((bytes) => Buffer.from(bytes).subarray(0, 60)),
    })
    const llm = await scriptedModel(
      [
        { id: 'r1', name: 'read', input: { file_path: 'paper.pdf' } },
        { id: 'r2', name: 'read', input: { file_path: 'report.docx' } },
      ],
      [
        { id: 'w1', name: 'write', input: { file_path: 'paper.pdf', source_path: 'locked.pdf' } },
        { id: 'w2', name: 'write', input: { file_path: 'report.docx', source_path: 'broken.docx' } },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('swap them')
    await agent.finished(turnId, 30_000)
    const paper = await turnRow(agent, turnId, 'paper.pdf')
    expect(paper.row.document_counts).toBeNull()
    expect(
      resultOf(await agent.session('review.document', { snapshot_id: paper.snapshotId, path: 'paper.pdf' })),
    ).toMatchObject({ kind: 'unreadable', reason: 'encrypted' })
    const report = await turnRow(agent, turnId, 'report.docx')
    expect(report.row.document_counts).toBeNull()
    expect(
      resultOf(await agent.session('review.document', { snapshot_id: report.snapshotId, path: 'report.docx' })),
    ).toMatchObject({ kind: 'unreadable', reason: 'damaged' })
  }, 60_000)
})
