import { writeFileSync } from 'node:fs'

/**
 * Crash-test hook (spec 12). `RETRACE_FAULT` is a comma-separated list of rules:
 * - `<phase>` or `<phase>@<n>`: SIGKILL this process the n-th time the phase is reached;
 * - `<phase>@<n>:external=<absolute path>`: at that point write to the path instead, as another
 *   program would, so tests can drive the engine into a rollback and then kill it there.
 */
export const FAULT_PHASES = [
  'after-prepare',
  'after-blobs',
  'after-temp-write',
  'after-publish-file',
  'before-commit',
  'after-commit',
] as const
/** Reached after each file a failed transaction put back. */
export const ROLLBACK_FAULT_PHASE = 'during-rollback'
/** Reached once a restore intent is durable, before its transaction is prepared. */
export const INTENT_FAULT_PHASE = 'after-intent'
export type FaultPhase = (typeof FAULT_PHASES)[number] | typeof ROLLBACK_FAULT_PHASE | typeof INTENT_FAULT_PHASE

export type FaultHook = (phase: FaultPhase) => void

/**
 * Thrown by an in-process fault hook (the randomised tests) to stop the engine where a SIGKILL
 * would: nothing after it may run, so the engine lets it through without settling anything.
 */
export class SimulatedCrash extends Error {}

interface FaultRule {
  readonly phase: string
  readonly nth: number
  readonly external: string | undefined
}

function parseRule(text: string): FaultRule {
  const [where = '', action] = text.split(':')
  const [phase = '', nth] = where.split('@')
  const external = action?.startsWith('external=') ? action.slice('external='.length) : undefined
  return { phase, nth: Number(nth ?? '1'), external }
}

export function faultHookFromEnv(value: string | undefined): FaultHook {
  if (!value) return () => {}
  const rules = value.split(',').map(parseRule)
  const seen = new Map<string, number>()
  return (reached) => {
    const count = (seen.get(reached) ?? 0) + 1
    seen.set(reached, count)
    for (const rule of rules) {
      if (rule.phase !== reached || rule.nth !== count) continue
      if (rule.external !== undefined)
        writeFileSync(rule.external, 'written by another program during the crash test\n')
      else process.kill(process.pid, 'SIGKILL')
    }
  }
}
