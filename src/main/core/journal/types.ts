import type { Digest } from '../store'

/** What a path held, as recorded in a receipt. `absent` means confirmed not to exist. */
export type FileState =
  | { kind: 'absent' }
  | { kind: 'directory' }
  | { kind: 'regular'; digest: Digest; size: number; mode: string; blob_ref: Digest | null }

export type TransactionKind = 'edit' | 'revert' | 'reapply' | 'rewind' | 'restore' | 'human'
export type TransactionStatus = 'prepared' | 'committed' | 'aborted' | 'rolled_back' | 'recovery_required'
export type FileOperation = 'create' | 'modify' | 'delete' | 'rename'
export type DiffState = 'available' | 'large' | 'binary' | 'timeout'

export type LineStats =
  { added: number; removed: number; binary: false } | { binary: true } | { unknown: true; reason: string }

/** Who made a change. Conversation fields stay null until history (spec 04) fills them. */
export interface Attribution {
  readonly kind: TransactionKind
  readonly session_id?: string | null
  readonly branch_id?: string | null
  readonly producer_turn_id?: string | null
  readonly origin_turn_id?: string | null
  readonly actor_id?: string | null
  readonly job_id?: string | null
  readonly worktree_id?: string | null
}

export interface ReceiptFile {
  readonly file_lineage_id: string
  readonly path: string
  readonly operation: FileOperation
  readonly old_path: string | null
  readonly before: FileState
  readonly after: FileState
  readonly stats: LineStats
  readonly diff_state: DiffState
  readonly recoverability: 'exact' | 'unavailable'
  readonly unavailable_reason: string | null
  /** Where publishing this file got to (spec 04's per-action states). */
  readonly publish_state?: PublishState
}

export type PublishState = 'pending' | 'applied' | 'verified' | 'rolled_back'

export interface Receipt {
  readonly transaction_id: string
  readonly workspace_id: string
  readonly workspace_sequence: number
  readonly session_id: string | null
  readonly branch_id: string | null
  readonly producer_turn_id: string | null
  readonly origin_turn_id: string | null
  readonly actor_id: string | null
  readonly job_id: string | null
  readonly worktree_id: string | null
  readonly kind: TransactionKind
  readonly status: TransactionStatus
  readonly created_at_ms: number
  readonly settled_at_ms: number | null
  readonly recovery_detail: string | null
  /** 1 when retention released its recovery blobs (spec 03 retention). */
  readonly blobs_expired?: number
  readonly files: ReceiptFile[]
}

export interface JournalLimits {
  /** Largest source or target file a mutator accepts (spec 03: 64 MiB by default). */
  readonly maxFileBytes: number
  /** Files larger than this keep no recovery blob: `recoverability: unavailable`. */
  readonly recoveryBudgetBytes: number
  /** Line stats are computed only when both sides are within this many bytes. */
  readonly statsBudgetBytes: number
}

export const DEFAULT_JOURNAL_LIMITS: JournalLimits = {
  maxFileBytes: 64 * 1024 * 1024,
  recoveryBudgetBytes: 64 * 1024 * 1024,
  statsBudgetBytes: 4 * 1024 * 1024,
}
