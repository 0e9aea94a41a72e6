import type { EventDataOf, EventFrame, EventName } from '../../../shared/protocol'
import { toDisposable, type Disposable } from '../../../shared/disposable'

export type EventListener = (frame: EventFrame) => void

/** Every event belongs to a project (spec 02): transports send it only to clients that opened it. */
export interface EventOwner {
  readonly project_id: string
  readonly session_id?: string
}

export interface EventBus {
  emit<E extends EventName>(event: E, owner: EventOwner, data: EventDataOf<E>): void
  subscribe(listener: EventListener): Disposable
}

export function createEventBus(onListenerError: (error: unknown) => void): EventBus {
  const listeners = new Set<EventListener>()
  return {
    emit(event, owner, data) {
      const frame: EventFrame = { event, owner: { ...owner }, data }
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
