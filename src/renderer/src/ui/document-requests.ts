import { createSignal } from './commands'

/**
 * Asks the open view of a project's file to take a view state now (a search match in a tab that is
 * already on screen: its editor moves to the match). A tab that mounts later restores the state
 * from the tab model instead; nothing is replayed.
 */
export const documentViewRequests = createSignal<{
  readonly projectId: string
  readonly path: string
  readonly viewState: unknown
}>()
