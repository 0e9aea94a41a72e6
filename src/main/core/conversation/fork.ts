import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome, type ProjectSummary } from '../../../shared/protocol'
import { inImmediateTransaction, type Database } from '../store'
import { setHead } from './branches'
import { chainOf, getNode, insertNode, nodeCopySource } from './nodes'
import { sessionRow } from './sessions'
import { createSession } from './session-create'
import type { SessionRecord } from './types'

export interface ForkDependencies {
  readonly db: Database
  /** Opens a folder as a project (the worktree of a fork with files). */
  readonly openProject: (path: string) => Promise<Outcome<ProjectSummary>>
  readonly workspaceIdOf: (project: ProjectSummary) => string
  /** A git worktree of the project holding `nodeId`'s code (restore/ knows a node's code). */
  readonly materializeWorktree: (
    session: SessionRecord,
    project: ProjectSummary,
    nodeId: string,
  ) => Promise<Outcome<string>>
}

/** Bookkeeping of a turn that belongs to its own receipts; a copied conversation has none. */
const RECEIPT_PARTS = new Set(['file-summary', 'patch'])

/**
 * Spec 04 "Fork to new task": a new session whose conversation is a copy of ROOT → `nodeId`, the
 * source session untouched. Without files the new session works on the same folder as it is.
 * With files (git projects only) the checkpoint becomes a git worktree of its own — the
 * repository's HEAD, then the parent's uncommitted files as they are now, then the journal's
 * transition from the files' node to `nodeId` — opened as a project; the new session belongs to
 * it. The parent's files are only read.
 */
export async function forkSession(
  deps: ForkDependencies,
  session: SessionRecord,
  project: ProjectSummary,
  request: { node_id: string; with_files: boolean },
): Promise<Outcome<{ session: SessionRecord; worktree: { path: string; project_id: string } | null }>> {
  const { db } = deps
  const node = getNode(db, request.node_id)
  if (!node || node.session_id !== session.session_id || node.kind === 'user') {
    return fail('NOT_FOUND', 'Fork from an assistant turn (or the start) of this session.', {
      node_id: request.node_id,
      reason: 'not-a-turn',
    })
  }
  if (node.status === 'running')
    return fail('BUSY', 'Wait for this turn to finish before forking from it.', { reason: 'turn-running' })
  let target = project
  let worktree: { path: string; project_id: string } | null = null
  if (request.with_files) {
    if (!project.is_git) {
      return fail(
        'UNAVAILABLE',
        'Forking with files needs a git project; restore code and conversation in this session instead.',
        { reason: 'not-git' },
      )
    }
    const made = await deps.materializeWorktree(session, project, request.node_id)
    if (made.kind === 'error') return made
    const opened = await deps.openProject(made.result)
    if (opened.kind === 'error') return opened
    target = opened.result
    worktree = { path: opened.result.root, project_id: opened.result.project_id }
  }
  const created = createSession(db, {
    project_id: target.project_id,
    workspace_id: deps.workspaceIdOf(target),
    title: `${session.title} (fork)`,
    permission_mode: session.permission_mode,
  })
  const forked = inImmediateTransaction(db, () => {
    const ids = new Map<string, string>([[session.root_node_id, created.root_node_id]])
    for (const link of chainOf(db, request.node_id)) {
      if (link.kind === 'root') continue
      const source = nodeCopySource(db, link.node_id) as NonNullable<ReturnType<typeof nodeCopySource>>
      const id = link.kind === 'user' ? `node_${randomUUID()}` : `turn_${randomUUID()}`
      ids.set(link.node_id, id)
      insertNode(db, {
        node_id: id,
        session_id: created.session_id,
        parent_node_id: ids.get(link.parent_node_id ?? '') ?? created.root_node_id,
        kind: link.kind,
        parts: source.parts.filter((part) => !RECEIPT_PARTS.has(part.type)),
        status: 'complete',
        // The copy is made now (the transcript orders by creation); the parts keep their own times.
        created_at_ms: Math.max(source.created_at_ms, Date.now()),
      })
    }
    setHead(db, created.active_branch_id, ids.get(request.node_id) ?? created.root_node_id)
    return sessionRow(db, created.session_id) as SessionRecord
  })
  return ok({ session: forked, worktree })
}
