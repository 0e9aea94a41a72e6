import { statement, type Database } from '../store'
import type { BranchRecord } from './types'

/**
 * The `branches` table: every statement on it is in this file. A purged branch stays as a
 * tombstone (`archived = 2`) so the checkpoints and change sets of shared nodes keep their branch;
 * nothing here finds or revives one.
 */

export function insertBranch(
  db: Database,
  branch: {
    branch_id: string
    session_id: string
    parent_branch_id: string | null
    fork_checkpoint_id: string | null
    head_node_id: string
    fork_node_id: string | null
    created_at_ms: number
  },
): void {
  statement(
    db,
    `INSERT INTO branches (branch_id, session_id, parent_branch_id, fork_checkpoint_id, head_node_id, head_version, writer_epoch, created_at_ms, fork_node_id)
     VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?)`,
  ).run(
    branch.branch_id,
    branch.session_id,
    branch.parent_branch_id,
    branch.fork_checkpoint_id,
    branch.head_node_id,
    branch.created_at_ms,
    branch.fork_node_id,
  )
}

/** A branch (a purged one is a tombstone and is not found). */
export function getBranch(db: Database, branchId: string): BranchRecord | undefined {
  const row = statement(db, 'SELECT * FROM branches WHERE branch_id = ? AND archived < 2').get(branchId) as
    (Omit<BranchRecord, 'archived'> & { archived: number }) | undefined
  return row ? { ...row, archived: row.archived !== 0 } : undefined
}

/** The session's branches, oldest first (tombstones left out). */
export function sessionBranches(db: Database, sessionId: string): BranchRecord[] {
  return (
    statement(
      db,
      'SELECT branch_id FROM branches WHERE session_id = ? AND archived < 2 ORDER BY created_at_ms, rowid',
    ).all(sessionId) as Array<{ branch_id: string }>
  ).flatMap((row) => getBranch(db, row.branch_id) ?? [])
}

/** Moves a head by compare-and-set on head_version: false when someone moved it first. */
export function moveHead(db: Database, branchId: string, toNodeId: string, expectedHeadVersion: number): boolean {
  const moved = statement(
    db,
    'UPDATE branches SET head_node_id = ?, head_version = head_version + 1 WHERE branch_id = ? AND head_version = ?',
  ).run(toNodeId, branchId, expectedHeadVersion)
  return Number(moved.changes) === 1
}

export function writerEpochOf(db: Database, branchId: string): number | undefined {
  const row = statement(db, 'SELECT writer_epoch FROM branches WHERE branch_id = ?').get(branchId) as
    { writer_epoch: number } | undefined
  return row?.writer_epoch
}

/** Asynchronous work begun on the branch must not write any more (spec 04). */
export function bumpWriterEpoch(db: Database, branchId: string): void {
  statement(db, 'UPDATE branches SET writer_epoch = writer_epoch + 1 WHERE branch_id = ?').run(branchId)
}

/** The workspace sequence at which the files last held this branch's head. */
export function setLeftSequence(db: Database, branchId: string, sequence: number): void {
  statement(db, 'UPDATE branches SET left_sequence = ? WHERE branch_id = ?').run(sequence, branchId)
}

/** When the files last held `headNodeId` as some branch's head (a fork's worktree starts there). */
export function leftSequenceAt(db: Database, sessionId: string, headNodeId: string): number | null {
  const row = statement(
    db,
    'SELECT left_sequence FROM branches WHERE session_id = ? AND head_node_id = ? AND left_sequence IS NOT NULL LIMIT 1',
  ).get(sessionId, headNodeId) as { left_sequence: number } | undefined
  return row?.left_sequence ?? null
}

export function setArchived(db: Database, branchId: string, archived: boolean): void {
  statement(db, 'UPDATE branches SET archived = ? WHERE branch_id = ? AND archived < 2').run(archived ? 1 : 0, branchId)
}

/** A purged branch's children hang off its parent; the branch becomes a tombstone at a surviving node. */
export function tombstoneBranch(db: Database, branch: BranchRecord, survivorNodeId: string): void {
  statement(db, 'UPDATE branches SET parent_branch_id = ? WHERE parent_branch_id = ?').run(
    branch.parent_branch_id,
    branch.branch_id,
  )
  statement(db, 'UPDATE branches SET archived = 2, head_node_id = ?, fork_node_id = NULL WHERE branch_id = ?').run(
    survivorNodeId,
    branch.branch_id,
  )
}

/** A copied conversation's head (a fork's only branch, which nothing else can have moved yet). */
export function setHead(db: Database, branchId: string, nodeId: string): void {
  statement(db, 'UPDATE branches SET head_node_id = ?, head_version = head_version + 1 WHERE branch_id = ?').run(
    nodeId,
    branchId,
  )
}

export function deleteSessionBranches(db: Database, sessionId: string): void {
  statement(db, 'DELETE FROM branches WHERE session_id = ?').run(sessionId)
}
