import { type CodeDiffers, type SessionRecord } from '../conversation'
import type { Database } from '../store'
import { planTransition } from './transition'

/** Whether files holding one node's code differ from another's (a branch switch's alignment). */
export function codeDiffers(db: Database, session: SessionRecord): CodeDiffers {
  return (filesNode, head, leftSequence) => {
    const transition = planTransition(db, {
      workspaceId: session.workspace_id,
      sessionId: session.session_id,
      from: filesNode,
      to: head,
      redoSequence: leftSequence,
    })
    return transition.actions.length > 0 || transition.unavailable.length > 0
  }
}
