import { SimulatedCrash as BaseSimulatedCrash } from '../src/main/core/journal'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { createCore, type Core } from '../src/main/core'
import { FAULT_PHASES, planApplyPatch, type FaultPhase } from '../src/main/core/journal'
import { openProject, testHost } from './support/core'
import { sendUntyped } from './support/protocol'
import { tempDir } from './support/temp'

const NAMES = ['a.txt', 'b.txt', 'c.txt'] as const
type Name = (typeof NAMES)[number]
type Tree = Partial<Record<Name, string>>

type Step =
  | { kind: 'turn'; edits: Array<{ name: Name; content: string | null }> }
  | { kind: 'undo'; crash: FaultPhase | null }
  | { kind: 'redo'; crash: FaultPhase | null }
  | { kind: 'revert'; pick: number; crash: FaultPhase | null }
  | { kind: 'reapply'; pick: number; crash: FaultPhase | null }
  | { kind: 'external'; name: Name; content: string }

const line = fc.stringMatching(/^[a-z]{1,6}$/)
const crash = fc.option(fc.constantFrom(...FAULT_PHASES), { nil: null, freq: 3 })

class SimulatedCrash extends BaseSimulatedCrash {}
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      edits: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), content: fc.option(line, { nil: null }) }), {
        minLength: 1,
        maxLength: 3,
        selector: (e) => e.name,
      }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('undo' as const), crash }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redo' as const), crash }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revert' as const), pick: fc.nat(), crash }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reapply' as const), pick: fc.nat(), crash }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('external' as const), name: fc.constantFrom(...NAMES), content: line }),
  },
)

/**
 * Turns, undo/redo/revert/reapply (some crashing at a random phase) and an external writer in
 * random order. Whatever happens: a
 * refused restore changes nothing; a committed one leaves each of the turn's files exactly at the
 * turn's before (undo, revert) or after (redo, reapply) state; bytes an external writer left that
 * no journal record knows of are never overwritten.
 */
test('history operations, in any order with an external writer, only ever reach provable states', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 9 }), async (steps) => {
      const root = tempDir()
      const dataDir = tempDir()
      let armed: FaultPhase | null = null
      // A crash is simulated by the fault hook throwing at that phase; the core is then dropped and
      // a new one recovers from the data directory, as after a kill.
      const fault = (phase: FaultPhase) => {
        if (phase !== armed) return
        armed = null
        throw new SimulatedCrash(phase)
      }
      let core: Core = createCore({ dataDir, host: testHost(), fault })
      const project = await openProject(core, root)
      const created = await project.call('session.create', {})
      const sessionId = (created as { result: { session_id: string } }).result.session_id
      const owner = { project_id: project.projectId, session_id: sessionId }
      const call = (action: string, payload: unknown, key?: string) =>
        sendUntyped(core, action, payload, { owner, ...(key ? { key } : {}) })
      const disk = (): Tree =>
        Object.fromEntries(
          NAMES.flatMap((n) => (existsSync(join(root, n)) ? [[n, readFileSync(join(root, n), 'utf8')]] : [])),
        )
      const turns: Array<{ id: string; before: Tree; after: Tree; names: Name[] }> = []
      const externallyDirty = new Set<Name>()

      for (const s of steps) {
        const now = disk()
        if (s.kind === 'external') {
          writeFileSync(join(root, s.name), `${s.content}\n`)
          externallyDirty.add(s.name)
          continue
        }
        if (s.kind === 'turn') {
          const sections = s.edits.flatMap(({ name, content }) => {
            const current = now[name]
            if (content === null) return current === undefined ? [] : [`*** Delete File: ${name}`]
            if (current === undefined) return [`*** Add File: ${name}`, `+${content}`]
            return [
              `*** Update File: ${name}`,
              ...current
                .trimEnd()
                .split('\n')
                .map((l) => `-${l}`),
              `+${content}`,
            ]
          })
          if (sections.length === 0) continue
          const begun = await core.turns.begin(project.projectId, sessionId, 'edit')
          if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun))
          const applied = await core.turns.mutate(project.projectId, begun.result, (context) =>
            planApplyPatch(context, ['*** Begin Patch', ...sections, '*** End Patch'].join('\n')),
          )
          await core.turns.finalize(project.projectId, begun.result, { parts: [], status: 'complete' })
          if (applied.kind === 'ok') {
            const names = applied.result.files.map((f) => f.path as Name)
            turns.push({ id: begun.result.turn_id, before: now, after: disk(), names })
            for (const name of names) externallyDirty.delete(name)
          }
          continue
        }
        const target =
          s.kind === 'revert' || s.kind === 'reapply' ? turns[s.pick % Math.max(1, turns.length)] : undefined
        if ((s.kind === 'revert' || s.kind === 'reapply') && !target) continue
        const planned = await call(
          'history.plan',
          target ? { operation: s.kind, turn_id: target.id } : { operation: s.kind },
        )
        if (planned.status !== 'ok') {
          expect(disk()).toEqual(now)
          continue
        }
        const plan = planned.result as { plan_hash: string; turn_id: string; status: string }
        armed = s.crash
        const applied = await call('history.apply', { plan_hash: plan.plan_hash }, randomUUID())
        const turn = turns.find((t) => t.id === plan.turn_id)
        const backwards = s.kind === 'undo' || s.kind === 'revert'
        if (s.crash !== null && armed === null && turn) {
          // Crashed mid-restore: restart, recover, and the turn's files are all old or all new.
          core.dispose()
          core = createCore({ dataDir, host: testHost(), fault })
          await core.ready
          const recovered = disk()
          const target = backwards ? turn.before : turn.after
          const allOld = turn.names.every((n) => recovered[n] === now[n])
          const allNew = turn.names.every((n) => recovered[n] === target[n])
          expect(allOld || allNew, `after a crash at ${s.crash}: ${JSON.stringify({ now, recovered, target })}`).toBe(
            true,
          )
          for (const name of externallyDirty) expect(recovered[name]).toBe(now[name])
          continue
        }
        armed = null
        const after = disk()
        if (applied.status !== 'ok') {
          expect(after, `refused ${s.kind} must write nothing`).toEqual(now)
          continue
        }
        expect(plan.status).toBe('ready')
        if (!turn) throw new Error('restore of an unknown turn')
        for (const name of turn.names) {
          expect(after[name], `${s.kind} of ${name}`).toBe((backwards ? turn.before : turn.after)[name])
        }
        for (const name of externallyDirty) expect(after[name], `external bytes of ${name} kept`).toBe(now[name])
      }
      core.dispose()
    }),
    { numRuns: 30, seed: 20261201 },
  )
})
