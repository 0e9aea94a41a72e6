import type { FileState, LineStats, Receipt, TransactionKind } from '../journal'
import type { Digest } from '../store'

/** Who made one step of a lineage's change. */
export interface ChangeActor {
  readonly kind: TransactionKind
  readonly actor_id: string | null
  readonly producer_turn_id: string | null
  readonly origin_turn_id: string | null
}

/**
 * The net change of one file lineage over a run of receipts: first before → last after, with every
 * transaction that contributed and every place where the chain of digests breaks — a receipt whose
 * before is not the previous receipt's after means something outside Retrace wrote in between.
 */
export interface NetChange {
  readonly file_lineage_id: string
  readonly first_path: string
  readonly last_path: string
  readonly before: FileState
  readonly after: FileState
  readonly transactions: readonly string[]
  /** Each contributing transaction's actor, in workspace order. */
  readonly actors: readonly ChangeActor[]
  /** Breaks in the digest chain: writes outside Retrace inside this run. */
  readonly gaps: number
  /** The receipt's exact stats when one receipt made the whole change; otherwise computed from blobs. */
  readonly single_stats: LineStats | null
  /** `exact` only when every contributing file record is exact and its blobs were kept. */
  readonly recoverability: 'exact' | 'unavailable'
  readonly unavailable_reason: string | null
}

function stateKey(state: FileState): string {
  return state.kind === 'regular' ? `regular:${state.digest}` : state.kind
}

/**
 * Folds committed receipts, in workspace_sequence order (the only order history is projected in),
 * into one net change per lineage. Pure: no disk, no blobs. Callers: turn summaries, Review's
 * scopes, the restore planner (single-turn and rewind).
 */
export function foldReceipts(receipts: readonly Receipt[]): NetChange[] {
  const folded = new Map<string, NetChange>()
  const ordered = [...receipts]
    .filter((r) => r.status === 'committed')
    .sort((a, b) => a.workspace_sequence - b.workspace_sequence)
  for (const receipt of ordered) {
    const actor: ChangeActor = {
      kind: receipt.kind,
      actor_id: receipt.actor_id,
      producer_turn_id: receipt.producer_turn_id,
      origin_turn_id: receipt.origin_turn_id,
    }
    for (const file of receipt.files) {
      const previous = folded.get(file.file_lineage_id)
      const gap = previous !== undefined && stateKey(previous.after) !== stateKey(file.before) ? 1 : 0
      const inexact =
        file.recoverability !== 'exact'
          ? (file.unavailable_reason ?? 'not-exact')
          : receipt.blobs_expired === 1
            ? 'expired'
            : null
      folded.set(file.file_lineage_id, {
        file_lineage_id: file.file_lineage_id,
        first_path: previous?.first_path ?? file.old_path ?? file.path,
        last_path: file.path,
        before: previous?.before ?? file.before,
        after: file.after,
        transactions: [...(previous?.transactions ?? []), receipt.transaction_id],
        actors: [...(previous?.actors ?? []), actor],
        gaps: (previous?.gaps ?? 0) + gap,
        single_stats: previous ? null : file.stats,
        recoverability: previous?.recoverability === 'unavailable' || inexact !== null ? 'unavailable' : 'exact',
        unavailable_reason: previous?.unavailable_reason ?? inexact,
      })
    }
  }
  return [...folded.values()]
}

/** True when the run left the lineage where it started (same path, same content). */
export function isNoChange(change: NetChange): boolean {
  return change.first_path === change.last_path && stateKey(change.before) === stateKey(change.after)
}

export function operationOf(change: NetChange): 'create' | 'modify' | 'delete' | 'rename' {
  if (change.before.kind === 'absent') return 'create'
  if (change.after.kind === 'absent') return 'delete'
  return change.first_path !== change.last_path ? 'rename' : 'modify'
}

/** The blob holding a side, `null` when the side is not a file, `'none'` when no blob was kept. */
export function blobOf(state: FileState): Digest | null | 'none' {
  if (state.kind !== 'regular') return null
  return state.blob_ref ?? 'none'
}
