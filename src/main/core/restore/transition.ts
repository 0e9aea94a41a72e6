import { foldReceipts, type NetChange } from '../changes'
import { queryAllReceipts, turnLineagePaths, workspaceCounters, type FileState, type Receipt } from '../journal'
import type { Database } from '../store'
import { chainOf, checkpointAt, commonAncestorIndex, turnsAfter, type ChainNode } from '../conversation'
import { pathMoves, pathStateOf, sameContent, sameState, type RestoreAction } from './preflight'

/**
 * Moving the files from the code of one conversation node to the code of another (spec 04: a
 * rewind, "Restore branch code", a redo of a rewind). Both nodes' predecessor chains meet at a
 * common ancestor A. The turns after A on the `from` side are undone: every file lineage they
 * touched goes back to its state at `undoSequence` (the checkpoint of the rewind, by default the
 * `before_turn` checkpoint of the first of them). The turns after A on the `to` side are
 * re-applied: every lineage they touched goes to its state at `redoSequence` (when the files last
 * held that branch's head, else the `after_turn` checkpoint of `to`). Lineages no turn of either
 * side touched — a sibling branch's, the person's — are never acted on.
 *
 * Each lineage is one action, however many turns touched it: the one net-change fold over every
 * committed receipt of that lineage after its target sequence gives the state to go back to (its
 * first before) and the state the files must hold now (its last after). A break in that chain (a
 * write outside Retrace) or a receipt that is not exact, or whose blobs expired, makes the code
 * restore unavailable for that path; the conversation is never affected by it.
 */
export interface TransitionInput {
  readonly workspaceId: string
  /** The session whose restores (revert, reapply, rewind) count as its own moves, not outside changes. */
  readonly sessionId?: string | undefined
  readonly from: string
  readonly to: string
  readonly undoSequence?: number | undefined
  readonly redoSequence?: number | null | undefined
}

export interface Transition {
  /** Turns whose changes are undone (the `from` side after the common ancestor), oldest first. */
  readonly undoTurns: string[]
  /** Turns whose changes are re-applied (the `to` side), oldest first. */
  readonly redoTurns: string[]
  readonly fromChain: ChainNode[]
  readonly toChain: ChainNode[]
  /** One action per path, in workspace-sequence order of each lineage's first change. */
  readonly actions: RestoreAction[]
  readonly unavailable: Array<{ path: string; reason: string }>
}

export function planTransition(db: Database, input: TransitionInput): Transition {
  const fromChain = chainOf(db, input.from)
  const toChain = input.to === input.from ? fromChain : chainOf(db, input.to)
  const common = commonAncestorIndex(fromChain, toChain)
  const undoTurns = turnsAfter(fromChain, common)
  const redoTurns = turnsAfter(toChain, common)
  const empty = { undoTurns, redoTurns, fromChain, toChain, actions: [], unavailable: [] }
  if (undoTurns.length === 0 && redoTurns.length === 0) return empty

  const undoLineages = turnLineagePaths(db, input.workspaceId, undoTurns)
  const redoLineages = turnLineagePaths(db, input.workspaceId, redoTurns)
  if (undoLineages.size === 0 && redoLineages.size === 0) return empty

  const now = workspaceCounters(db, input.workspaceId).sequence
  const firstUndoPrompt = fromChain[common + 1]
  const undoSequence =
    input.undoSequence ??
    (firstUndoPrompt ? (checkpointAt(db, firstUndoPrompt.node_id, 'before_turn')?.journal_sequence ?? now) : now)
  const toNode = toChain[toChain.length - 1]
  const afterTo =
    toNode?.kind === 'assistant' && toNode.parent_node_id !== null
      ? checkpointAt(db, toNode.parent_node_id, 'after_turn')
      : undefined
  const redoSequence = input.redoSequence ?? afterTo?.journal_sequence ?? now

  const since = Math.min(
    ...(undoLineages.size > 0 ? [undoSequence] : []),
    ...(redoLineages.size > 0 ? [redoSequence] : []),
  )
  const receipts = queryAllReceipts(db, { workspace_id: input.workspaceId, since_sequence: since })
  // A restore that recreates a deleted file records a new lineage on the same path (the journal
  // gives every create its own): the lineages on the paths the turns' lineages held belong to the
  // same file as far as a restore is concerned.
  const redoSide = samePathLineages(receipts, redoLineages, redoSequence)
  const undoSide = new Set(
    [...samePathLineages(receipts, undoLineages, undoSequence)].filter((lineage) => !redoSide.has(lineage)),
  )
  const sides = [
    { lineages: undoSide, sequence: undoSequence },
    { lineages: redoSide, sequence: redoSequence },
  ].filter((side) => side.lineages.size > 0)
  const sequenceOf = new Map(receipts.map((r) => [r.transaction_id, r.workspace_sequence]))
  const turns = new Set([...undoTurns, ...redoTurns])
  // What the journal says each path holds now, whichever lineage put it there, and what the
  // session's own moves (the turns of either side, its restores) left there last.
  const pathNow = new Map<string, FileState>()
  const pathLeft = new Map<string, FileState>()
  const turnEdit = (receipt: Receipt) => receipt.kind === 'edit' && turns.has(receipt.origin_turn_id ?? '')
  const sessionRestore = (receipt: Receipt) =>
    RESTORE_KINDS.has(receipt.kind) && (input.sessionId === undefined || receipt.session_id === input.sessionId)
  // A restore of the session's is its own move unless it put back bytes someone else wrote: a
  // Redo of a rewind that included the person's version brings their bytes back, and a later
  // rewind must block on them again. Someone else's bytes: what another writer (the person,
  // another session) committed, and what a restore of ours replaced that was not ours.
  const foreign = new Map<string, Set<string>>()
  const sessionTurn = (receipt: Receipt) =>
    receipt.kind === 'edit' &&
    receipt.origin_turn_id !== null &&
    (input.sessionId === undefined || receipt.session_id === input.sessionId)
  const digestOf = (state: FileState) => (state.kind === 'regular' ? state.digest : undefined)
  const markForeign = (path: string, state: FileState) => {
    const digest = digestOf(state)
    if (digest === undefined) return
    const set = foreign.get(path) ?? new Set<string>()
    set.add(digest)
    foreign.set(path, set)
  }
  for (const receipt of receipts) {
    const edit = turnEdit(receipt)
    const restore = sessionRestore(receipt)
    for (const file of receipt.files) {
      if (file.old_path !== null) pathNow.set(file.old_path, { kind: 'absent' })
      pathNow.set(file.path, file.after)
      if (!edit && !restore) {
        // The session's turns on other branches are neither what these turns left nor foreign.
        if (!sessionTurn(receipt)) markForeign(file.path, file.after)
        continue
      }
      if (restore) {
        const left = pathLeft.get(file.path)
        if (left !== undefined && digestOf(file.before) !== digestOf(left)) markForeign(file.path, file.before)
        const after = digestOf(file.after)
        if (after !== undefined && foreign.get(file.path)?.has(after)) continue
      }
      if (file.old_path !== null) pathLeft.set(file.old_path, { kind: 'absent' })
      pathLeft.set(file.path, file.after)
    }
  }

  const changes: NetChange[] = []
  for (const side of sides) {
    const relevant = receipts.filter(
      (r) => r.workspace_sequence > side.sequence && r.files.some((f) => side.lineages.has(f.file_lineage_id)),
    )
    for (const change of foldReceipts(relevant.map((r) => onlyLineages(r, side.lineages)))) changes.push(change)
  }
  const firstSequence = (change: NetChange) => sequenceOf.get(change.transactions[0] ?? '') ?? 0
  changes.sort((a, b) => firstSequence(a) - firstSequence(b))

  const byPath = new Map<string, RestoreAction>()
  const unavailable: Array<{ path: string; reason: string }> = []
  for (const change of changes) {
    // Every side goes back to the state at its sequence: the lineage's first before.
    const moved = pathMoves(change, 'backwards')
    if (moved.kind === 'unavailable') {
      unavailable.push({ path: change.last_path, reason: moved.reason })
      continue
    }
    const changedOutside = change.actors.some(
      (actor) => actor.kind === 'human' || (actor.kind === 'edit' && !turns.has(actor.origin_turn_id ?? '')),
    )
    for (const [path, expected, goal] of moved.moves) {
      const now = pathNow.get(path)
      const held = now === undefined ? expected : pathStateOf(now)
      const action: RestoreAction = {
        path,
        file_lineage_id: change.file_lineage_id,
        expected: held === 'unsupported' ? expected : held,
        target: goal,
        ...(changedOutside ? { changed_outside: true } : {}),
      }
      const known = byPath.get(path)
      // Two lineages on one path (a file deleted, then another created there): what is there now
      // comes from the one that holds it, what goes back from the one that held it before.
      byPath.set(path, known ? mergeOnPath(known, action) : action)
    }
  }
  const unavailablePaths = new Set(unavailable.map((u) => u.path))
  const actions = [...byPath.values()]
    .filter((action) => !sameState(action.expected, action.target) && !unavailablePaths.has(action.path))
    .map((action) => expectWhatTheTurnsLeft(action, pathNow.get(action.path), pathLeft.get(action.path)))
  return { undoTurns, redoTurns, fromChain, toChain, actions, unavailable }
}

const RESTORE_KINDS: ReadonlySet<string> = new Set(['revert', 'reapply', 'rewind'])

/**
 * Issue 23 item 11, the rule Undo applies (a path must hold what the turn left): when the last
 * change of a path was not the session's own (the person saved it in Retrace's editor, another
 * session wrote it), the action expects what the turns left there, so the shared preflight blocks
 * it as `changed-since` with the diff against those bytes — never a silent overwrite. A path only
 * the outside touched since the boundary expects what it held there (the action's target). The
 * person then keeps their bytes or includes them (plan-rewind's `keep_current` / `include_conflicting`).
 */
function expectWhatTheTurnsLeft(
  action: RestoreAction,
  now: FileState | undefined,
  left: FileState | undefined,
): RestoreAction {
  if (now === undefined) return action
  const nowState = pathStateOf(now)
  const leftState = left === undefined ? action.target : pathStateOf(left)
  if (nowState === 'unsupported' || leftState === 'unsupported' || sameContent(nowState, leftState)) return action
  return { ...action, expected: leftState, changed_outside: true, outside_last: true }
}

/** The lineages plus every other lineage that held one of their paths after `sequence`. */
function samePathLineages(
  receipts: readonly Receipt[],
  lineages: ReadonlyMap<string, ReadonlySet<string>>,
  sequence: number,
): Set<string> {
  const after = receipts.filter((r) => r.workspace_sequence > sequence)
  const paths = new Set<string>([...lineages.values()].flatMap((set) => [...set]))
  for (const receipt of after) {
    for (const file of receipt.files) {
      if (!lineages.has(file.file_lineage_id)) continue
      paths.add(file.path)
      if (file.old_path !== null) paths.add(file.old_path)
    }
  }
  const all = new Set(lineages.keys())
  for (const receipt of after) {
    for (const file of receipt.files) {
      if (paths.has(file.path) || (file.old_path !== null && paths.has(file.old_path))) all.add(file.file_lineage_id)
    }
  }
  return all
}

/** A receipt restricted to the files of some lineages (the fold then sees nothing else). */
function onlyLineages(receipt: Receipt, lineages: ReadonlySet<string>): Receipt {
  return { ...receipt, files: receipt.files.filter((f) => lineages.has(f.file_lineage_id)) }
}

function mergeOnPath(a: RestoreAction, b: RestoreAction): RestoreAction {
  const expected = a.expected.kind !== 'absent' ? a.expected : b.expected
  const target = a.target.kind !== 'absent' ? a.target : b.target
  return {
    ...a,
    expected,
    target,
    ...(a.changed_outside || b.changed_outside ? { changed_outside: true } : {}),
  }
}
