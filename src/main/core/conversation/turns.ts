import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome, type PatchPart } from '../../../shared/protocol'
import { countChanges, foldReceipts, isNoChange } from '../changes'
import { queryAllReceipts, workspaceCounters, type Attribution, type Receipt } from '../journal'
import { inImmediateTransaction, type BlobStore, type Database } from '../store'
import { getBranch, moveHead, writerEpochOf } from './branches'
import { insertChangeSet } from './change-sets'
import { checkpointAt, insertCheckpoint } from './checkpoints'
import { finishNode, insertNode, runningAssistantNodes, runningNodeOf, turnOf } from './nodes'
import {
  ALIGNED,
  nameUntitled,
  projectOfSession,
  sessionRow,
  setFiles,
  titleFromPrompt,
  touchSession,
} from './sessions'
import { classifyTurnChanges, turnCommandNotes } from './turn-changes'
import { deleteTurnParts } from './turn-parts'
import type { Part, SessionRecord, TurnSummary } from './types'

export interface Turn {
  /** The assistant node that answers the prompt: the id receipts carry as origin/producer turn. */
  readonly turn_id: string
  readonly user_node_id: string
  readonly session_id: string
  readonly branch_id: string
  readonly before_checkpoint_id: string
  /** The branch's writer epoch when the turn began: a restore or switch since bumps it. */
  readonly writer_epoch: number
  /** What every trusted mutation of this turn's main actor is recorded with. */
  readonly attribution: Attribution
}

/** Whether a restore of the session is being applied (restore/ owns restore intents). */
export type RestoreApplying = (sessionId: string) => boolean

/**
 * Begins a turn on the session's active branch: the user node, its `before_turn` checkpoint (bound
 * to the journal sequence and workspace revision right now), and the running assistant node, with
 * the branch head moved forward by compare-and-set on head_version.
 */
export function beginTurn(
  db: Database,
  session: SessionRecord,
  text: string,
  restoreApplying: RestoreApplying,
): Outcome<Turn> {
  return inImmediateTransaction(db, () => {
    const running = runningNodeOf(db, session.session_id)
    if (running !== null) {
      return fail('BUSY', 'This session is still answering; wait for the turn to finish or stop it.', {
        session_id: session.session_id,
        turn_id: running,
        reason: 'turn-running',
      })
    }
    if (restoreApplying(session.session_id)) {
      return fail('BUSY', 'A restore of this session is being applied; wait for it to finish.', {
        session_id: session.session_id,
        reason: 'restore-applying',
      })
    }
    // Re-read: the caller's copy may predate a rewind, a switch or an alignment choice.
    const current = sessionRow(db, session.session_id) as SessionRecord
    if (current.alignment === 'mismatch') {
      // Spec 04: never let a turn that may write start on files that are not this branch's code.
      return fail(
        'UNAVAILABLE',
        'The files are not this branch’s code. Choose Keep current files or Restore branch code first.',
        { reason: 'misaligned', session_id: session.session_id },
      )
    }
    const branch = getBranch(db, current.active_branch_id)
    if (!branch) throw new Error(`session ${session.session_id} has no active branch`)
    const now = Date.now()
    const userNodeId = `node_${randomUUID()}`
    const turnId = `turn_${randomUUID()}`
    const checkpointId = `cp_${randomUUID()}`
    insertNode(db, {
      node_id: userNodeId,
      session_id: session.session_id,
      parent_node_id: branch.head_node_id,
      kind: 'user',
      parts: [{ type: 'text', id: 'prompt', text }],
      status: 'complete',
      created_at_ms: now,
    })
    const { sequence, revision } = workspaceCounters(db, session.workspace_id)
    insertCheckpoint(db, {
      checkpoint_id: checkpointId,
      session_id: session.session_id,
      branch_id: branch.branch_id,
      boundary: 'before_turn',
      user_node_id: userNodeId,
      assistant_node_id: null,
      journal_sequence: sequence,
      workspace_revision: revision,
      created_at_ms: now,
    })
    insertNode(db, {
      node_id: turnId,
      session_id: session.session_id,
      parent_node_id: userNodeId,
      kind: 'assistant',
      parts: [],
      status: 'running',
      created_at_ms: now,
    })
    if (!moveHead(db, branch.branch_id, turnId, branch.head_version)) throw new Error('branch head moved concurrently')
    // A turn on code-rewound files continues from them: the banner's mismatch is resolved.
    setFiles(db, session.session_id, ALIGNED, now)
    const title = current.titled === 0 ? titleFromPrompt(text) : undefined
    // The first prompt names a session nobody named (re-read: a rename may have raced this turn).
    if (title !== undefined) nameUntitled(db, session.session_id, title)
    return ok({
      turn_id: turnId,
      user_node_id: userNodeId,
      session_id: session.session_id,
      branch_id: branch.branch_id,
      before_checkpoint_id: checkpointId,
      writer_epoch: branch.writer_epoch,
      attribution: {
        kind: 'edit',
        session_id: session.session_id,
        branch_id: branch.branch_id,
        producer_turn_id: turnId,
        origin_turn_id: turnId,
        actor_id: 'main',
      },
    })
  })
}

/**
 * Spec 04 step 4: a turn whose branch's writer epoch moved since it began (a restore, a rewind, a
 * branch switch) must not write any more. Called under the workspace lock before each mutation.
 */
export function writerEpochCurrent(db: Database, turn: Pick<Turn, 'branch_id' | 'writer_epoch'>): Outcome<null> {
  if (writerEpochOf(db, turn.branch_id) === turn.writer_epoch) return ok(null)
  return fail('UNAVAILABLE', 'This branch was restored or switched since the turn began; nothing was written.', {
    reason: 'stale-writer',
  })
}

/**
 * Finishes a turn: its parts and status, the `after_turn` checkpoint, and one change set per actor
 * with the stored summary. Cost grows with the files the turn changed, never with the workspace.
 */
export async function finalizeTurn(
  db: Database,
  blobs: BlobStore,
  session: SessionRecord,
  input: {
    turn_id: string
    parts: readonly Part[]
    status: 'complete' | 'aborted' | 'error'
    statsBudgetBytes: number
    /** The complete file list of a patch part whose stored list was cut short (from its two snapshots). */
    patchFiles?: (patch: PatchPart) => Promise<readonly string[] | null>
  },
): Promise<Outcome<{ summary: TurnSummary }>> {
  const node = turnOf(db, session.session_id, input.turn_id)
  if (!node)
    return fail('NOT_FOUND', `There is no turn "${input.turn_id}" in this session.`, {
      turn_id: input.turn_id,
      reason: 'no-turn',
    })
  if (node.status !== 'running')
    return fail('CONFLICT', 'This turn has already finished.', { turn_id: input.turn_id, reason: 'turn-finished' })
  const receipts = queryAllReceipts(db, { workspace_id: session.workspace_id, origin_turn_id: input.turn_id })
  const committed = receipts.filter((r) => r.status === 'committed')
  const byActor = new Map<string, Receipt[]>()
  for (const receipt of committed) {
    const actor = receipt.actor_id ?? 'main'
    const list = byActor.get(actor)
    if (list) list.push(receipt)
    else byActor.set(actor, [receipt])
  }
  const summaries = new Map<string, TurnSummary>()
  for (const [actor, list] of byActor) summaries.set(actor, await summarise(list, blobs, input.statsBudgetBytes))
  // One actor (the usual case): its summary is the turn's.
  const onlyActor = byActor.size === 1 ? [...summaries.values()][0] : undefined
  const journaled = onlyActor ?? (await summarise(committed, blobs, input.statsBudgetBytes))
  // Spec 06: files the turn's commands changed, shown next to (never inside) the exact counts.
  const patchFiles = input.patchFiles ?? (async () => null)
  const commandFiles = (await classifyTurnChanges(input.parts, committed, patchFiles)).changes.length
  // Issue 23: what commands changed that is not recorded, or not restored by default, is said.
  const notes = await turnCommandNotes(input.parts, committed, patchFiles)
  const noted = Object.keys(notes).length > 0
  const total: TurnSummary = {
    ...journaled,
    ...(commandFiles > 0 ? { command_files: commandFiles } : {}),
    ...notes,
  }

  // The turn card's exact counts travel with the parts (spec 05 `file-summary`).
  const parts: readonly Part[] =
    total.files > 0 || commandFiles > 0 || noted
      ? [...input.parts, { type: 'file-summary', id: 'file-summary', summary: total }]
      : input.parts
  inImmediateTransaction(db, () => {
    const now = Date.now()
    finishNode(db, input.turn_id, parts, input.status)
    deleteTurnParts(db, [input.turn_id])
    const { sequence, revision } = workspaceCounters(db, session.workspace_id)
    const before = checkpointAt(db, node.parent_node_id, 'before_turn') as { branch_id: string }
    insertCheckpoint(db, {
      checkpoint_id: `cp_${randomUUID()}`,
      session_id: session.session_id,
      branch_id: before.branch_id,
      boundary: 'after_turn',
      user_node_id: node.parent_node_id,
      assistant_node_id: input.turn_id,
      journal_sequence: sequence,
      workspace_revision: revision,
      created_at_ms: now,
    })
    for (const [actor, list] of byActor) {
      insertChangeSet(db, {
        change_set_id: `chg_${randomUUID()}`,
        session_id: session.session_id,
        branch_id: before.branch_id,
        producer_turn_id: list[0]?.producer_turn_id ?? input.turn_id,
        origin_turn_id: input.turn_id,
        actor_id: actor,
        transaction_ids: list.map((r) => r.transaction_id),
        summary: summaries.get(actor),
        created_at_ms: now,
      })
    }
    touchSession(db, session.session_id, now)
  })
  return ok({ summary: total })
}

/** The turn card's counts: the net change of every lineage the receipts touched, counted exactly. */
async function summarise(receipts: readonly Receipt[], blobs: BlobStore, budget: number): Promise<TurnSummary> {
  const net = await countChanges(
    foldReceipts(receipts).filter((change) => !isNoChange(change)),
    blobs,
    budget,
  )
  let added: number | null = 0
  let removed: number | null = 0
  for (const change of net) {
    if ('added' in change.stats && added !== null && removed !== null) {
      added += change.stats.added
      removed += change.stats.removed
    } else {
      added = null
      removed = null
    }
  }
  const outside = net.reduce((sum, change) => sum + change.gaps, 0)
  return {
    files: net.length,
    added,
    removed,
    first_files: net.slice(0, 3).map((change) => change.last_path),
    transactions: receipts.length,
    ...(outside > 0 ? { outside_changes: outside } : {}),
  }
}

/** Assistant turns left `running` (by a process that stopped), with their session and project. */
export function interruptedTurns(
  db: Database,
): Array<{ node_id: string; parent_node_id: string; project_id: string; session_id: string }> {
  return runningAssistantNodes(db).flatMap((node) => {
    const projectId = projectOfSession(db, node.session_id)
    return projectId === undefined ? [] : [{ ...node, project_id: projectId }]
  })
}
