import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { watchEngine } from './support/liveness'
import { openProject, startCore } from './support/core'
import { craftedDocx, deflatedRepeat, EMPTY_PARAGRAPHS, MiB, paragraphUnit } from './support/office-bombs'
import { makeDocx } from './support/office-fixtures'
import { tempDir } from './support/temp'

/**
 * Crafted Office packages (issue 23 item 9). Each is a valid ZIP written by hand, so an entry can
 * declare any size it likes; its parts are deflate streams of a repeated pattern, small on disk
 * and huge once inflated. The engine must refuse them with a precise TOO_LARGE, keep answering
 * while it does, and not balloon.
 */

type Case = {
  name: string
  build: () => Promise<Buffer>
  /** A TOO_LARGE reason, or the inspection state a lying package gets. */
  expected: { reason: string } | { state: 'corrupt' }
}

const CASES: Case[] = [
  {
    // The file in small: header parts that honestly declare 250 MB each (under the old
    // 256 MiB bound, about 150:1 — under the old ratio bound too), so only their size stops them.
    name: 'header parts that each inflate to 250 MB',
    expected: { reason: 'part-bytes' },
    build: async () => {
      const header = await deflatedRepeat(paragraphUnit(), 250 * 1000 * 1000)
      expect(header.size / header.data.length).toBeLessThan(200)
      return craftedDocx(null, [header, header])
    },
  },
  {
    name: 'header parts each under the part bound that together inflate past the package bound',
    expected: { reason: 'package-bytes' },
    build: async () => {
      const header = await deflatedRepeat(paragraphUnit(), 60 * MiB)
      return craftedDocx(null, [header, header, header])
    },
  },
  {
    name: 'a document part with a 1000:1 compression ratio',
    expected: { reason: 'compression-ratio' },
    build: async () => {
      const body = await deflatedRepeat(EMPTY_PARAGRAPHS, 48 * MiB)
      expect(body.size / body.data.length).toBeGreaterThan(500)
      return craftedDocx({ name: 'word/document.xml', deflated: body }, [])
    },
  },
  {
    // zip.js stops inflating a part at the size it declares: the lie makes the file damaged, and
    // costs no more than the declared bytes.
    name: 'a document part that declares 4 KB and inflates to 512 MiB',
    expected: { state: 'corrupt' },
    build: async () => {
      const body = await deflatedRepeat(paragraphUnit(), 512 * MiB)
      return craftedDocx({ name: 'word/document.xml', deflated: body, declaredSize: 4096 }, [])
    },
  },
  {
    name: 'a 1000:1 document part that declares its stored size',
    expected: { state: 'corrupt' },
    build: async () => {
      const body = await deflatedRepeat(EMPTY_PARAGRAPHS, 48 * MiB)
      return craftedDocx({ name: 'word/document.xml', deflated: body, declaredSize: body.data.length }, [])
    },
  },
]

async function bombProject(name: string, bytes: Buffer, inspectLimits?: { timeMs: number }) {
  const root = tempDir('retrace-office-bomb-')
  writeFileSync(join(root, name), bytes)
  const core = startCore({
    office: {
      detect: async () => ({ kind: 'missing', reason: 'not needed' }),
      ...(inspectLimits ? { inspectLimits } : {}),
    },
  })
  return { core, ...(await openProject(core, root)) }
}

describe('crafted Office packages are refused within bounds', () => {
  test.each(CASES)(
    '$name → $expected; app.info answers throughout, memory stays bounded',
    async (bomb) => {
      const bytes = await bomb.build()
      expect(bytes.length).toBeLessThan(8 * MiB)
      const { core, call } = await bombProject('crafted.docx', bytes)
      const { value: answer, liveness } = await watchEngine(core, () =>
        call('office.inspect', { path: 'crafted.docx' }),
      )
      console.log(
        `${bomb.name}: ${(bytes.length / MiB).toFixed(1)} MiB on disk; app.info ${liveness.answers}× while inspecting, ` +
          `slowest ${liveness.maxLatencyMs.toFixed(0)} ms; RSS +${liveness.rssGrowthMiB.toFixed(0)} MiB`,
      )
      if ('reason' in bomb.expected) {
        expect(answer).toMatchObject({
          status: 'error',
          error: { code: 'TOO_LARGE', details: { path: 'crafted.docx', reason: bomb.expected.reason } },
        })
        expect((answer as { error: { message: string } }).error.message).toMatch(/^"crafted\.docx" cannot be opened: /)
      } else {
        expect(answer).toMatchObject({ status: 'ok', result: { format: 'docx', state: bomb.expected.state } })
      }
      // Liveness, not speed: the engine answered while the file was being inspected, and was never
      // blocked for long (before the fix a single part's scan froze it for seconds).
      expect(liveness.answers).toBeGreaterThanOrEqual(1)
      expect(liveness.maxLatencyMs).toBeLessThan(1_500)
      expect(liveness.rssGrowthMiB).toBeLessThan(384)
    },
    60_000,
  )

  test('preview and convert of a crafted package answer the same TOO_LARGE before any engine sees it', async () => {
    const header = await deflatedRepeat(paragraphUnit(), 100 * MiB)
    const { core, call, projectId } = await bombProject('crafted.docx', craftedDocx(null, [header]))
    expect(await call('office.preview', { path: 'crafted.docx' })).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { reason: 'part-bytes', part: 'word/header1.xml' } },
    })
    const converted = await core.handle({
      request_id: randomUUID(),
      action: 'office.convert',
      owner: { project_id: projectId },
      idempotency_key: randomUUID(),
      payload: { path: 'crafted.docx', to: 'odt' },
    })
    expect(converted).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { reason: 'part-bytes' } },
    })
  })

  test('an inspection past its time budget is stopped and refused as TOO_LARGE (time)', async () => {
    // A 1 ms budget ends every inspection: the worker is terminated wherever it was.
    const plain = Buffer.from(await makeDocx('<w:p><w:r><w:t>Hi</w:t></w:r></w:p>'))
    const { call } = await bombProject('plain.docx', plain, { timeMs: 1 })
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await call('office.inspect', { path: 'plain.docx' })).toMatchObject({
        status: 'error',
        error: { code: 'TOO_LARGE', details: { reason: 'time', limit: 1 } },
      })
    }
  })
})
