/**
 * Crash-test hook (spec 12): `RETRACE_FAULT=<phase>` (or `<phase>@<n>` for the n-th time the phase
 * is reached) SIGKILLs this process at that phase boundary, so tests can prove recovery from it.
 */
export const FAULT_PHASES = [
  'after-prepare',
  'after-blobs',
  'after-temp-write',
  'after-publish-file',
  'before-commit',
  'after-commit',
] as const
export type FaultPhase = (typeof FAULT_PHASES)[number]

export type FaultHook = (phase: FaultPhase) => void

export function faultHookFromEnv(value: string | undefined): FaultHook {
  if (!value) return () => {}
  const [phase, nth] = value.split('@')
  const target = Number(nth ?? '1')
  let seen = 0
  return (reached) => {
    if (reached !== phase) return
    seen += 1
    if (seen === target) process.kill(process.pid, 'SIGKILL')
  }
}
