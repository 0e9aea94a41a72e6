import { randomUUID } from 'node:crypto'
import type { PermissionMode } from '../../../shared/protocol'
import { inImmediateTransaction, type Database } from '../store'
import { insertBranch } from './branches'
import { insertNode } from './nodes'
import { insertSession, PLACEHOLDER_TITLE, sessionRow } from './sessions'
import type { SessionRecord } from './types'

/**
 * A session starts with its persistent synthetic ROOT node and a main branch whose head is that
 * ROOT (spec 04: a rewind before the first turn lands on ROOT, never on a null head).
 */
export function createSession(
  db: Database,
  input: { project_id: string; workspace_id: string; title?: string | undefined; permission_mode?: PermissionMode },
): SessionRecord {
  return inImmediateTransaction(db, () => {
    const now = Date.now()
    const sessionId = `ses_${randomUUID()}`
    const rootId = `node_${randomUUID()}`
    const branchId = `br_${randomUUID()}`
    // The session row first (nodes and branches reference it), pointing at ids created just below.
    insertSession(db, {
      session_id: sessionId,
      project_id: input.project_id,
      workspace_id: input.workspace_id,
      title: input.title?.trim() || PLACEHOLDER_TITLE,
      root_node_id: rootId,
      active_branch_id: branchId,
      now,
      permission_mode: input.permission_mode ?? 'ask',
      titled: Boolean(input.title?.trim()),
    })
    insertNode(db, {
      node_id: rootId,
      session_id: sessionId,
      parent_node_id: null,
      kind: 'root',
      parts: [],
      status: 'complete',
      created_at_ms: now,
    })
    insertBranch(db, {
      branch_id: branchId,
      session_id: sessionId,
      parent_branch_id: null,
      fork_checkpoint_id: null,
      head_node_id: rootId,
      fork_node_id: null,
      created_at_ms: now,
    })
    return sessionRow(db, sessionId) as SessionRecord
  })
}
