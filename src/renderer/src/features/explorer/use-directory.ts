import { useEffect, useState } from 'react'
import type { DirEntry } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'

export interface DirectoryState {
  readonly entries: readonly DirEntry[]
  readonly total: number
  readonly nextCursor: string | null
  readonly loading: boolean
  readonly error: string | null
  /** Set when a page came back STALE_SNAPSHOT and the listing restarted from page one. */
  readonly reloaded: boolean
}

interface PageRequest {
  readonly cursor: string | null
  readonly reloaded: boolean
  /** Distinguishes two requests for page one (a retry, a restart after STALE_SNAPSHOT). */
  readonly attempt: number
}

const INITIAL: DirectoryState = { entries: [], total: 0, nextCursor: null, loading: true, error: null, reloaded: false }

/**
 * One directory's listing, a page at a time. A page request is forgotten when the view unmounts or
 * a newer request replaces it, so a late page can never land in a newer listing.
 */
export function useDirectory(projectId: string, path: string) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<DirectoryState>(INITIAL)
  const [page, setPage] = useState<PageRequest>({ cursor: null, reloaded: false, attempt: 0 })

  useEffect(() => {
    const controller = new AbortController()
    const payload = page.cursor === null ? { path } : { path, cursor: page.cursor }
    void client
      .request('files.list', payload, { owner: { project_id: projectId }, signal: controller.signal })
      .then((outcome) => {
        if (controller.signal.aborted || outcome.kind === 'cancelled') return
        if (outcome.kind === 'ok') {
          setState((s) => ({
            entries: page.cursor === null ? outcome.result.entries : [...s.entries, ...outcome.result.entries],
            total: outcome.result.total,
            nextCursor: outcome.result.next_cursor,
            loading: false,
            error: null,
            reloaded: page.reloaded,
          }))
        } else if (outcome.kind === 'error' && outcome.error.code === 'STALE_SNAPSHOT') {
          setPage((p) => ({ cursor: null, reloaded: true, attempt: p.attempt + 1 }))
        } else {
          setState((s) => ({ ...s, loading: false, error: failureMessage(outcome, t) }))
        }
      })
    return () => controller.abort()
  }, [client, projectId, path, page, t])

  return {
    state,
    loadMore: () => {
      if (state.nextCursor === null || state.loading) return
      setState((s) => ({ ...s, loading: true }))
      setPage((p) => ({ cursor: state.nextCursor, reloaded: false, attempt: p.attempt }))
    },
    reload: () => {
      setState((s) => ({ ...s, loading: true, error: null }))
      setPage((p) => ({ cursor: null, reloaded: false, attempt: p.attempt + 1 }))
    },
  }
}
