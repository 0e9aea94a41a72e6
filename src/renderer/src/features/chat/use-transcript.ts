import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { EVENT_SCHEMAS } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { pruneLiveTurns, withLivePart, withLiveParts, type LiveTurns } from './transcript-model'
import type { TranscriptData } from './types'
import type { Failure } from './use-session'

interface Loaded {
  readonly sessionId: string | null
  readonly data: TranscriptData | null
  readonly failure: Failure | null
  /** Which read this is; an older read that answers late never replaces a newer one. */
  readonly read: number
}

interface Live {
  readonly sessionId: string | null
  readonly turns: LiveTurns
}

interface Scope {
  readonly sessionId: string
  readonly controller: AbortController
  issued: number
  /** A read is on its way; further hints wait for it instead of piling up requests. */
  inFlight: boolean
  again: boolean
}

const NO_TURNS: LiveTurns = new Map()

/**
 * One session's transcript. It is read through `session.transcript` when the session is shown and
 * whenever an event hints that it changed (`turn.finished`, `session.updated`, a restore); while a
 * turn runs, `turn.part` events lay each new version of a part over the running node, so text
 * streams without a read per token.
 */
export function useTranscript(projectId: string, sessionId: string | null) {
  const client = useClient()
  const [loaded, setLoaded] = useState<Loaded>({ sessionId: null, data: null, failure: null, read: 0 })
  const [live, setLive] = useState<Live>({ sessionId: null, turns: NO_TURNS })
  const scope = useRef<Scope | null>(null)

  const read = useCallback(
    function read(current: Scope) {
      if (current.inFlight) {
        current.again = true
        return
      }
      current.inFlight = true
      current.again = false
      current.issued += 1
      const number = current.issued
      void client
        .request(
          'session.transcript',
          { session_id: current.sessionId },
          { owner: { project_id: projectId }, signal: current.controller.signal },
        )
        .then((outcome) => {
          current.inFlight = false
          if (current.controller.signal.aborted || outcome.kind === 'cancelled') return
          setLoaded((previous) => {
            const same = previous.sessionId === current.sessionId
            if (same && previous.read > number) return previous
            return outcome.kind === 'ok'
              ? { sessionId: current.sessionId, data: outcome.result, failure: null, read: number }
              : { sessionId: current.sessionId, data: same ? previous.data : null, failure: outcome, read: number }
          })
          if (outcome.kind === 'ok') {
            setLive((previous) =>
              previous.sessionId === current.sessionId
                ? { ...previous, turns: pruneLiveTurns(previous.turns, outcome.result) }
                : previous,
            )
          }
          if (current.again) read(current)
        })
    },
    [client, projectId],
  )

  const reload = useCallback(() => {
    if (scope.current) read(scope.current)
  }, [read])

  useEffect(() => {
    if (sessionId === null) return
    const current: Scope = { sessionId, controller: new AbortController(), issued: 0, inFlight: false, again: false }
    scope.current = current
    read(current)
    const off = client.onEvent((frame) => {
      switch (frame.event) {
        case 'turn.part': {
          const event = EVENT_SCHEMAS['turn.part'].safeParse(frame.data)
          if (!event.success || event.data.session_id !== sessionId) return
          const { turn_id, index, part } = event.data
          setLive((previous) => ({
            sessionId,
            turns: withLivePart(previous.sessionId === sessionId ? previous.turns : NO_TURNS, turn_id, index, part),
          }))
          return
        }
        case 'turn.finished':
        case 'session.updated': {
          if (frame.data.session_id === sessionId) read(current)
          return
        }
        case 'intent.progress': {
          const event = EVENT_SCHEMAS['intent.progress'].safeParse(frame.data)
          if (event.success && event.data.session_id === sessionId && event.data.done === event.data.total) {
            read(current)
          }
          return
        }
      }
    })
    return () => {
      off()
      current.controller.abort()
      if (scope.current === current) scope.current = null
    }
  }, [client, sessionId, read])

  const base = loaded.sessionId === sessionId ? loaded.data : null
  const liveTurns = live.sessionId === sessionId ? live.turns : NO_TURNS
  const data = useMemo(() => {
    if (!base) return null
    // A turn announced by events but not in this read yet (its prompt was just sent) waits for
    // the next read; `session.updated` follows every prompt.
    return liveTurns.size === 0
      ? base
      : { ...base, nodes: base.nodes.map((node) => withLiveParts(node, liveTurns.get(node.node_id))) }
  }, [base, liveTurns])

  return {
    data,
    loading: sessionId !== null && base === null && (loaded.sessionId !== sessionId || loaded.failure === null),
    failure: loaded.sessionId === sessionId ? loaded.failure : null,
    reload,
  }
}
