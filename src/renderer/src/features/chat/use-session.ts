import { useCallback, useEffect, useState } from 'react'
import { EVENT_SCHEMAS, type PermissionMode } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import type { RequestOutcome } from '../../transport'
import type { Session } from './types'

export type Failure = Exclude<RequestOutcome<unknown>, { kind: 'ok' }>

interface SessionsState {
  readonly sessions: readonly Session[]
  readonly loaded: boolean
  readonly failure: Failure | null
}

export interface SessionChanges {
  readonly title?: string
  readonly archived?: boolean
  readonly permission_mode?: PermissionMode
}

/**
 * The project's sessions (archived ones too, so they can be reopened) and which one the pane
 * shows. The selection falls back to the most recent active session when the chosen one is gone.
 * `session.updated` is a hint: the list is read again through `session.list`.
 */
export function useSessions(projectId: string) {
  const client = useClient()
  const [state, setState] = useState<SessionsState>({ sessions: [], loaded: false, failure: null })
  const [chosenId, setChosenId] = useState<string | null>(null)

  const load = useCallback(
    (signal?: AbortSignal) =>
      client
        .request('session.list', { include_archived: true }, { owner: { project_id: projectId }, signal })
        .then((outcome) => {
          if (outcome.kind === 'cancelled') return
          setState((s) =>
            outcome.kind === 'ok'
              ? { sessions: outcome.result.sessions, loaded: true, failure: null }
              : { ...s, loaded: true, failure: outcome },
          )
        }),
    [client, projectId],
  )

  useEffect(() => {
    const controller = new AbortController()
    void load(controller.signal)
    const off = client.onEvent((frame) => {
      if (frame.event !== 'session.updated') return
      if (EVENT_SCHEMAS['session.updated'].safeParse(frame.data).success) void load(controller.signal)
    })
    return () => {
      off()
      controller.abort()
    }
  }, [client, load])

  const current =
    state.sessions.find((s) => s.session_id === chosenId) ?? state.sessions.find((s) => s.state === 'active') ?? null

  const owner = { project_id: projectId }

  /** Creates a session and shows it; resolves to it, or to the failure. */
  async function create(title?: string): Promise<RequestOutcome<Session>> {
    const outcome = await client.request('session.create', title === undefined ? {} : { title }, { owner })
    if (outcome.kind === 'ok') {
      const created = outcome.result
      setState((s) => ({ ...s, sessions: [created, ...s.sessions.filter((x) => x.session_id !== created.session_id)] }))
      setChosenId(created.session_id)
      void load()
    }
    return outcome
  }

  async function update(sessionId: string, changes: SessionChanges): Promise<RequestOutcome<Session>> {
    const outcome = await client.request('session.update', { session_id: sessionId, ...changes }, { owner })
    if (outcome.kind === 'ok') {
      const updated = outcome.result
      setState((s) => ({ ...s, sessions: s.sessions.map((x) => (x.session_id === updated.session_id ? updated : x)) }))
      // An archived session leaves the pane for the next active one; reopening one shows it.
      if (changes.archived === true) {
        setChosenId(state.sessions.find((x) => x.state === 'active' && x.session_id !== sessionId)?.session_id ?? null)
      }
      void load()
    }
    return outcome
  }

  return {
    sessions: state.sessions,
    loaded: state.loaded,
    failure: state.failure,
    current,
    select: setChosenId,
    create,
    update,
    reload: load,
  }
}
