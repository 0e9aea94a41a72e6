import { ACTIONS, isActionName } from '../../shared/protocol'

/** A request that changes files or history (it carries an idempotency key): a save, in quit terms. */
export function isMutatingRequest(frame: unknown): boolean {
  const action = (frame as { action?: unknown } | null)?.action
  return typeof action === 'string' && isActionName(action) && ACTIONS[action].mutating
}

/**
 * The mutating requests the windows sent that the engine has not answered yet. Quitting waits for
 * them: each is one journal transaction, which either commits or leaves nothing behind.
 */
export class InFlightWrites {
  private count = 0
  private readonly idle = new Set<() => void>()

  get size(): number {
    return this.count
  }

  /** Counts one request until the returned function is called (once). */
  begin(): () => void {
    this.count += 1
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.count -= 1
      if (this.count === 0) for (const resolve of [...this.idle]) resolve()
    }
  }

  /** Resolves true once nothing is in flight, or false when `limitMs` passes first. */
  settled(limitMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer)
        this.idle.delete(onIdle)
        resolve(value)
      }
      const onIdle = () => done(true)
      const timer = setTimeout(() => done(false), limitMs)
      this.idle.add(onIdle)
    })
  }
}
