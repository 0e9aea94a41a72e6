import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { workspaceCounters } from '../journal'
import { inImmediateTransaction, statement, type Database } from '../store'
import { chainOf, getNode, promptText } from './dag'
import { activeBranch, filesNodeOf } from './plan-rewind'
import { getBranch } from './sessions'
import type { BranchRecord, SessionRecord } from './types'

/** Whether the files (holding `filesNode`'s code) differ from `head`'s code. */
export type CodeDiffers = (filesNode: string, head: string, headLeftSequence: number | null) => boolean

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

export function sessionBranches(db: Database, sessionId: string): BranchRecord[] {
  return (
    statement(
      db,
      'SELECT branch_id FROM branches WHERE session_id = ? AND archived < 2 ORDER BY created_at_ms, rowid',
    ).all(sessionId) as Array<{ branch_id: string }>
  ).flatMap((row) => getBranch(db, row.branch_id) ?? [])
}

export const restoreApplying = (db: Database, sessionId: string) =>
  statement(db, "SELECT 1 FROM restore_intents WHERE session_id = ? AND status = 'applying' LIMIT 1").get(sessionId) !==
  undefined

const runningTurn = (db: Database, sessionId: string) =>
  statement(db, "SELECT 1 FROM nodes WHERE session_id = ? AND status = 'running' LIMIT 1").get(sessionId) !== undefined

function busyGuard(db: Database, sessionId: string): Outcome<null> {
  if (runningTurn(db, sessionId)) {
    return fail('BUSY', 'A turn is running in this session; stop it or wait.', { session_id: sessionId })
  }
  if (restoreApplying(db, sessionId)) {
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
    statement(db, 'UPDATE branches SET left_sequence = ? WHERE branch_id = ?').run(
      workspaceCounters(db, session.workspace_id).sequence,
      source.branch_id,
    )
  }
  const target = getBranch(db, to) as BranchRecord
  const differs = filesNode !== target.head_node_id && codeDiffers(filesNode, target.head_node_id, target.left_sequence)
  statement(db, 'UPDATE branches SET archived = 0 WHERE branch_id = ?').run(to)
  statement(
    db,
    'UPDATE sessions SET active_branch_id = ?, files_node_id = ?, alignment = ?, alignment_checkpoint_id = NULL, updated_at_ms = ? WHERE session_id = ?',
  ).run(to, differs ? filesNode : null, differs ? 'mismatch' : 'aligned', Date.now(), session.session_id)
  // Asynchronous work begun on the branch left must not write after the switch (spec 04).
  statement(db, 'UPDATE branches SET writer_epoch = writer_epoch + 1 WHERE branch_id = ?').run(source.branch_id)
}

/** "Branch from here": a new branch whose head is that node; files stay as they are. */
export function branchFromHere(
  db: Database,
  session: SessionRecord,
  nodeId: string,
  codeDiffers: CodeDiffers,
): Outcome<{ branch_id: string }> {
  const node = getNode(db, nodeId)
  if (!node || node.session_id !== session.session_id || node.kind === 'user') {
    return fail('NOT_FOUND', 'Branch from an assistant turn (or the start) of this session.', { node_id: nodeId })
  }
  if (node.status === 'running') return fail('BUSY', 'Wait for this turn to finish before branching from it.')
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id)
    if (guard.kind === 'error') return guard
    const branchId = `br_${randomUUID()}`
    const checkpoint =
      node.kind === 'assistant' && node.parent_node_id !== null
        ? (statement(
            db,
            "SELECT checkpoint_id FROM checkpoints WHERE user_node_id = ? AND boundary = 'after_turn' LIMIT 1",
          ).get(node.parent_node_id) as { checkpoint_id: string } | undefined)
        : undefined
    statement(
      db,
      `INSERT INTO branches (branch_id, session_id, parent_branch_id, fork_checkpoint_id, head_node_id, head_version, writer_epoch, created_at_ms, fork_node_id)
       VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)`,
    ).run(
      branchId,
      session.session_id,
      session.active_branch_id,
      checkpoint?.checkpoint_id ?? null,
      nodeId,
      Date.now(),
      nodeId,
    )
    moveActive(db, session, branchId, codeDiffers)
    return ok({ branch_id: branchId })
  })
}

export function switchBranch(
  db: Database,
  session: SessionRecord,
  branchId: string,
  codeDiffers: CodeDiffers,
): Outcome<null> {
  const branch = getBranch(db, branchId)
  if (!branch || branch.session_id !== session.session_id) {
    return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId })
  }
  if (branchId === session.active_branch_id) return ok(null)
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id)
    if (guard.kind === 'error') return guard
    moveActive(db, session, branchId, codeDiffers)
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
    return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId })
  }
  if (archived && branchId === session.active_branch_id) {
    return fail('UNAVAILABLE', 'Switch to another branch before archiving this one.', { reason: 'active-branch' })
  }
  statement(db, 'UPDATE branches SET archived = ? WHERE branch_id = ? AND archived < 2').run(archived ? 1 : 0, branchId)
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
    })
  }
  const guard = busyGuard(db, session.session_id)
  if (guard.kind === 'error') return guard
  const head = getNode(db, alignment.head_node_id)
  const { sequence, revision } = workspaceCounters(db, session.workspace_id)
  // The checkpoint names the head's prompt node (ROOT when the branch has no turn yet).
  const promptNode =
    head?.kind === 'assistant' && head.parent_node_id !== null ? head.parent_node_id : alignment.head_node_id
  statement(db, "INSERT INTO checkpoints VALUES (?, ?, ?, 'adopt_workspace', ?, ?, ?, ?, ?)").run(
    `cp_${randomUUID()}`,
    session.session_id,
    session.active_branch_id,
    promptNode,
    head?.kind === 'assistant' ? head.node_id : null,
    sequence,
    revision,
    Date.now(),
  )
  statement(
    db,
    "UPDATE sessions SET files_node_id = NULL, alignment = 'aligned', alignment_checkpoint_id = NULL, updated_at_ms = ? WHERE session_id = ?",
  ).run(Date.now(), session.session_id)
  return ok(null)
}

/**
 * Spec 04 purge, explicit and final. A branch (archived, not active): the nodes only its chain
 * reaches go (never a node another branch's chain, or the files, still reaches), with their
 * checkpoints, change sets and parts; its row stays as a tombstone (`archived = 2`) so the
 * checkpoints and change sets of shared nodes keep their branch. A session (archived): all of
 * it. Either way the recovery blobs of the turns' transactions are released (each lineage's first
 * baseline stays): the receipts remain as the project's record, the content store frees a blob
 * once nothing names it.
 */
export function purge(
  db: Database,
  session: SessionRecord,
  branchId: string | undefined,
  journal: {
    /** Releases the recovery blobs of these transactions (the journal's own rows). */
    release: (transactionIds: readonly string[]) => number
    sessionTransactions: (sessionId: string) => string[]
    turnTransactions: (turnIds: readonly string[]) => string[]
  },
  /** Other modules' rows that name the session (the agent's reads and allowed commands). */
  beforeSessionDeleted: (sessionId: string) => void,
): Outcome<{ nodes: number; transactions_released: number }> {
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id)
    if (guard.kind === 'error') return guard
    if (branchId === undefined) {
      if (session.state !== 'archived')
        return fail('UNAVAILABLE', 'Archive the session before purging it.', { reason: 'not-archived' })
      const nodes = statement(db, 'SELECT node_id FROM nodes WHERE session_id = ?').all(session.session_id) as Array<{
        node_id: string
      }>
      const released = journal.release(journal.sessionTransactions(session.session_id))
      beforeSessionDeleted(session.session_id)
      for (const table of [
        'turn_parts WHERE node_id IN (SELECT node_id FROM nodes WHERE session_id = ?)',
        'change_sets WHERE session_id = ?',
        'checkpoints WHERE session_id = ?',
        'restore_intents WHERE session_id = ?',
        'branches WHERE session_id = ?',
        'nodes WHERE session_id = ?',
        'sessions WHERE session_id = ?',
      ]) {
        statement(db, `DELETE FROM ${table}`).run(session.session_id)
      }
      return ok({ nodes: nodes.length, transactions_released: released })
    }
    const branch = getBranch(db, branchId)
    if (!branch || branch.session_id !== session.session_id) {
      return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId })
    }
    if (!branch.archived || branchId === session.active_branch_id) {
      return fail('UNAVAILABLE', 'Archive the branch (and switch away from it) before purging it.', {
        reason: 'not-archived',
      })
    }
    const kept = new Set<string>()
    for (const other of sessionBranches(db, session.session_id)) {
      if (other.branch_id === branchId) continue
      for (const node of chainOf(db, other.head_node_id)) kept.add(node.node_id)
    }
    for (const node of chainOf(db, filesNodeOf(db, session))) kept.add(node.node_id)
    const chain = chainOf(db, branch.head_node_id)
    const doomed = chain.filter((node) => !kept.has(node.node_id)).map((node) => node.node_id)
    const survivor = [...chain].reverse().find((node) => kept.has(node.node_id))?.node_id ?? session.root_node_id
    const turnIds = doomed.filter((id) => getNode(db, id)?.kind === 'assistant')
    const released = journal.release(journal.turnTransactions(turnIds))
    statement(db, 'UPDATE branches SET parent_branch_id = ? WHERE parent_branch_id = ?').run(
      branch.parent_branch_id,
      branchId,
    )
    statement(db, 'UPDATE branches SET archived = 2, head_node_id = ?, fork_node_id = NULL WHERE branch_id = ?').run(
      survivor,
      branchId,
    )
    if (doomed.length > 0) {
      const list = JSON.stringify(doomed)
      statement(db, 'DELETE FROM turn_parts WHERE node_id IN (SELECT value FROM json_each(?))').run(list)
      statement(db, 'DELETE FROM change_sets WHERE producer_turn_id IN (SELECT value FROM json_each(?))').run(list)
      statement(
        db,
        'DELETE FROM checkpoints WHERE user_node_id IN (SELECT value FROM json_each(?)) OR assistant_node_id IN (SELECT value FROM json_each(?))',
      ).run(list, list)
      statement(db, 'DELETE FROM nodes WHERE node_id IN (SELECT value FROM json_each(?))').run(list)
    }
    return ok({ nodes: doomed.length, transactions_released: released })
  })
}

/** A turn's prompt text, for the composer after a rewind (re-exported for the module). */
export { promptText }
