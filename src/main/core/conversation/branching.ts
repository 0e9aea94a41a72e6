import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { workspaceCounters } from '../journal'
import { inImmediateTransaction, type Database } from '../store'
import { bumpWriterEpoch, getBranch, insertBranch, setArchived, setLeftSequence } from './branches'
import { checkpointAt, insertCheckpoint } from './checkpoints'
import { getNode, promptText, runningNodeOf } from './nodes'
import { ALIGNED, setActiveBranch, setFiles } from './sessions'
import type { RestoreApplying } from './turns'
import type { BranchRecord, SessionRecord } from './types'

/** Whether the files (holding `filesNode`'s code) differ from `head`'s code. */
export type CodeDiffers = (filesNode: string, head: string, headLeftSequence: number | null) => boolean

export function activeBranch(db: Database, session: SessionRecord): BranchRecord {
  const branch = getBranch(db, session.active_branch_id)
  if (!branch) throw new Error(`session ${session.session_id} has no active branch`)
  return branch
}

/** The node whose code the files hold: the active head unless the session is not aligned. */
export function filesNodeOf(db: Database, session: SessionRecord): string {
  return session.files_node_id ?? activeBranch(db, session).head_node_id
}

/** The session's alignment as the protocol shows it. */
export function alignmentOf(db: Database, session: SessionRecord) {
  const head = activeBranch(db, session).head_node_id
  return {
    state: session.alignment,
    files_node_id: session.files_node_id ?? head,
    head_node_id: head,
    checkpoint_id: session.alignment_checkpoint_id,
  }
}

/** A branch as the protocol lists it, with the prompt of its head turn. */
export function publicBranch(db: Database, branch: BranchRecord) {
  const head = getNode(db, branch.head_node_id)
  const promptNode = head?.kind === 'assistant' ? head.parent_node_id : head?.kind === 'user' ? head.node_id : null
  return {
    branch_id: branch.branch_id,
    parent_branch_id: branch.parent_branch_id,
    head_node_id: branch.head_node_id,
    head_version: branch.head_version,
    writer_epoch: branch.writer_epoch,
    archived: branch.archived,
    fork_node_id: branch.fork_node_id,
    created_at_ms: branch.created_at_ms,
    last_prompt: promptNode ? promptText(db, promptNode) : null,
  }
}

/** Neither a running turn nor an applying restore may see the conversation move under it. */
export function busyGuard(db: Database, sessionId: string, restoreApplying: RestoreApplying): Outcome<null> {
  if (runningNodeOf(db, sessionId) !== null) {
    return fail('BUSY', 'A turn is running in this session; stop it or wait.', {
      session_id: sessionId,
      reason: 'turn-running',
    })
  }
  if (restoreApplying(sessionId)) {
    return fail('BUSY', 'A restore of this session is being applied; wait for it to finish.', {
      session_id: sessionId,
      reason: 'restore-applying',
    })
  }
  return ok(null)
}

/**
 * Moves the active branch while the files stay as they are: the branch left keeps its code
 * projection (the workspace now, if the files held its head), and the session is aligned only
 * if the files already hold the new head's code (`codeDiffers` says whether they do not).
 */
function moveActive(db: Database, session: SessionRecord, to: string, codeDiffers: CodeDiffers): void {
  const source = activeBranch(db, session)
  const filesNode = filesNodeOf(db, session)
  if (session.alignment === 'aligned') {
    setLeftSequence(db, source.branch_id, workspaceCounters(db, session.workspace_id).sequence)
  }
  const target = getBranch(db, to) as BranchRecord
  const differs = filesNode !== target.head_node_id && codeDiffers(filesNode, target.head_node_id, target.left_sequence)
  setArchived(db, to, false)
  setActiveBranch(db, session.session_id, to)
  setFiles(
    db,
    session.session_id,
    differs ? { node_id: filesNode, alignment: 'mismatch', checkpoint_id: null } : ALIGNED,
  )
  // Asynchronous work begun on the branch left must not write after the switch (spec 04).
  bumpWriterEpoch(db, source.branch_id)
}

/** "Branch from here": a new branch whose head is that node; files stay as they are. */
export function branchFromHere(
  db: Database,
  session: SessionRecord,
  nodeId: string,
  code: { differs: CodeDiffers; restoreApplying: RestoreApplying },
): Outcome<{ branch_id: string }> {
  const node = getNode(db, nodeId)
  if (!node || node.session_id !== session.session_id || node.kind === 'user') {
    return fail('NOT_FOUND', 'Branch from an assistant turn (or the start) of this session.', {
      node_id: nodeId,
      reason: 'not-a-turn',
    })
  }
  if (node.status === 'running')
    return fail('BUSY', 'Wait for this turn to finish before branching from it.', { reason: 'turn-running' })
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id, code.restoreApplying)
    if (guard.kind === 'error') return guard
    const branchId = `br_${randomUUID()}`
    const checkpoint =
      node.kind === 'assistant' && node.parent_node_id !== null
        ? checkpointAt(db, node.parent_node_id, 'after_turn')
        : undefined
    insertBranch(db, {
      branch_id: branchId,
      session_id: session.session_id,
      parent_branch_id: session.active_branch_id,
      fork_checkpoint_id: checkpoint?.checkpoint_id ?? null,
      head_node_id: nodeId,
      fork_node_id: nodeId,
      created_at_ms: Date.now(),
    })
    moveActive(db, session, branchId, code.differs)
    return ok({ branch_id: branchId })
  })
}

export function switchBranch(
  db: Database,
  session: SessionRecord,
  branchId: string,
  code: { differs: CodeDiffers; restoreApplying: RestoreApplying },
): Outcome<null> {
  const branch = getBranch(db, branchId)
  if (!branch || branch.session_id !== session.session_id) {
    return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId, reason: 'no-branch' })
  }
  if (branchId === session.active_branch_id) return ok(null)
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id, code.restoreApplying)
    if (guard.kind === 'error') return guard
    moveActive(db, session, branchId, code.differs)
    return ok(null)
  })
}

export function archiveBranch(
  db: Database,
  session: SessionRecord,
  branchId: string,
  archived: boolean,
): Outcome<null> {
  const branch = getBranch(db, branchId)
  if (!branch || branch.session_id !== session.session_id) {
    return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId, reason: 'no-branch' })
  }
  if (archived && branchId === session.active_branch_id) {
    return fail('UNAVAILABLE', 'Switch to another branch before archiving this one.', { reason: 'active-branch' })
  }
  setArchived(db, branchId, archived)
  return ok(null)
}

/**
 * Keep current files: the active branch adopts the workspace as it is — an adopt-workspace
 * checkpoint records the journal sequence and revision it adopted, and the session is aligned.
 */
export function keepFiles(
  db: Database,
  session: SessionRecord,
  expected: { source: string; target: string },
  restoreApplying: RestoreApplying,
): Outcome<null> {
  const alignment = alignmentOf(db, session)
  if (
    session.alignment === 'aligned' ||
    alignment.files_node_id !== expected.source ||
    alignment.head_node_id !== expected.target
  ) {
    return fail('STALE_PLAN', 'The files or the branch changed since this choice was shown; look again.', {
      files_node_id: alignment.files_node_id,
      head_node_id: alignment.head_node_id,
      reason: 'alignment-changed',
    })
  }
  const guard = busyGuard(db, session.session_id, restoreApplying)
  if (guard.kind === 'error') return guard
  const head = getNode(db, alignment.head_node_id)
  const { sequence, revision } = workspaceCounters(db, session.workspace_id)
  // The checkpoint names the head's prompt node (ROOT when the branch has no turn yet).
  const promptNode =
    head?.kind === 'assistant' && head.parent_node_id !== null ? head.parent_node_id : alignment.head_node_id
  insertCheckpoint(db, {
    checkpoint_id: `cp_${randomUUID()}`,
    session_id: session.session_id,
    branch_id: session.active_branch_id,
    boundary: 'adopt_workspace',
    user_node_id: promptNode,
    assistant_node_id: head?.kind === 'assistant' ? head.node_id : null,
    journal_sequence: sequence,
    workspace_revision: revision,
    created_at_ms: Date.now(),
  })
  setFiles(db, session.session_id, ALIGNED)
  return ok(null)
}
