/** Median wall time of `runs` calls after `warmup` unmeasured ones; medians resist scheduler noise. */
export async function medianMs(fn: () => Promise<unknown> | unknown, runs = 15, warmup = 3): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

export function report(name: string, subjectMs: number, baselineMs: number, budget?: number): void {
  const ratio = subjectMs / baselineMs
  const verdict =
    budget === undefined ? '' : ratio <= budget ? `  (budget ≤ ${budget}×: met)` : `  (budget ≤ ${budget}×: MISSED)`
  process.stdout.write(
    `${name.padEnd(58)} ${subjectMs.toFixed(2).padStart(9)} ms vs ${baselineMs.toFixed(2).padStart(9)} ms  = ${ratio.toFixed(2)}×${verdict}\n`,
  )
}

/**
 * Medians of subject and baseline measured alternately, so a drift in disk or CPU speed during the
 * run (common on shared machines, where fsync latency wanders) hits both sides alike.
 */
export async function medianPairMs(
  subject: () => Promise<unknown> | unknown,
  baseline: () => Promise<unknown> | unknown,
  runs = 25,
  warmup = 3,
): Promise<[number, number]> {
  for (let i = 0; i < warmup; i++) {
    await subject()
    await baseline()
  }
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < runs; i++) {
    for (const [fn, into] of [
      [subject, a],
      [baseline, b],
    ] as const) {
      const started = process.hrtime.bigint()
      await fn()
      into.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN
  return [median(a), median(b)]
}
