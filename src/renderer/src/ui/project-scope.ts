import { createContext, useContext } from 'react'
import type { RequestClient } from '../transport'

/** What a slot's value is made from: its project and the connection its requests travel over. */
export interface ScopeServices {
  readonly projectId: string
  readonly client: RequestClient
}

/**
 * A typed slot in a project's scope (the explorer's tree, its git colours, Review's choices…):
 * created on first use, disposed with the scope when the project closes. The slot object itself is
 * the key, so a feature declares it once, next to the state it holds.
 */
export interface ScopeSlot<T> {
  readonly name: string
  create(services: ScopeServices): T
  /** Releases what the value holds (requests in flight, timers, subscriptions). */
  dispose?(value: T): void
}

/** The part of a project's scope a feature sees: its id and its slots. The app owns the rest. */
export interface ScopeSlots {
  readonly projectId: string
  get<T>(slot: ScopeSlot<T>): T
}

/** The scope of the project on screen, provided by the app around the project's workspace. */
export const ProjectScopeContext = createContext<ScopeSlots | null>(null)

export function useProjectScope(): ScopeSlots {
  const scope = useContext(ProjectScopeContext)
  if (!scope) throw new Error('useProjectScope outside <ProjectScopeContext.Provider>')
  return scope
}

/** The slot's value in the shown project's scope (the same object on every render). */
export function useScopeSlot<T>(slot: ScopeSlot<T>): T {
  return useProjectScope().get(slot)
}
