import type { Receipt } from '../journal'

/**
 * Where one change of a path sits among the changes a restore (or a turn card, or Review) looks
 * at: the turn (its index among the turns in question, oldest first) and the agent step in it.
 */
export interface ChangePosition {
  readonly turn: number
  readonly step: number
}

/** Which source says what a path both the journal and commands changed was, and what it holds. */
export interface SourceOrder {
  /** The earliest change says what the path was before. */
  readonly before: 'journal' | 'command'
  /** The latest change says what the path holds now. */
  readonly after: 'journal' | 'command'
}

const earlier = (a: ChangePosition, b: ChangePosition) => a.turn < b.turn || (a.turn === b.turn && a.step < b.step)

/**
 * Issue 24: the one rule for a path both the journal and a turn's commands changed (spec 06's
 * revert semantics: earliest patch wins). The earliest change says what the path was, the latest
 * what it holds; a tie goes to the journal, whose record is exact. A path no receipt touched is
 * the commands' alone. Used by the turn summary and Review (through the turn classifier in
 * conversation/) and by the restore planner, single-turn and multi-turn alike.
 */
export function sourceOrder(
  command: { readonly first: ChangePosition; readonly last: ChangePosition },
  journal: readonly ChangePosition[],
): SourceOrder {
  if (journal.length === 0) return { before: 'command', after: 'command' }
  const first = journal.reduce((a, b) => (earlier(b, a) ? b : a))
  const last = journal.reduce((a, b) => (earlier(a, b) ? b : a))
  return {
    before: earlier(command.first, first) ? 'command' : 'journal',
    after: earlier(last, command.last) ? 'command' : 'journal',
  }
}

/** The positions of the receipts that wrote `path` (under its name or as the name it left). */
export function journalPositions(
  receipts: readonly Receipt[],
  path: string,
  positionOf: (receipt: Receipt) => ChangePosition,
): ChangePosition[] {
  return receipts
    .filter((receipt) => receipt.files.some((file) => file.path === path || file.old_path === path))
    .map(positionOf)
}
