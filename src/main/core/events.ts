import type { EventDataOf, EventFrame, EventName, Owner } from '../../shared/protocol'
import { toDisposable, type Disposable } from '../../shared/disposable'

export type EventListener = (frame: EventFrame) => void

export interface EventBus {
  emit<E extends EventName>(event: E, owner: Owner, data: EventDataOf<E>): void
  subscribe(listener: EventListener): Disposable
}

export function createEventBus(onListenerError: (error: unknown) => void): EventBus {
  const listeners = new Set<EventListener>()
  return {
    emit(event, owner, data) {
      const frame: EventFrame = { event, owner, data }
      for (const listener of listeners) {
        try {
          listener(frame)
        } catch (error) {
          onListenerError(error)
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return toDisposable(() => listeners.delete(listener))
    },
  }
}
