import { useCallback, useEffect, useMemo } from 'react'
import { useClient } from '../../ui/client-context'
import { createStore, useStore } from '../../ui/store'
import { sessionStoreFor, type SessionChanges, type TranscriptState } from './session-store'
import { withLiveParts } from './transcript-model'
import { turnsWithChanges, type TurnWithChanges } from './turns'

const NO_SESSION = createStore<TranscriptState>({ data: null, failure: null, live: new Map() })

/**
 * The project's sessions (archived ones too, so they can be reopened) and which one is shown. The
 * selection falls back to the most recent active session when the chosen one is gone. The choice
 * lives in the project's session store: closing and reopening the pane keeps it.
 */
export function useSessions(projectId: string) {
  const client = useClient()
  const store = sessionStoreFor(client, projectId)
  const state = useStore(store.sessions)
  useEffect(() => store.watchSessions(), [store])
  const current =
    state.sessions.find((s) => s.session_id === state.chosenId) ??
    state.sessions.find((s) => s.state === 'active') ??
    null
  return {
    sessions: state.sessions,
    loaded: state.loaded,
    failure: state.failure,
    current,
    select: useCallback((sessionId: string | null) => store.select(sessionId), [store]),
    create: useCallback((title?: string) => store.create(title), [store]),
    update: useCallback((sessionId: string, changes: SessionChanges) => store.update(sessionId, changes), [store]),
    reload: useCallback(() => store.reloadSessions(), [store]),
  }
}

function useTranscriptState(projectId: string, sessionId: string | null) {
  const client = useClient()
  const store = sessionStoreFor(client, projectId)
  const transcript = sessionId === null ? NO_SESSION : store.transcript(sessionId)
  const state = useStore(transcript)
  useEffect(() => (sessionId === null ? undefined : store.watchTranscript(sessionId)), [store, sessionId])
  const reload = useCallback(() => {
    if (sessionId !== null) store.reloadTranscript(sessionId)
  }, [store, sessionId])
  return { state, reload }
}

/**
 * One session's transcript, with the parts of a running turn laid over the last read. Chat and
 * Review showing the same session share one read and one event subscription.
 */
export function useTranscript(projectId: string, sessionId: string | null) {
  const { state, reload } = useTranscriptState(projectId, sessionId)
  const { data: base, live } = state
  const data = useMemo(() => {
    if (!base) return null
    // A turn announced by events but not in this read yet (its prompt was just sent) waits for
    // the next read; `session.updated` follows every prompt.
    return live.size === 0
      ? base
      : { ...base, nodes: base.nodes.map((node) => withLiveParts(node, live.get(node.node_id))) }
  }, [base, live])
  return {
    data,
    loading: sessionId !== null && base === null && state.failure === null,
    failure: state.failure,
    reload,
  }
}

/**
 * The session's turns that changed files, oldest first, from the same transcript Chat shows (its
 * last read: a running turn's counts arrive with its finish). Null while the first read is on its
 * way; empty without a session or when the read failed.
 */
export function useTurnsWithChanges(projectId: string, sessionId: string | null): readonly TurnWithChanges[] | null {
  const { state } = useTranscriptState(projectId, sessionId)
  const { data, failure } = state
  return useMemo(() => {
    if (sessionId === null) return []
    if (data) return turnsWithChanges(data)
    return failure === null ? null : []
  }, [sessionId, data, failure])
}
