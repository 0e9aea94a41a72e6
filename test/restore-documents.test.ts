import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { ResultOf } from '../src/shared/protocol'
import { agentFixture, resultOf, toolParts } from './support/agent'
import { scriptedModel } from './support/scripted-model'
import { makeDocx, makeXlsx, docxParagraph } from './support/office-fixtures'
import { tempDir } from './support/temp'

// Issue 26, restore previews: history.plan names what changes inside each document a restore
// writes — from the bytes there now to the bytes the restore puts back — for every plan kind.

type Plan = ResultOf<'history.plan'>
type Agent = Awaited<ReturnType<typeof agentFixture>>

const paragraph = docxParagraph

/** A project with a two-paragraph report and a notes file, and a turn that edits both. */
async function editedReport(options: { restoreDocumentBudgetMs?: number } = {}) {
  const original = Buffer.from(
    await makeDocx(paragraph('Quarterly report') + paragraph('Revenue grew by ten percent this quarter.')),
  )
  const root = tempDir('retrace-restore-docs-')
  writeFileSync(join(root, 'report.docx'), original)
  writeFileSync(join(root, 'notes.txt'), 'first\n')
  const llm = await scriptedModel(
    [
      { id: 'r1', name: 'read', input: { file_path: 'report.docx' } },
      { id: 'r2', name: 'read', input: { file_path: 'notes.txt' } },
    ],
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
      { id: 'w1', name: 'write', input: { file_path: 'notes.txt', content: 'second\n' } },
    ],
  )
  const agent = await agentFixture(root, llm, options)
  const turnId = await agent.prompt('update the report')
  await agent.finished(turnId, 30_000)
  for (const part of toolParts(await agent.turn(turnId)))
    expect(part, JSON.stringify(part.error)).toMatchObject({ state: 'completed' })
  return { root, original, agent, turnId }
}

async function plan(agent: Agent, payload: Record<string, unknown>): Promise<Plan> {
  return resultOf(await agent.session('history.plan', payload)) as Plan
}

const words = (segments: ReadonlyArray<{ kind: string; text: string }>, kind: 'added' | 'removed') =>
  segments
    .filter((segment) => segment.kind === kind)
    .map((segment) => segment.text)
    .join('')

/** The undo of the turn's DOCX edit, as its preview must show it: the inserted paragraph goes, "twelve" becomes "ten". */
function expectUndoOfReport(planned: Plan) {
  expect(planned.status).toBe('ready')
  // Only the document: the text file the turn wrote is shown as a path, as before.
  expect(planned.documents?.map((document) => document.path)).toEqual(['report.docx'])
  const [document] = planned.documents ?? []
  expect(document?.counts).toEqual({ unit: 'paragraph', added: 0, removed: 1, changed: 1 })
  const diff = document?.diff
  expect(diff?.kind).toBe('docx')
  if (diff?.kind !== 'docx') return
  const changed = diff.entries.find((entry) => entry.change === 'changed')
  expect(changed && words(changed.segments, 'added')).toContain('ten')
  expect(changed && words(changed.segments, 'removed')).toContain('twelve')
  const removed = diff.entries.find((entry) => entry.change === 'removed')
  expect(removed && words(removed.segments, 'removed')).toContain('Costs fell by three percent.')
}

describe('restore previews show what changes inside documents', () => {
  test('the undo plan of a turn that edited a DOCX carries the document diff with the changed words; Undo is byte-exact', async () => {
    const { root, original, agent, turnId } = await editedReport()
    const planned = await plan(agent, { operation: 'undo', turn_id: turnId })
    expectUndoOfReport(planned)
    // Planning is read-only, documents included.
    expect(readFileSync(join(root, 'report.docx')).equals(original)).toBe(false)

    expect(resultOf(await agent.session('history.apply', { plan_hash: planned.plan_hash }))).toMatchObject({
      status: 'committed',
    })
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), original)).toBe(0)
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('first\n')

    // The Redo's preview shows the same change the other way round.
    const redo = await plan(agent, { operation: 'redo', turn_id: turnId })
    expect(redo.documents?.[0]?.counts).toEqual({ unit: 'paragraph', added: 1, removed: 0, changed: 1 })
    const diff = redo.documents?.[0]?.diff
    const changed = diff?.kind === 'docx' ? diff.entries.find((entry) => entry.change === 'changed') : undefined
    expect(changed && words(changed.segments, 'added')).toContain('twelve')
  }, 120_000)

  test('a rewind plan to before the turn carries the same document diff', async () => {
    const { root, original, agent, turnId } = await editedReport()
    const planned = await plan(agent, {
      operation: 'rewind',
      turn_id: turnId,
      boundary: 'before_turn',
      mode: 'code',
    })
    expect(planned.kind).toBe('rewind')
    expectUndoOfReport(planned)
    expect(resultOf(await agent.session('history.apply', { plan_hash: planned.plan_hash }))).toMatchObject({
      status: 'committed',
    })
    expect(Buffer.compare(readFileSync(join(root, 'report.docx')), original)).toBe(0)
  }, 120_000)

  test('a blocked plan compares with the bytes there now: a document the person changed since shows their change going too', async () => {
    const { root, agent, turnId } = await editedReport()
    const typed = Buffer.from(
      await makeDocx(paragraph('Quarterly report') + paragraph('Revenue grew by eleven percent this quarter.')),
    )
    writeFileSync(join(root, 'report.docx'), typed)
    const planned = await plan(agent, { operation: 'rewind', turn_id: turnId, boundary: 'before_turn', mode: 'code' })
    expect(planned.status).toBe('blocked')
    const diff = planned.documents?.[0]?.diff
    const changed = diff?.kind === 'docx' ? diff.entries.find((entry) => entry.change === 'changed') : undefined
    expect(changed && words(changed.segments, 'removed')).toContain('eleven')
    expect(changed && words(changed.segments, 'added')).toContain('ten')
    expect(readFileSync(join(root, 'report.docx')).equals(typed)).toBe(true)
  }, 120_000)

  test('past the preview’s budget a document is listed without counts or diff, and the plan is still ready', async () => {
    const { agent, turnId } = await editedReport({ restoreDocumentBudgetMs: 0 })
    const planned = await plan(agent, { operation: 'undo', turn_id: turnId })
    expect(planned.status).toBe('ready')
    expect(planned.documents).toEqual([{ path: 'report.docx', counts: null, diff: null }])
  }, 120_000)

  test('the revert plan of a turn that set an XLSX cell lists the cells going back, its dependent formulas too', async () => {
    const original = Buffer.from(await makeXlsx())
    const root = tempDir('retrace-restore-docs-')
    writeFileSync(join(root, 'numbers.xlsx'), original)
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
    const planned = await plan(agent, { operation: 'revert', turn_id: turnId })
    expect(planned.status).toBe('ready')
    const [document] = planned.documents ?? []
    expect(document?.counts?.unit).toBe('cell')
    const diff = document?.diff
    expect(diff?.kind).toBe('xlsx')
    if (diff?.kind !== 'xlsx') return
    const data = diff.sheets.find((sheet) => sheet.name === 'Data')
    expect(data?.cells.find((cell) => cell.address === 'A1')).toMatchObject({
      before: { value: '15.00' },
      after: { value: '10.00' },
    })
    expect(data?.cells.find((cell) => cell.address === 'A4')).toMatchObject({
      before: { value: '65.00', formula: 'SUM(A1:A3)' },
      after: { value: '60.00', formula: 'SUM(A1:A3)' },
    })
    expect(document?.counts?.changed).toBe(diff.counts.cells)
    expect(resultOf(await agent.session('history.apply', { plan_hash: planned.plan_hash }))).toMatchObject({
      status: 'committed',
    })
    expect(Buffer.compare(readFileSync(join(root, 'numbers.xlsx')), original)).toBe(0)
  }, 120_000)
})
