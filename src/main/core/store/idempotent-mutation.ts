import { fail, ok, type Outcome, type ProtocolError } from '../../../shared/protocol'
import type { IdempotencyClaim, IdempotencyStore } from './idempotency'
import { resourceShortageOf } from './storage-errors'

type Stored<T> = { status: 'ok'; result: T } | { status: 'error'; error: ProtocolError }

/** How a journaled mutation ended, as its transaction status says. */
export type SettledStatus = 'committed' | 'aborted' | 'rolled_back' | 'recovery_required'

/** Called from inside the journal's own SQLite transactions (prepare, settle). */
export interface IdempotencyHooks<T> {
  /** The claim is recorded in the same transaction that prepares the mutation. */
  prepared(operationId: string, resultOnSuccess: T): void
  /** Completed (or released) in the same transaction that settles it. */
  settled(status: SettledStatus, result: T): void
}

export interface IdempotentMutations {
  /**
   * Runs one mutating request under spec 02's idempotency: same key and fingerprint replays the
   * stored outcome (or waits for the running one), a different fingerprint is refused with zero
   * writes, a key another process holds is `IN_PROGRESS`. A refusal before prepare, or a mutation
   * that left nothing behind (aborted, rolled back), is not remembered: a retry runs again.
   */
  run<T>(claim: IdempotencyClaim, execute: (hooks: IdempotencyHooks<T>) => Promise<Outcome<T>>): Promise<Outcome<T>>
  /**
   * What `run` would answer without running anything, when the key is already known (a stored
   * outcome, a conflict, one still running); undefined for a new key. For a long step before the
   * mutation (a conversion) that must not run again for a replayed request.
   */
  peek<T>(claim: IdempotencyClaim): Outcome<T> | undefined
}

const WAIT_FOR_RUNNING_MS = 30_000

/** One idempotency flow for every mutating action (file operations, restores, conversions). */
export function createIdempotentMutations(
  idempotency: IdempotencyStore,
  options: {
    /** Runs before a key is looked up: brings records the journal could not settle yet up to date. */
    readonly beforeLookup?: () => void
  } = {},
): IdempotentMutations {
  const running = new Map<string, { fingerprint: string; done: Promise<Outcome<unknown>> }>()

  async function waitFor<T>(done: Promise<Outcome<T>>): Promise<Outcome<T>> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<Outcome<T>>((resolve) => {
      timer = setTimeout(
        () => resolve(fail('IN_PROGRESS', 'This request is still being carried out.')),
        WAIT_FOR_RUNNING_MS,
      )
    })
    try {
      return await Promise.race([done, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  async function execute<T>(
    claim: IdempotencyClaim,
    body: (hooks: IdempotencyHooks<T>) => Promise<Outcome<T>>,
  ): Promise<Outcome<T>> {
    let claimed = false
    let released = false
    const hooks: IdempotencyHooks<T> = {
      prepared(operationId, resultOnSuccess) {
        idempotency.insertRunning(claim, operationId, { status: 'ok', result: resultOnSuccess } satisfies Stored<T>)
        claimed = true
      },
      settled(status, result) {
        if (status === 'committed') {
          idempotency.complete(claim, { status: 'ok', result } satisfies Stored<T>)
        } else if (status === 'aborted' || status === 'rolled_back') {
          // Nothing of this request remains on disk: a retry with the key runs again (as start-up
          // recovery does for an aborted transaction).
          idempotency.forget(claim)
          released = true
        }
      },
    }
    let outcome: Outcome<T>
    try {
      outcome = await body(hooks)
    } catch (error) {
      if (!claimed && /UNIQUE constraint failed: idempotency_records/.test(String(error))) {
        return fail('IN_PROGRESS', 'This request is being carried out by another Retrace process.')
      }
      throw error
    }
    if (outcome.kind === 'error' && claimed && !released) {
      // A refusal that needs the person (recovery_required) replays; so does one found after prepare.
      try {
        idempotency.complete(claim, { status: 'error', error: outcome.error } satisfies Stored<T>)
      } catch (error) {
        // A full disk: the record stays running until the journal settles its transaction (then it
        // is completed or forgotten there, or by start-up recovery). The answer is still this one.
        if (resourceShortageOf(error) === undefined) throw error
      }
    }
    return outcome
  }

  const keyConflict = (claim: IdempotencyClaim) =>
    fail(
      'IDEMPOTENCY_KEY_CONFLICT',
      'This idempotency key was already used for a different request; nothing was written.',
      {
        idempotency_key: claim.key,
      },
    )

  function known<T>(claim: IdempotencyClaim): Outcome<T> | Promise<Outcome<T>> | undefined {
    options.beforeLookup?.()
    const local = running.get(`${claim.ownerKey}\u0000${claim.action}\u0000${claim.key}`)
    if (local) {
      return local.fingerprint === claim.fingerprint ? (waitFor(local.done) as Promise<Outcome<T>>) : keyConflict(claim)
    }
    const existing = idempotency.lookup(claim)
    switch (existing.kind) {
      case 'conflict':
        return keyConflict(claim)
      case 'replay': {
        const stored = existing.response as Stored<T>
        return stored.status === 'ok' ? ok(stored.result) : { kind: 'error', error: stored.error }
      }
      case 'running':
        return fail('IN_PROGRESS', 'This request is still being carried out.', { operation_id: existing.operationId })
      case 'new':
        return undefined
    }
  }

  return {
    peek<T>(claim: IdempotencyClaim): Outcome<T> | undefined {
      const answer = known<T>(claim)
      if (answer instanceof Promise) return fail('IN_PROGRESS', 'This request is still being carried out.')
      return answer
    },
    async run(claim, body) {
      const inFlightKey = `${claim.ownerKey}\u0000${claim.action}\u0000${claim.key}`
      const keyConflict = () =>
        fail(
          'IDEMPOTENCY_KEY_CONFLICT',
          'This idempotency key was already used for a different request; nothing was written.',
          {
            idempotency_key: claim.key,
          },
        )
      const local = running.get(inFlightKey)
      if (local) {
        return local.fingerprint === claim.fingerprint
          ? (waitFor(local.done) as Promise<Outcome<never>>)
          : keyConflict()
      }
      options.beforeLookup?.()
      const existing = idempotency.lookup(claim)
      switch (existing.kind) {
        case 'conflict':
          return keyConflict()
        case 'replay': {
          const stored = existing.response as Stored<never>
          return stored.status === 'ok' ? ok(stored.result) : { kind: 'error', error: stored.error }
        }
        case 'running':
          return fail('IN_PROGRESS', 'This request is still being carried out.', { operation_id: existing.operationId })
        case 'new':
          break
      }
      const done = execute(claim, body)
      running.set(inFlightKey, { fingerprint: claim.fingerprint, done })
      try {
        return await done
      } finally {
        running.delete(inFlightKey)
      }
    },
  }
}
