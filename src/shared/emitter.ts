import type { Disposable } from './disposable'

/**
 * What a subscription returns: call it (the shape `useSyncExternalStore` and cleanup functions
 * want) or `dispose()` it (the shape owners collect). Either way it is idempotent.
 */
export type Subscription = (() => void) & Disposable

/** The subscribe side of an emitter, handed to whoever may listen but must not fire. */
export type Listen<T> = (listener: (value: T) => void) => Subscription

/**
 * One typed event source. Each `on` is its own subscription even for the same function twice (a
 * React effect that subscribes, unsubscribes and subscribes again must not lose its listener to a
 * shared Set entry).
 */
export class Emitter<T> {
  private readonly entries = new Set<{ readonly listener: (value: T) => void }>()

  constructor(private readonly onListenerError: (error: unknown) => void = rethrowLater) {}

  readonly on: Listen<T> = (listener) => {
    const entry = { listener }
    this.entries.add(entry)
    const unsubscribe = () => {
      this.entries.delete(entry)
    }
    return Object.assign(unsubscribe, { dispose: unsubscribe })
  }

  /**
   * Listeners registered while firing wait for the next value; one removed while firing is not
   * called. A throwing listener is a bug in that listener: it is reported (by default re-thrown
   * on a microtask, where the host's error handler sees it) and the others still hear the value.
   */
  fire(value: T): void {
    for (const entry of [...this.entries]) {
      if (!this.entries.has(entry)) continue
      try {
        entry.listener(value)
      } catch (error) {
        this.onListenerError(error)
      }
    }
  }

  get listenerCount(): number {
    return this.entries.size
  }

  /** Drops every listener; later `fire`s reach no one. */
  dispose(): void {
    this.entries.clear()
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error
  })
}
