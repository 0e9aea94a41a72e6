import CFB from 'cfb'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { agentFixture, toolParts } from './support/agent'
import { scriptedModel, projectWith as projectFolder } from './support/scripted-model'
import { makeDocx, docxParagraph } from './support/office-fixtures'

// Issue 26: the agent's document tools (read's document view, office_edit, pdf_annotate) driven by
// a scripted loopback model through the real engine: journal, worker, read baselines.

const paragraph = docxParagraph

const projectWith = (files: Record<string, Uint8Array | string>) => projectFolder(files, 'retrace-docs-')

/** An OOXML package as Office saves it under a password: an OLE compound file with the encrypted package. */
function encryptedDocx(): Buffer {
  const container = CFB.utils.cfb_new()
  CFB.utils.cfb_add(container, '/EncryptionInfo', Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]))
  CFB.utils.cfb_add(container, '/EncryptedPackage', Buffer.alloc(64, 7))
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array)
}

async function receiptsOf(agent: Awaited<ReturnType<typeof agentFixture>>, turnId: string) {
  const node = await agent.turn(turnId)
  return toolParts(node).flatMap((part) => part.receipt_ids ?? [])
}

describe('office_edit refuses with zero writes', () => {
  test('a document never read is refused with CONFLICT and stays byte-identical', async () => {
    const docx = await makeDocx(paragraph('Quarterly report'))
    const root = projectWith({ 'report.docx': docx })
    const llm = await scriptedModel([
      {
        id: 'e1',
        name: 'office_edit',
        input: { path: 'report.docx', edits: [{ op: 'replace_text', anchor: 'p1', text: 'Annual report' }] },
      },
    ])
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('retitle it')
    await agent.finished(turnId)
    const [edit] = toolParts(await agent.turn(turnId))
    expect(edit).toMatchObject({ state: 'error', error: { code: 'CONFLICT' } })
    expect(edit?.error?.message).toMatch(/Read "report\.docx" before changing it/)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), Buffer.from(docx))).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  })

  test('a document changed since it was read is refused with CONFLICT and keeps the other writer’s bytes', async () => {
    const docx = await makeDocx(paragraph('Quarterly report'))
    const root = projectWith({ 'report.docx': docx })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'report.docx', edits: [{ op: 'replace_text', anchor: 'p1', text: 'Annual report' }] },
        },
      ],
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('retitle it')
    // The card waits; meanwhile someone saves the document. Approving must not overwrite their save.
    await agent.approvalFor(turnId, 'e1')
    const someoneElse = await makeDocx(paragraph('Quarterly report, reviewed'))
    writeFileSync(join(root, 'report.docx'), someoneElse)
    expect((await agent.session('session.approve', { tool_call_id: 'e1', decision: 'approve' })).status).toBe('ok')
    await agent.finished(turnId)
    const edit = toolParts(await agent.turn(turnId)).find((part) => part.id === 'e1')
    expect(edit).toMatchObject({ state: 'error', error: { code: 'CONFLICT' } })
    expect(edit?.error?.message).toMatch(/changed since you read it/)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), Buffer.from(someoneElse))).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  })

  test('an anchor the document does not have is refused with NOT_FOUND, naming the edit, and nothing is written', async () => {
    const docx = await makeDocx(paragraph('Quarterly report') + paragraph('Revenue grew.'))
    const root = projectWith({ 'report.docx': docx })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: {
            path: 'report.docx',
            edits: [
              { op: 'replace_text', anchor: 'p1', text: 'Annual report' },
              { op: 'delete_paragraph', anchor: 'p99' },
            ],
          },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('retitle it and drop the last paragraph')
    await agent.finished(turnId, 30_000)
    const edit = toolParts(await agent.turn(turnId)).find((part) => part.id === 'e1')
    expect(edit).toMatchObject({ state: 'error', error: { code: 'NOT_FOUND' } })
    // The first edit was fine; all or nothing: it is not written either.
    expect(edit?.error?.message).toMatch(/\(change 2 of 2\) Nothing was changed\.$/)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), Buffer.from(docx))).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  }, 30_000)

  test('a password-protected DOCX is refused as encrypted, read and edit alike, and nothing is written', async () => {
    const locked = encryptedDocx()
    const root = projectWith({ 'secret.docx': locked })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'secret.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'secret.docx', edits: [{ op: 'delete_paragraph', anchor: 'p1' }] },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('clean it up')
    await agent.finished(turnId)
    const [read, edit] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'UNSUPPORTED' } })
    expect(read?.error?.message).toMatch(/protected with a password/)
    expect(edit).toMatchObject({ state: 'error', error: { code: 'UNSUPPORTED' } })
    expect(edit?.error?.message).toMatch(/protected with a password/)
    expect(Buffer.compare(readFileSync(join(root, 'secret.docx')), locked)).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  })

  test('a document job over the time budget is stopped with TOO_LARGE (time), nothing is written, and the next call works', async () => {
    const docx = await makeDocx(paragraph('Quarterly report'))
    const root = projectWith({ 'report.docx': docx, 'notes.txt': 'one\n' })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'report.docx', edits: [{ op: 'replace_text', anchor: 'p1', text: 'Annual report' }] },
        },
      ],
      [{ id: 'r2', name: 'read', input: { file_path: 'notes.txt' } }],
    )
    // A budget no worker can meet: the job is stopped from outside, whatever the document.
    const agent = await agentFixture(root, llm, { documentLimits: { timeMs: 1 } })
    const turnId = await agent.prompt('retitle it')
    await agent.finished(turnId, 20_000)
    const [read, edit, next] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect(edit).toMatchObject({ state: 'error', error: { code: 'TOO_LARGE' } })
    expect(edit?.error?.message).toMatch(/took longer than .* and was stopped\. Nothing was changed\./)
    expect(next).toMatchObject({ state: 'completed' })
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), Buffer.from(docx))).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  }, 30_000)

  test('without LibreOffice, an OpenDocument file reads as binary with how to convert it, and office_edit refuses it', async () => {
    const root = projectWith({ 'minutes.odt': Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff, 0xfe]) })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'minutes.odt' } }],
      [
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'minutes.odt', edits: [{ op: 'delete_paragraph', anchor: 'p1' }] },
        },
      ],
    )
    // Without LibreOffice (with it, read shows the converted copy: test/document-odf-read.test.ts).
    const agent = await agentFixture(root, llm, {
      office: { detect: async () => ({ kind: 'missing', reason: 'test' }) },
    })
    const turnId = await agent.prompt('tidy the minutes')
    await agent.finished(turnId)
    const [read, edit] = toolParts(await agent.turn(turnId))
    expect(read).toMatchObject({ state: 'completed' })
    expect(read?.output).toMatch(/convert it to OOXML first/)
    expect(edit).toMatchObject({ state: 'error', error: { code: 'UNSUPPORTED' } })
    expect(edit?.error?.message).toMatch(/Convert it to OOXML first/)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  })

  test('ask mode: a document whose diff cannot be had in time still gets its card, with sizes and a null diff', async () => {
    const before = await makeDocx(paragraph('Quarterly report'))
    const after = await makeDocx(paragraph('Annual report'))
    const root = projectWith({ 'report.docx': before, 'next.docx': after })
    const llm = await scriptedModel(
      [{ id: 'r1', name: 'read', input: { file_path: 'report.docx' } }],
      [{ id: 'w1', name: 'write', input: { file_path: 'report.docx', source_path: 'next.docx' } }],
    )
    const agent = await agentFixture(root, llm, { mode: 'ask', documentLimits: { timeMs: 1 } })
    const turnId = await agent.prompt('replace the report')
    const card = await agent.approvalFor(turnId, 'w1')
    expect(card.approval?.documents).toEqual([{ path: 'report.docx', diff: null }])
    expect(card.approval?.diff).toContain(`Document: ${before.length} → ${after.length} bytes`)
    await agent.session('session.approve', { tool_call_id: 'w1', decision: 'reject' })
    await agent.finished(turnId, 30_000)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), Buffer.from(before))).toBe(0)
  }, 30_000)

  test('each tool refuses the other kind of document and names the right tool, writing nothing', async () => {
    const docx = Buffer.from(await makeDocx(paragraph('Quarterly report')))
    const pdf = Buffer.from('%PDF-1.4\n%\xff\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1')
    const root = projectWith({ 'report.docx': docx, 'paper.pdf': pdf })
    const llm = await scriptedModel(
      [
        { id: 'r1', name: 'read', input: { file_path: 'report.docx' } },
        { id: 'r2', name: 'read', input: { file_path: 'paper.pdf' } },
      ],
      [
        {
          id: 'a1',
          name: 'pdf_annotate',
          input: { path: 'report.docx', annotations: [{ op: 'note', page: 1, text: 'Check this' }] },
        },
        {
          id: 'e1',
          name: 'office_edit',
          input: { path: 'paper.pdf', edits: [{ op: 'delete_paragraph', anchor: 'p1' }] },
        },
      ],
    )
    const agent = await agentFixture(root, llm)
    const turnId = await agent.prompt('mark them up')
    await agent.finished(turnId, 30_000)
    const parts = toolParts(await agent.turn(turnId))
    const annotate = parts.find((part) => part.id === 'a1')
    expect(annotate).toMatchObject({ state: 'error', error: { code: 'INVALID_REQUEST' } })
    expect(annotate?.error?.message).toMatch(/is a DOCX; pdf_annotate cannot change it\. Use office_edit\./)
    const edit = parts.find((part) => part.id === 'e1')
    expect(edit).toMatchObject({ state: 'error', error: { code: 'INVALID_REQUEST' } })
    expect(edit?.error?.message).toMatch(/is a PDF; office_edit cannot change it\. Use pdf_annotate\./)
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), docx)).toBe(0)
    expect(Buffer.compare(readFileSync(join(root, 'paper.pdf')), pdf)).toBe(0)
    expect(await receiptsOf(agent, turnId)).toEqual([])
  }, 30_000)
})
