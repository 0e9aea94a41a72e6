import { useEffect, useState } from 'react'
import { useClient } from '../../app/client-context'
import { onProjectEvent } from '../../ui/project-events'
import { activeLineage, summaryOf, textOf } from '../chat'

export interface ReviewTurn {
  readonly turnId: string
  /** 1-based position among the conversation's turns ("Turn 3"). */
  readonly number: number
  /** First line of the prompt the turn answered. */
  readonly prompt: string
  readonly files: number
}

/**
 * The session's turns that changed files, oldest first, re-read when the session changes (a turn
 * finished, a restore ran). Null while the first read is on its way.
 */
export function useTurns(
  projectId: string,
  sessionId: string | null,
): { turns: readonly ReviewTurn[] | null; sessionId: string | null } {
  const client = useClient()
  const [state, setState] = useState<{ turns: readonly ReviewTurn[] | null; sessionId: string | null }>({
    turns: null,
    sessionId: null,
  })
  const [version, setVersion] = useState(0)

  useEffect(() => {
    if (sessionId === null) return
    return onProjectEvent(client, projectId, (frame) => {
      if ((frame.event === 'turn.finished' || frame.event === 'session.updated') && frame.data.session_id === sessionId) {
        setVersion((v) => v + 1)
      }
    })
  }, [client, projectId, sessionId])

  useEffect(() => {
    if (sessionId === null) return
    const controller = new AbortController()
    void client
      .request(
        'session.transcript',
        { session_id: sessionId },
        { owner: { project_id: projectId }, signal: controller.signal },
      )
      .then((outcome) => {
        if (controller.signal.aborted) return
        if (outcome.kind !== 'ok') {
          setState({ turns: [], sessionId })
          return
        }
        const lineage = activeLineage(outcome.result)
        const byId = new Map(outcome.result.nodes.map((node) => [node.node_id, node]))
        const turns: ReviewTurn[] = []
        let number = 0
        for (const node of lineage) {
          if (node.kind !== 'assistant') continue
          number += 1
          const summary = summaryOf(node)
          // A turn counts when it changed files, by its tools or by its commands (spec 06).
          const files = (summary?.files ?? 0) + (summary?.command_files ?? 0)
          if (files === 0) continue
          const parent = node.parent_node_id === null ? undefined : byId.get(node.parent_node_id)
          const prompt = parent ? (textOf(parent).trim().split('\n')[0] ?? '') : ''
          turns.push({ turnId: node.node_id, number, prompt, files })
        }
        setState({ turns, sessionId })
      })
    return () => controller.abort()
  }, [client, projectId, sessionId, version])

  if (sessionId === null) return { turns: [], sessionId: null }
  return state.sessionId === sessionId ? state : { turns: null, sessionId }
}
