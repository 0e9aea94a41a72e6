import { useCallback, useEffect, useRef, useState } from 'react'
import { EVENT_SCHEMAS, type ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import type { RequestOutcome } from '../../transport'

export type Session = ResultOf<'session.list'>['sessions'][number]
export type Transcript = ResultOf<'session.transcript'>
export type TranscriptNode = Transcript['nodes'][number]

/**
 * The chat's data: sessions of the project, the selected session's transcript, and whether a model
 * is connected. Events are hints (spec 02): `turn.part` patches the running turn in place, anything
 * else refetches through requests.
 */
export function useChat(projectId: string) {
  const client = useClient()
  const owner = { project_id: projectId }
  const [sessions, setSessions] = useState<readonly Session[]>([])
  const [sessionId, setSessionId] = useState<string | null>(null)
  const [transcript, setTranscript] = useState<Transcript | null>(null)
  const [hasModel, setHasModel] = useState<boolean | null>(null)
  const sessionRef = useRef<string | null>(null)
  useEffect(() => {
    sessionRef.current = sessionId
  }, [sessionId])

  const applySessions = useCallback((outcome: RequestOutcome<ResultOf<'session.list'>>) => {
    if (outcome.kind !== 'ok') return
    setSessions(outcome.result.sessions)
    setSessionId((current) =>
      current !== null && outcome.result.sessions.some((s) => s.session_id === current)
        ? current
        : (outcome.result.sessions[0]?.session_id ?? null),
    )
  }, [])
  const applyTranscript = useCallback((outcome: RequestOutcome<ResultOf<'session.transcript'>>) => {
    // A late answer for a session no longer shown is dropped.
    if (outcome.kind === 'ok' && outcome.result.session.session_id === sessionRef.current) {
      setTranscript(outcome.result)
    }
  }, [])
  const applyProviders = useCallback((outcome: RequestOutcome<ResultOf<'settings.providers'>>) => {
    if (outcome.kind === 'ok') setHasModel(outcome.result.active_provider_id !== null)
  }, [])

  const loadSessions = useCallback(
    () => client.request('session.list', {}, { owner: { project_id: projectId } }).then(applySessions),
    [client, projectId, applySessions],
  )
  const loadTranscript = useCallback(async () => {
    const id = sessionRef.current
    if (id === null) return
    applyTranscript(
      await client.request('session.transcript', { session_id: id }, { owner: { project_id: projectId } }),
    )
  }, [client, projectId, applyTranscript])
  const loadProviders = useCallback(
    () => client.request('settings.providers', {}).then(applyProviders),
    [client, applyProviders],
  )

  useEffect(() => {
    void client.request('session.list', {}, { owner: { project_id: projectId } }).then(applySessions)
    void client.request('settings.providers', {}).then(applyProviders)
  }, [client, projectId, applySessions, applyProviders])
  useEffect(() => {
    if (sessionId === null) return
    void client
      .request('session.transcript', { session_id: sessionId }, { owner: { project_id: projectId } })
      .then(applyTranscript)
  }, [client, projectId, sessionId, applyTranscript])

  useEffect(
    () =>
      client.onEvent((frame) => {
        if (frame.event === 'turn.part') {
          const parsed = EVENT_SCHEMAS['turn.part'].safeParse(frame.data)
          if (!parsed.success || parsed.data.session_id !== sessionRef.current) return
          const { turn_id, index, part } = parsed.data
          let known = false
          setTranscript((current) => {
            if (!current) return current
            const nodes = current.nodes.map((node) => {
              if (node.node_id !== turn_id) return node
              known = true
              const parts = [...node.parts]
              parts[index] = part
              return { ...node, parts }
            })
            return known ? { ...current, nodes } : current
          })
          if (!known) void loadTranscript()
        } else if (frame.event === 'turn.finished' || frame.event === 'session.updated') {
          void loadSessions()
          const data = frame.data as { session_id?: unknown }
          if (data.session_id === sessionRef.current) void loadTranscript()
        } else if (frame.event === 'workspace.changed') {
          // A restore or another client may change which turn actions are executable.
          void loadTranscript()
        }
      }),
    [client, loadSessions, loadTranscript],
  )

  return {
    owner,
    sessions,
    sessionId,
    selectSession: setSessionId,
    transcript: transcript !== null && transcript.session.session_id === sessionId ? transcript : null,
    hasModel,
    reloadSessions: loadSessions,
    reloadTranscript: loadTranscript,
    reloadProviders: loadProviders,
  }
}
