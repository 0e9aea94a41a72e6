import { useSyncExternalStore } from 'react'
import { Emitter } from '../../../shared/emitter'

/** A small state container outside React: views read it with `useStore`, a re-mount loses nothing. */
export interface Store<T> {
  get(): T
  set(next: T | ((current: T) => T)): void
  subscribe(listener: () => void): () => void
}

export function createStore<T>(initial: T): Store<T> {
  let state = initial
  const changes = new Emitter<void>()
  return {
    get: () => state,
    set(next) {
      const value = typeof next === 'function' ? (next as (current: T) => T)(state) : next
      if (Object.is(value, state)) return
      state = value
      changes.fire()
    },
    subscribe: changes.on,
  }
}

/** Reads a slice of a store; re-renders only when that slice changes (by `Object.is`). */
export function useStore<T, S = T>(store: Store<T>, select: (state: T) => S = (s) => s as unknown as S): S {
  // Selectors return parts of the state (never fresh objects), so equal state gives equal slices.
  return useSyncExternalStore(store.subscribe, () => select(store.get()))
}
