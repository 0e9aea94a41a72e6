import { afterEach, describe, expect, test } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ResultOf } from '../src/shared/protocol'
import { detectLibreOffice, type Detection } from '../src/main/core/office/libreoffice/detect'
import { agentFixture, resultOf, toolParts } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { corpusFile } from './support/office-fixtures'
import { tempDir } from './support/temp'

// Issue 26 (c): Review's pictures of Office rows. `review.preview` of a DOCX/XLSX/PPTX version
// answers its recorded bytes (for the renderer's built-in slide and page renderers) and, when asked
// and a LibreOffice engine is there, the PDF pages of exactly that version; with no engine it says
// so and converts nothing.

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

type Agent = Awaited<ReturnType<typeof agentFixture>>
type Preview = ResultOf<'review.preview'>

const detection: Detection = await detectLibreOffice()
if (detection.kind === 'missing') console.log(`skipped: the LibreOffice pages checks — ${detection.reason}`)

const noLibreOffice = async (): Promise<Detection> => ({ kind: 'missing', reason: 'hidden by the test' })

/** A turn that changes slide 1's title and adds a tenth slide to the corpus deck, and a DOCX cell. */
async function editedDeck(office: NonNullable<Parameters<typeof agentFixture>[2]>['office']) {
  const deck = corpusFile('poi-aptia-slides-images.pptx')
  const report = corpusFile('poi-60329-tables-hdrftr.docx')
  if (!deck || !report) return undefined
  const root = tempDir('retrace-review-office-')
  writeFileSync(join(root, 'awards.pptx'), deck)
  writeFileSync(join(root, 'protocol.docx'), report)
  const llm = await startFakeOpenAI()
  fakes.push(llm)
  const call = (id: string, path: string, edits: unknown[]) => ({ id, name: 'office_edit', input: { path, edits } })
  llm.enqueue(
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            { id: 'r1', name: 'read', input: { file_path: 'awards.pptx', limit: 2 } },
            { id: 'r2', name: 'read', input: { file_path: 'protocol.docx', limit: 2 } },
          ],
        },
      ],
    },
    {
      kind: 'stream',
      steps: [
        {
          toolCalls: [
            call('e1', 'awards.pptx', [
              { op: 'replace_text', anchor: 's1.sh5', text: 'Deputy President Acton' },
              { op: 'add_slide', after: 9, layout_of: 2, title: 'Questions', body: 'Thank you' },
            ]),
            call('e2', 'protocol.docx', [{ op: 'replace_text', anchor: 't2.r1.c4', text: '2.0 Dated 12/03/2026' }]),
          ],
        },
      ],
    },
    { kind: 'stream', steps: [{ text: 'done' }] },
  )
  const agent = await agentFixture(root, llm, { office })
  const turnId = await agent.prompt('retitle and add a closing slide')
  await agent.finished(turnId, 60_000)
  for (const part of toolParts(await agent.turn(turnId))) {
    expect(part, JSON.stringify(part.error)).toMatchObject({ state: 'completed' })
  }
  const files = resultOf(await agent.session('review.files', { scope: 'turn', turn_id: turnId })) as {
    snapshot_id: string
  }
  return { agent, deck, report, root, snapshotId: files.snapshot_id }
}

async function preview(agent: Agent, snapshotId: string, path: string, side: 'before' | 'after', pages?: boolean) {
  return resultOf(
    await agent.session('review.preview', {
      snapshot_id: snapshotId,
      path,
      side,
      ...(pages !== undefined ? { pages } : {}),
    }),
  ) as Preview
}

/** What the renderer fetches: the byte transfer behind the URL, never base64 inside a frame. */
async function bytesAt(agent: Agent, url: string): Promise<Buffer> {
  const answer = await agent.core.serveBytes(url.slice('/api/bytes/'.length), {})
  if (answer.status !== 200 || !answer.body) throw new Error(`byte transfer answered ${answer.status}`)
  const chunks: Uint8Array[] = []
  for await (const chunk of answer.body) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** Pages of an uncompressed-xref PDF as LibreOffice writes it: `/Type /Page` objects, not `/Pages`. */
const pageCount = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length

describe('review.preview of Office rows', () => {
  test('answers the recorded DOCX and PPTX versions as Office previews, and with no engine says so instead of converting', async () => {
    const fixture = await editedDeck({ detect: noLibreOffice })
    if (!fixture) return
    const { agent, deck, report, snapshotId } = fixture

    const before = await preview(agent, snapshotId, 'awards.pptx', 'before')
    expect(before).toMatchObject({ kind: 'office', format: 'pptx', size: deck.length })
    expect(before).not.toHaveProperty('pages')
    if (before.kind !== 'office') return
    expect((await bytesAt(agent, before.url)).equals(deck)).toBe(true)
    const after = await preview(agent, snapshotId, 'awards.pptx', 'after')
    if (after.kind !== 'office') throw new Error(`after: ${after.kind}`)
    expect((await bytesAt(agent, after.url)).equals(deck)).toBe(false)

    const docx = await preview(agent, snapshotId, 'protocol.docx', 'before')
    expect(docx).toMatchObject({ kind: 'office', format: 'docx', size: report.length })

    const withPages = await preview(agent, snapshotId, 'awards.pptx', 'after', true)
    expect(withPages).toMatchObject({
      kind: 'office',
      format: 'pptx',
      pages: { kind: 'unavailable', reason: 'no-engine' },
    })
  }, 120_000)

  test('with LibreOffice, the pages of each recorded version: one PDF page per slide, the same PDF again from the cache', async () => {
    if (detection.kind === 'missing') return
    const fixture = await editedDeck(undefined)
    if (!fixture) return
    const { agent, snapshotId } = fixture

    const before = await preview(agent, snapshotId, 'awards.pptx', 'before', true)
    const after = await preview(agent, snapshotId, 'awards.pptx', 'after', true)
    if (before.kind !== 'office' || before.pages?.kind !== 'pdf') throw new Error(JSON.stringify(before))
    if (after.kind !== 'office' || after.pages?.kind !== 'pdf') throw new Error(JSON.stringify(after))
    expect(after.pages.engine).toBe('libreoffice')
    const beforePdf = await bytesAt(agent, before.pages.url)
    const afterPdf = await bytesAt(agent, after.pages.url)
    expect(beforePdf.subarray(0, 5).toString('latin1')).toBe('%PDF-')
    // Page N is slide N: the turn added a tenth slide to the nine.
    expect(pageCount(beforePdf)).toBe(9)
    expect(pageCount(afterPdf)).toBe(10)

    const again = await preview(agent, snapshotId, 'awards.pptx', 'after', true)
    if (again.kind !== 'office' || again.pages?.kind !== 'pdf') throw new Error(JSON.stringify(again))
    expect((await bytesAt(agent, again.pages.url)).equals(afterPdf)).toBe(true)
  }, 240_000)
})
