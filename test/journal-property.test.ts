import { SimulatedCrash as BaseSimulatedCrash } from '../src/main/core/journal'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { createCore } from '../src/main/core'
import { FAULT_PHASES, type FaultPhase } from '../src/main/core/journal'
import { digestOf } from '../src/main/core/store'
import { testHost } from './support/core'
import { tempDir } from './support/temp'
import { send, sendUntyped } from './support/protocol'

const NAMES = ['a.txt', 'b.txt', 'c.txt'] as const
type Name = (typeof NAMES)[number]

type Step =
  | { kind: 'write'; name: Name; content: string; stale: boolean }
  | { kind: 'delete'; name: Name }
  | { kind: 'rename'; from: Name; to: Name }
  | { kind: 'external'; name: Name; content: string }
  | { kind: 'crash'; phase: FaultPhase; name: Name; content: string }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    name: fc.constantFrom(...NAMES),
    content: fc.string({ maxLength: 20 }),
    stale: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...NAMES), to: fc.constantFrom(...NAMES) }),
  fc.record({
    kind: fc.constant('external' as const),
    name: fc.constantFrom(...NAMES),
    content: fc.string({ maxLength: 20 }),
  }),
  fc.record({
    kind: fc.constant('crash' as const),
    phase: fc.constantFrom(...FAULT_PHASES),
    name: fc.constantFrom(...NAMES),
    content: fc.string({ maxLength: 20 }),
  }),
)

class SimulatedCrash extends BaseSimulatedCrash {}

/**
 * Random operation sequences with an external writer and crashes at random phases (the fault hook
 * throws; the core is then dropped and a new one recovers from disk, as after a kill). Checked
 * against a model of what the user must see: no lost bytes, no false `committed`, external writes
 * never overwritten.
 */
test('randomised operations, crash points and an external writer never lose or overwrite bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
      const root = tempDir()
      const dataDir = tempDir()
      const model = new Map<Name, string>()
      let armed: FaultPhase | null = null
      const fault = (phase: FaultPhase) => {
        if (phase === armed) {
          armed = null
          throw new SimulatedCrash(phase)
        }
      }
      let core = createCore({ dataDir, host: testHost(), fault })
      let projectId = ''
      const open = async () => {
        const opened = await send(core, 'project.open', { path: root })
        projectId = (opened as { result: { project_id: string } }).result.project_id
      }
      await open()
      const call = (action: string, payload: unknown) =>
        sendUntyped(core, action, payload, { owner: { project_id: projectId } })
      const revisionOf = (name: Name) => (model.has(name) ? digestOf(Buffer.from(model.get(name) ?? '')) : null)
      const disk = () =>
        new Map(
          NAMES.flatMap((n) => (existsSync(join(root, n)) ? [[n, readFileSync(join(root, n), 'utf8')] as const] : [])),
        )

      for (const s of steps) {
        if (s.kind === 'external') {
          writeFileSync(join(root, s.name), s.content)
          model.set(s.name, s.content)
          continue
        }
        if (s.kind === 'crash') {
          armed = s.phase
          let crashed = false
          try {
            await call('files.write', { path: s.name, content: s.content, expected_revision: revisionOf(s.name) })
          } catch (error) {
            if (!(error instanceof SimulatedCrash)) throw error
            crashed = true
          }
          // The dispatcher turns a throwing handler into INTERNAL; either way, restart and recover.
          armed = null
          core.dispose()
          core = createCore({ dataDir, host: testHost(), fault })
          await core.ready
          await open()
          // Whatever recovery decided, the file holds exactly the old or the new bytes, and the
          // journal agrees with the disk.
          const now = disk().get(s.name)
          const before = model.get(s.name)
          expect([before, s.content], `crash at ${s.phase} (${crashed})`).toContain(now)
          const receipts = await send(core, 'journal.transactions', {}, { owner: { project_id: projectId } })
          const last = (
            receipts as { result: { transactions: Array<{ status: string; files: Array<{ path: string }> }> } }
          ).result.transactions.at(-1)
          if (now === s.content && now !== before) expect(last?.status).toBe('committed')
          if (last?.files[0]?.path === s.name && last.status === 'committed') expect(now).toBe(s.content)
          if (now === undefined) model.delete(s.name)
          else model.set(s.name, now)
          continue
        }
        if (s.kind === 'write') {
          const expected = s.stale ? digestOf(Buffer.from(`stale:${s.content}`)) : revisionOf(s.name)
          const response = await call('files.write', { path: s.name, content: s.content, expected_revision: expected })
          if (s.stale && expected !== revisionOf(s.name)) expect(response.status).toBe('error')
          if (response.status === 'ok') model.set(s.name, s.content)
        } else if (s.kind === 'delete') {
          const response = await call('files.delete', { path: s.name, expected_revision: revisionOf(s.name) })
          if (model.has(s.name)) expect(response.status).toBe('ok')
          if (response.status === 'ok') model.delete(s.name)
        } else {
          const response = await call('files.rename', {
            from: s.from,
            to: s.to,
            expected_revision: revisionOf(s.from) ?? digestOf(Buffer.from('')),
          })
          const allowed = model.has(s.from) && !model.has(s.to) && s.from !== s.to
          expect(response.status).toBe(allowed ? 'ok' : 'error')
          if (response.status === 'ok') {
            model.set(s.to, model.get(s.from) ?? '')
            model.delete(s.from)
          }
        }
        expect(disk()).toEqual(model)
      }
      expect(disk()).toEqual(model)
      core.dispose()
    }),
    { numRuns: 40, seed: 1201 },
  )
})
