import { useEffect, useState } from 'react'
import type { ContentFileMatches, ContentSearchStop, PayloadOf } from '../../../../shared/protocol'
import type { RequestClient } from '../../transport'
import type { FailedOutcome } from '../../ui/outcome-message'

export type ContentQuery = Omit<PayloadOf<'files.search_content'>, 'cursor'>

export interface ContentResults {
  readonly kind: 'ready'
  readonly key: string
  readonly files: readonly ContentFileMatches[]
  readonly next: string | null
  readonly done: boolean
  readonly stopped: ContentSearchStop
  readonly loadingMore: boolean
}

export type ContentSearchState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'searching'; readonly previous: ContentResults | null }
  | ContentResults
  | { readonly kind: 'error'; readonly failure: FailedOutcome }

/** Quiet time after a keystroke before asking the engine. */
const DEBOUNCE_MS = 200
/**
 * Longer than the engine's own 30 s bound on a search, so a search that hits it answers with what
 * it found (`stopped: time`) instead of the client giving up first.
 */
const REQUEST_TIMEOUT_MS = 40_000

/**
 * `files.search_content` for a box that changes as the person types: every change aborts the
 * request in flight (the engine stops the superseded search itself too) and starts again from page
 * one; `loadMore` follows the snapshot's cursor, and a stale cursor starts the query again.
 */
export function useContentSearch(
  client: RequestClient,
  projectId: string,
  query: ContentQuery | null,
): { state: ContentSearchState; loadMore: () => void } {
  const [state, setState] = useState<ContentSearchState>({ kind: 'idle' })
  const [generation, setGeneration] = useState(0)
  const key = query === null ? null : JSON.stringify(query)

  useEffect(() => {
    if (key === null) return
    const payload = JSON.parse(key) as ContentQuery
    const controller = new AbortController()
    const timer = setTimeout(() => {
      setState((current) => ({
        kind: 'searching',
        previous: current.kind === 'ready' ? current : current.kind === 'searching' ? current.previous : null,
      }))
      void client
        .request('files.search_content', payload, {
          owner: { project_id: projectId },
          signal: controller.signal,
          timeoutMs: REQUEST_TIMEOUT_MS,
        })
        .then((outcome) => {
          if (outcome.kind === 'cancelled' || controller.signal.aborted) return
          if (outcome.kind !== 'ok') {
            setState({ kind: 'error', failure: outcome })
            return
          }
          const { files, next_cursor, done, stopped } = outcome.result
          setState({ kind: 'ready', key, files, next: next_cursor, done, stopped, loadingMore: false })
        })
    }, DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [client, projectId, key, generation])

  const loadMore = () => {
    if (state.kind !== 'ready' || state.next === null || state.loadingMore || key === null) return
    const asked = state.key
    const payload = { ...(JSON.parse(asked) as ContentQuery), cursor: state.next }
    setState({ ...state, loadingMore: true })
    const options = { owner: { project_id: projectId }, timeoutMs: REQUEST_TIMEOUT_MS }
    void client.request('files.search_content', payload, options).then((outcome) => {
      if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
        setGeneration((g) => g + 1)
        return
      }
      setState((current) => {
        if (current.kind !== 'ready' || current.key !== asked) return current
        if (outcome.kind !== 'ok') return { ...current, loadingMore: false }
        const { files, next_cursor, done, stopped } = outcome.result
        return { ...current, files: [...current.files, ...files], next: next_cursor, done, stopped, loadingMore: false }
      })
    })
  }
  // An emptied box shows nothing, whatever the last answer was.
  return { state: key === null ? { kind: 'idle' } : state, loadMore }
}
