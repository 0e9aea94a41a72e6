import { useCallback, useEffect, useRef, useState } from 'react'
import type { PayloadOf, ResultOf, ReviewCategory } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { failureMessage } from '../../ui/outcome-message'
import { changedPaths, onProjectEvent } from '../../ui/project-events'

export type ReviewScope = 'turn' | 'branch' | 'workspace'
export type SubScope = 'all' | 'unstaged' | 'staged' | 'branch' | 'commit'
export type ReviewSort = 'path' | 'churn' | 'size'
export type ReviewList = ResultOf<'review.files'>
export type ReviewFile = ReviewList['files'][number]
export type ReviewCommandNotes = NonNullable<ReviewList['command_notes']>

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

/** Identifies a query: a list is only ever shown under the query it answers. */
export function queryKey(query: ReviewQuery): string {
  return JSON.stringify([
    query.scope,
    query.turnId,
    query.subScope,
    query.category,
    query.source,
    query.query.trim(),
    query.sort,
  ])
}

type State =
  | { kind: 'idle' }
  | { kind: 'loading'; key: string }
  | { kind: 'error'; key: string; message: string }
  | {
      kind: 'ready'
      key: string
      snapshotId: string
      files: ReviewFile[]
      totals: ReviewList['totals']
      next: string | null
      /** This turn: what its commands changed that is not among the rows (page one carries it). */
      notes: ReviewCommandNotes | null
    }

/** Outside changes are re-scanned after this pause, so a burst of saves costs one scan. */
const RESCAN_DELAY_MS = 400

/**
 * The file list of one review query. The server filters, sorts and pages (spec 07); this keeps the
 * pages of one snapshot in order, starts over on STALE_SNAPSHOT, and on any query change drops the
 * old list at once (a loading state, never the previous result under the new label).
 */
export function useReview(projectId: string, sessionId: string | null, query: ReviewQuery) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<State>({ kind: 'idle' })
  const [staleNotice, setStaleNotice] = useState(false)
  const generation = useRef(0)
  const key = queryKey(query)

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

  const apply = useCallback(
    (mine: number, outcome: RequestOutcome<ReviewList>, append: boolean) => {
      if (mine !== generation.current || outcome.kind === 'cancelled') return
      if (outcome.kind === 'ok') {
        const { snapshot_id, files, totals, next_cursor, command_notes } = outcome.result
        setState((current) =>
          append && current.kind === 'ready'
            ? { ...current, snapshotId: snapshot_id, files: [...current.files, ...files], totals, next: next_cursor }
            : {
                kind: 'ready',
                key,
                snapshotId: snapshot_id,
                files,
                totals,
                next: next_cursor,
                notes: command_notes ?? null,
              },
        )
      } else {
        setState({ kind: 'error', key, message: failureMessage(outcome, t) })
      }
    },
    [key, t],
  )

  const ready = !(query.scope !== 'workspace' && sessionId === null) && !(query.scope === 'turn' && !query.turnId)
  const ownerOf = useCallback(
    () => (sessionId === null ? { project_id: projectId } : { project_id: projectId, session_id: sessionId }),
    [projectId, sessionId],
  )
  /**
   * Asks for page one. The list on screen stays until the answer; a new query never shows the old
   * list anyway (see `shown` below), and `reload` clears it explicitly.
   */
  const load = useCallback(() => {
    if (!ready) return
    const mine = ++generation.current
    void client
      .request('review.files', payloadOf(), { owner: ownerOf() })
      .then((outcome) => apply(mine, outcome, false))
  }, [client, ready, payloadOf, apply, ownerOf])
  const reload = useCallback(() => {
    setState({ kind: 'loading', key })
    load()
  }, [key, load])

  useEffect(() => {
    load()
  }, [load])
  // A restore, a turn, another client or (for Workspace) any outside edit changed files: rescan,
  // so comments written against the old snapshot are marked stale instead of being sent against
  // another version.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const off = onProjectEvent(client, projectId, (frame) => {
      const relevant =
        frame.event === 'workspace.changed' || (query.scope === 'workspace' && changedPaths(frame) !== null)
      if (!relevant) return
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => load(), RESCAN_DELAY_MS)
    })
    return () => {
      off()
      if (timer) clearTimeout(timer)
    }
  }, [client, projectId, query.scope, load])

  const loadMore = useCallback(() => {
    if (state.kind !== 'ready' || state.next === null) return
    const mine = generation.current
    void client.request('review.files', payloadOf(state.next), { owner: ownerOf() }).then((outcome) => {
      if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
        // Never mix pages of two scans: start over from page one and say so.
        setStaleNotice(true)
        reload()
        return
      }
      apply(mine, outcome, true)
    })
  }, [client, state, ownerOf, payloadOf, apply, reload])

  // A state for another query is never shown: until the new answer, this query is "loading".
  const shown: State = !ready
    ? { kind: 'idle' }
    : state.kind === 'idle' || state.key !== key
      ? { kind: 'loading', key }
      : state
  return { state: shown, loadMore, reload, staleNotice, dismissStale: () => setStaleNotice(false) }
}
