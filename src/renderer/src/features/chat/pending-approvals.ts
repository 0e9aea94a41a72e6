import { createStore } from '../../ui/store'
import type { ApprovalDecision } from './types'

/** The chords that answer the agent's oldest open question from anywhere in the window. */
export const APPROVE_CHORD = 'Alt+Y'
export const REJECT_CHORD = 'Alt+N'

export interface PendingApproval {
  decide(answer: ApprovalDecision): void
}

/**
 * The approval cards on screen that still wait for an answer, oldest first. The agent waits on one
 * question at a time; when several are shown (a task's sub-agent), the keys answer the one that
 * came first, and only that card shows them.
 */
export const pendingApprovals = createStore<readonly PendingApproval[]>([])

export function registerPendingApproval(approval: PendingApproval): () => void {
  pendingApprovals.set((list) => [...list, approval])
  return () => pendingApprovals.set((list) => list.filter((entry) => entry !== approval))
}

export function firstPendingApproval(): PendingApproval | undefined {
  return pendingApprovals.get()[0]
}
