import { useCallback, useEffect, useRef, useState } from 'react'
import type { PayloadOf, ResultOf, ReviewCategory } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import type { RequestOutcome } from '../../transport'

export type ReviewScope = 'turn' | 'branch' | 'workspace'
export type SubScope = 'all' | 'unstaged' | 'staged' | 'branch' | 'commit'
export type ReviewSort = 'path' | 'churn' | 'size'
export type ReviewList = ResultOf<'review.files'>
export type ReviewFile = ReviewList['files'][number]

export interface ReviewQuery {
  readonly scope: ReviewScope
  readonly turnId: string | null
  readonly subScope: SubScope
  readonly category: ReviewCategory | null
  /** `command`: This turn's "Changed by commands" filter (issue 16). */
  readonly source: 'command' | null
  readonly query: string
  readonly sort: ReviewSort
}

type State =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'ready'; snapshotId: string; files: ReviewFile[]; totals: ReviewList['totals']; next: string | null }

/**
 * The file list of one review query. The server filters, sorts and pages (spec 07); this keeps the
 * pages of one snapshot in order and starts over on STALE_SNAPSHOT or any query change.
 */
export function useReview(projectId: string, sessionId: string | null, query: ReviewQuery) {
  const client = useClient()
  const [state, setState] = useState<State>({ kind: 'idle' })
  const [staleNotice, setStaleNotice] = useState(false)
  const generation = useRef(0)

  const payloadOf = useCallback(
    (cursor?: string): PayloadOf<'review.files'> => ({
      scope: query.scope,
      ...(query.scope === 'turn' && query.turnId ? { turn_id: query.turnId } : {}),
      ...(query.scope === 'workspace' && query.subScope !== 'all' ? { sub_scope: query.subScope } : {}),
      ...(query.category || query.query.trim() || (query.scope === 'turn' && query.source)
        ? {
            filter: {
              ...(query.category ? { category: query.category } : {}),
              ...(query.scope === 'turn' && query.source ? { source: query.source } : {}),
              ...(query.query.trim() ? { query: query.query.trim() } : {}),
            },
          }
        : {}),
      sort: query.sort,
      ...(cursor ? { cursor } : {}),
    }),
    [query],
  )

  const apply = useCallback((mine: number, outcome: RequestOutcome<ReviewList>, append: boolean) => {
    if (mine !== generation.current) return
    if (outcome.kind === 'ok') {
      const { snapshot_id, files, totals, next_cursor } = outcome.result
      setState((current) =>
        append && current.kind === 'ready'
          ? { kind: 'ready', snapshotId: snapshot_id, files: [...current.files, ...files], totals, next: next_cursor }
          : { kind: 'ready', snapshotId: snapshot_id, files, totals, next: next_cursor },
      )
    } else if (outcome.kind === 'error') {
      setState({ kind: 'error', message: outcome.error.message })
    } else if (outcome.kind === 'timeout') {
      setState({ kind: 'error', message: 'timeout' })
    }
  }, [])

  // Workspace review needs no session; This turn and Current branch are a session's.
  const needsSession = query.scope !== 'workspace'
  const ownerOf = useCallback(
    () => (sessionId === null ? { project_id: projectId } : { project_id: projectId, session_id: sessionId }),
    [projectId, sessionId],
  )
  const load = useCallback(() => {
    if ((needsSession && sessionId === null) || (query.scope === 'turn' && !query.turnId)) return
    const mine = ++generation.current
    void client
      .request('review.files', payloadOf(), { owner: ownerOf() })
      .then((outcome) => apply(mine, outcome, false))
  }, [client, needsSession, sessionId, query, payloadOf, apply, ownerOf])

  useEffect(() => {
    load()
  }, [load])
  // A restore, a turn or another client changed files: rescan, so comments written against the old
  // snapshot are marked stale instead of being sent against another version.
  useEffect(
    () =>
      client.onEvent((frame) => {
        if (frame.event === 'workspace.changed') load()
      }),
    [client, load],
  )

  const loadMore = useCallback(() => {
    if (state.kind !== 'ready' || state.next === null) return
    const mine = generation.current
    void client.request('review.files', payloadOf(state.next), { owner: ownerOf() }).then((outcome) => {
      if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
        // Never mix pages of two scans: start over from page one and say so.
        setStaleNotice(true)
        load()
        return
      }
      apply(mine, outcome, true)
    })
  }, [client, state, ownerOf, payloadOf, apply, load])

  return { state, loadMore, reload: load, staleNotice, dismissStale: () => setStaleNotice(false) }
}
