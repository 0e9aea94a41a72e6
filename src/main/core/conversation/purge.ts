import { fail, ok, type Outcome } from '../../../shared/protocol'
import { inImmediateTransaction, type Database } from '../store'
import { deleteSessionBranches, getBranch, sessionBranches, tombstoneBranch } from './branches'
import { busyGuard, filesNodeOf } from './branching'
import { deleteSessionChangeSets, deleteTurnChangeSets } from './change-sets'
import { deleteNodeCheckpoints, deleteSessionCheckpoints } from './checkpoints'
import { chainOf, deleteNodes, deleteSessionNodes, getNode, sessionNodeIds } from './nodes'
import { deleteSession } from './sessions'
import { deleteTurnParts } from './turn-parts'
import type { RestoreApplying } from './turns'
import type { SessionRecord } from './types'

/** What a purge asks of the journal (its own rows) and of the modules that keep rows per session. */
export interface PurgeDependencies {
  /** Releases the recovery blobs of these transactions (the journal's own rows). */
  readonly release: (transactionIds: readonly string[]) => number
  readonly sessionTransactions: (sessionId: string) => string[]
  readonly turnTransactions: (turnIds: readonly string[]) => string[]
  readonly restoreApplying: RestoreApplying
  /** Other modules' rows that name the session (restore intents, the agent's reads and allowed commands). */
  readonly beforeSessionDeleted: (sessionId: string) => void
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
  deps: PurgeDependencies,
): Outcome<{ nodes: number; transactions_released: number }> {
  return inImmediateTransaction(db, () => {
    const guard = busyGuard(db, session.session_id, deps.restoreApplying)
    if (guard.kind === 'error') return guard
    if (branchId === undefined) {
      if (session.state !== 'archived')
        return fail('UNAVAILABLE', 'Archive the session before purging it.', { reason: 'not-archived' })
      const nodes = sessionNodeIds(db, session.session_id)
      const released = deps.release(deps.sessionTransactions(session.session_id))
      deps.beforeSessionDeleted(session.session_id)
      // Rows that name a node or a branch go before the node or branch does (foreign keys).
      deleteTurnParts(db, nodes)
      deleteSessionChangeSets(db, session.session_id)
      deleteSessionCheckpoints(db, session.session_id)
      deleteSessionBranches(db, session.session_id)
      deleteSessionNodes(db, session.session_id)
      deleteSession(db, session.session_id)
      return ok({ nodes: nodes.length, transactions_released: released })
    }
    const branch = getBranch(db, branchId)
    if (!branch || branch.session_id !== session.session_id) {
      return fail('NOT_FOUND', 'There is no such branch in this session.', { branch_id: branchId, reason: 'no-branch' })
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
    const released = deps.release(deps.turnTransactions(turnIds))
    tombstoneBranch(db, branch, survivor)
    if (doomed.length > 0) {
      deleteTurnParts(db, doomed)
      deleteTurnChangeSets(db, doomed)
      deleteNodeCheckpoints(db, doomed)
      deleteNodes(db, doomed)
    }
    return ok({ nodes: doomed.length, transactions_released: released })
  })
}
