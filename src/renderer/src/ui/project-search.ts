import { useEffect, useState } from 'react'
import type { SearchEntry } from '../../../shared/protocol'
import type { RequestClient } from '../transport'
import type { FailedOutcome } from './outcome-message'
import { onProjectEvent } from './project-events'

export interface SearchResults {
  readonly kind: 'ready'
  readonly query: string
  readonly entries: readonly SearchEntry[]
  readonly total: number
  readonly next: string | null
  readonly truncated: boolean
}

export type SearchState =
  | { kind: 'idle' }
  /** `previous`: the last answer, still worth showing while the newest keystroke's travels. */
  | { kind: 'searching'; query: string; previous: SearchResults | null }
  | SearchResults
  | { kind: 'error'; query: string; failure: FailedOutcome }

/** Quiet time after typing before asking the engine (a keystroke never waits on a slow answer). */
const DEBOUNCE_MS = 120

/**
 * The engine's project search (`files.search`, spec 08) for a box that changes as the person
 * types: each new query forgets the previous request (its late answer is dropped) and its cursor;
 * a stale cursor or a change in the project restarts from page one.
 */
export function useProjectSearch(
  client: RequestClient,
  projectId: string | null,
  query: string,
  mode: 'files' | 'all',
): { state: SearchState; loadMore: () => void } {
  const [state, setState] = useState<SearchState>({ kind: 'idle' })
  const [generation, setGeneration] = useState(0)

  useEffect(() => {
    if (projectId === null) return
    // Files created, moved or deleted: search again (the engine's index notices on its own).
    return onProjectEvent(client, projectId, (frame) => {
      if (frame.event === 'files.changed' || frame.event === 'workspace.changed') setGeneration((g) => g + 1)
    })
  }, [client, projectId])

  useEffect(() => {
    if (projectId === null) return
    const controller = new AbortController()
    const timer = setTimeout(() => {
      setState((current) =>
        current.kind === 'ready' && current.query === query
          ? current
          : {
              kind: 'searching',
              query,
              previous: current.kind === 'ready' ? current : current.kind === 'searching' ? current.previous : null,
            },
      )
      void client
        .request('files.search', { query, mode }, { owner: { project_id: projectId }, signal: controller.signal })
        .then((outcome) => {
          if (outcome.kind === 'cancelled') return
          if (outcome.kind !== 'ok') {
            setState({ kind: 'error', query, failure: outcome })
            return
          }
          setState({
            kind: 'ready',
            query,
            entries: outcome.result.entries,
            total: outcome.result.total,
            next: outcome.result.next_cursor,
            truncated: outcome.result.truncated,
          })
        })
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [client, projectId, query, mode, generation])

  const loadMore = () => {
    if (state.kind !== 'ready' || state.next === null || projectId === null) return
    const { next, query: asked } = state
    void client
      .request('files.search', { query: asked, mode, cursor: next }, { owner: { project_id: projectId } })
      .then((outcome) => {
        if (outcome.kind === 'ok') {
          setState((current) =>
            current.kind === 'ready' && current.query === asked
              ? {
                  ...current,
                  entries: [...current.entries, ...outcome.result.entries],
                  next: outcome.result.next_cursor,
                }
              : current,
          )
        } else if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
          setGeneration((g) => g + 1)
        }
      })
  }
  return { state, loadMore }
}
