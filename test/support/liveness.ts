import { randomUUID } from 'node:crypto'
import type { ResponseEnvelope } from '../../src/shared/protocol'

export interface Liveness {
  /** app.info answers received while watching (each one `ok`, or the watch fails). */
  readonly answers: number
  /** The slowest app.info, request to answer: a blocked event loop shows up here. */
  readonly maxLatencyMs: number
  /** Peak resident memory of this process (the engine runs in it) over the start of the watch. */
  readonly rssGrowthMiB: number
}

/**
 * Asks `app.info` every 10 ms and samples RSS while `work` runs: a liveness probe of the engine's
 * event loop and a memory bound, for tests of hostile inputs.
 */
export async function watchEngine<T>(
  core: { handle(raw: unknown): Promise<ResponseEnvelope> },
  work: () => Promise<T>,
): Promise<{ value: T; liveness: Liveness }> {
  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10)
  let answers = 0
  let maxLatencyMs = 0
  let watching = true
  let failure: unknown
  const probe = (async () => {
    while (watching) {
      const started = performance.now()
      const answer = await core.handle({ request_id: randomUUID(), action: 'app.info', owner: {}, payload: {} })
      if (answer.status !== 'ok') failure ??= new Error(`app.info answered ${JSON.stringify(answer)}`)
      maxLatencyMs = Math.max(maxLatencyMs, performance.now() - started)
      if (!watching) break
      answers++
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  let value: T
  try {
    value = await work()
  } finally {
    watching = false
    clearInterval(sampler)
    await probe
  }
  if (failure) throw failure
  return { value, liveness: { answers, maxLatencyMs, rssGrowthMiB: (peak - rssBefore) / 1024 / 1024 } }
}
