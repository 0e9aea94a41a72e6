import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome, type PatchPart } from '../../../shared/protocol'
import { countChanges, foldReceipts, isNoChange } from '../changes'
import { queryAllReceipts, workspaceCounters, type Attribution, type Receipt } from '../journal'
import { commandChanges, commandNotes, commandPatches } from '../snapshot'
import { inImmediateTransaction, statement, type BlobStore, type Database } from '../store'
import { getBranch, titleFromPrompt } from './sessions'
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

/**
 * Begins a turn on the session's active branch: the user node, its `before_turn` checkpoint (bound
 * to the journal sequence and workspace revision right now), and the running assistant node, with
 * the branch head moved forward by compare-and-set on head_version.
 */
export function beginTurn(db: Database, session: SessionRecord, text: string): Outcome<Turn> {
  return inImmediateTransaction(db, () => {
    const running = statement(db, "SELECT node_id FROM nodes WHERE session_id = ? AND status = 'running' LIMIT 1").get(
      session.session_id,
    ) as { node_id: string } | undefined
    if (running) {
      return fail('BUSY', 'This session is still answering; wait for the turn to finish or stop it.', {
        session_id: session.session_id,
        turn_id: running.node_id,
      })
    }
    if (
      statement(db, "SELECT 1 FROM restore_intents WHERE session_id = ? AND status = 'applying' LIMIT 1").get(
        session.session_id,
      )
    ) {
      return fail('BUSY', 'A restore of this session is being applied; wait for it to finish.', {
        session_id: session.session_id,
        reason: 'restore-applying',
      })
    }
    // Re-read: the caller's copy may predate a rewind, a switch or an alignment choice.
    const current = statement(db, 'SELECT active_branch_id, alignment, titled FROM sessions WHERE session_id = ?').get(
      session.session_id,
    ) as { active_branch_id: string; alignment: string; titled: number }
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
    const parts: Part[] = [{ type: 'text', id: 'prompt', text }]
    const insertNode = statement(db, 'INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?)')
    insertNode.run(userNodeId, session.session_id, branch.head_node_id, 'user', JSON.stringify(parts), 'complete', now)
    const { sequence, revision } = workspaceCounters(db, session.workspace_id)
    statement(db, "INSERT INTO checkpoints VALUES (?, ?, ?, 'before_turn', ?, NULL, ?, ?, ?)").run(
      checkpointId,
      session.session_id,
      branch.branch_id,
      userNodeId,
      sequence,
      revision,
      now,
    )
    insertNode.run(turnId, session.session_id, userNodeId, 'assistant', '[]', 'running', now)
    const moved = statement(
      db,
      'UPDATE branches SET head_node_id = ?, head_version = head_version + 1 WHERE branch_id = ? AND head_version = ?',
    ).run(turnId, branch.branch_id, branch.head_version)
    if (Number(moved.changes) !== 1) throw new Error('branch head moved concurrently')
    // A turn on code-rewound files continues from them: the banner's mismatch is resolved.
    statement(
      db,
      "UPDATE sessions SET updated_at_ms = ?, files_node_id = NULL, alignment = 'aligned', alignment_checkpoint_id = NULL WHERE session_id = ?",
    ).run(now, session.session_id)
    const title = current.titled === 0 ? titleFromPrompt(text) : undefined
    if (title !== undefined) {
      // The first prompt names a session nobody named (re-read: a rename may have raced this turn).
      statement(db, 'UPDATE sessions SET title = ?, titled = 1 WHERE session_id = ? AND titled = 0').run(
        title,
        session.session_id,
      )
    }
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
  const row = statement(db, 'SELECT writer_epoch FROM branches WHERE branch_id = ?').get(turn.branch_id) as
    { writer_epoch: number } | undefined
  if (row?.writer_epoch === turn.writer_epoch) return ok(null)
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
  const node = statement(
    db,
    "SELECT status, parent_node_id FROM nodes WHERE node_id = ? AND kind = 'assistant' AND session_id = ?",
  ).get(input.turn_id, session.session_id) as { status: string; parent_node_id: string } | undefined
  if (!node)
    return fail('NOT_FOUND', `There is no turn "${input.turn_id}" in this session.`, { turn_id: input.turn_id })
  if (node.status !== 'running') return fail('CONFLICT', 'This turn has already finished.', { turn_id: input.turn_id })
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
  const receiptPaths = new Map(
    committed.map((r) => [r.transaction_id, r.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path]))]),
  )
  const receiptPathsOf = (id: string) => receiptPaths.get(id) ?? []
  const commandFiles = commandChanges(
    await commandPatches(input.parts, receiptPathsOf, input.patchFiles ?? (async () => null)),
  ).length
  // Issue 23: what commands changed that is not recorded, or not restored by default, is said.
  const notes = await commandNotes(input.parts, receiptPathsOf, input.patchFiles ?? (async () => null))
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
    statement(db, 'UPDATE nodes SET parts = ?, status = ? WHERE node_id = ?').run(
      JSON.stringify(parts),
      input.status,
      input.turn_id,
    )
    statement(db, 'DELETE FROM turn_parts WHERE node_id = ?').run(input.turn_id)
    const { sequence, revision } = workspaceCounters(db, session.workspace_id)
    const branch = statement(db, 'SELECT branch_id FROM checkpoints WHERE user_node_id = ? AND boundary = ?').get(
      node.parent_node_id,
      'before_turn',
    ) as { branch_id: string }
    statement(db, "INSERT INTO checkpoints VALUES (?, ?, ?, 'after_turn', ?, ?, ?, ?, ?)").run(
      `cp_${randomUUID()}`,
      session.session_id,
      branch.branch_id,
      node.parent_node_id,
      input.turn_id,
      sequence,
      revision,
      now,
    )
    for (const [actor, list] of byActor) {
      statement(db, 'INSERT INTO change_sets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
        `chg_${randomUUID()}`,
        session.session_id,
        branch.branch_id,
        list[0]?.producer_turn_id ?? input.turn_id,
        input.turn_id,
        actor,
        JSON.stringify(list.map((r) => r.transaction_id)),
        JSON.stringify(summaries.get(actor)),
        now,
      )
    }
    statement(db, 'UPDATE sessions SET updated_at_ms = ? WHERE session_id = ?').run(now, session.session_id)
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
