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
