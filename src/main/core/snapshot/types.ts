/** Why a capture produced no snapshot. Each is shown to the person; none is ever papered over with an older tree. */
export type NoSnapshotReason =
  /** `snapshot: false` in settings. */
  | 'disabled'
  /** The project folder is not the top of a git repository. */
  | 'not-git'
  /** git is not installed. */
  | 'no-git'
  /** Another process held the shadow repository (or a live git held its index) for too long. */
  | 'busy'
  /** Some files could not be read into the snapshot. */
  | 'partial'
  /** Files kept changing while they were being captured. */
  | 'raced'
  /** Objects the shadow repository relied on are gone, even after reseeding. */
  | 'missing-objects'
  /** Any other git failure (its sentence is in the message). */
  | 'failed'

/** A file deliberately left out of snapshots (and therefore never restored or deleted by them). */
export interface ExcludedFile {
  readonly path: string
  readonly reason: 'large' | 'nested-repository' | 'not-unicode'
  /** Bytes, for `large`. */
  readonly size?: number
}

/** What one `track()` produced: a tree hash, or why there is none. */
export type Capture =
  | {
      readonly kind: 'snapshot'
      /** The tree object id (no commit, no ref: old trees are left to gc). */
      readonly hash: string
      /** Untracked files over the size limit, nested repositories and undecodable names. */
      readonly excluded: readonly ExcludedFile[]
      /** The shadow index was rebuilt because the user's repository pruned objects it relied on. */
      readonly reseeded: boolean
    }
  | {
      readonly kind: 'none'
      readonly reason: NoSnapshotReason
      readonly message: string
      /** The paths behind the reason (for `raced`, `partial`), at most a few hundred. */
      readonly paths?: readonly string[]
    }

/** One path as a snapshot tree records it. */
export type SnapshotState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'regular'; readonly oid: string; readonly mode: '100644' | '100755'; readonly size: number }
  | { readonly kind: 'symlink'; readonly oid: string; readonly size: number }
  /** A gitlink (a submodule's commit): never content Retrace can restore. */
  | { readonly kind: 'submodule'; readonly oid: string }

/** One file of `diffFull(from, to)`. */
export interface SnapshotChange {
  readonly path: string
  readonly operation: 'create' | 'modify' | 'delete'
  readonly before: SnapshotState
  readonly after: SnapshotState
  /** Exact line counts from git's numstat; null for binary files. */
  readonly added: number | null
  readonly removed: number | null
  readonly binary: boolean
}

/** A patch part as the step loop stores it: these files changed between `hash` and `after`. */
export interface PatchRef {
  /** The snapshot taken when the step started: what the files looked like before it. */
  readonly hash: string
  /** The snapshot taken when the step finished (what the step left), when one was captured. */
  readonly after?: string | null
  readonly files: readonly string[]
}

/** The content a restore would put at a path. Bytes are loaded only for regular files within the limit. */
export type PlannedTarget =
  | { readonly kind: 'absent' }
  | {
      readonly kind: 'regular'
      readonly oid: string
      readonly mode: '100644' | '100755'
      readonly size: number
      /** Null when the file is over the byte limit it was planned with. */
      readonly bytes: Buffer | null
    }
  | { readonly kind: 'symlink'; readonly oid: string; readonly size: number }
  | { readonly kind: 'submodule'; readonly oid: string }

/**
 * One file a `restore` or `revert` would change. Snapshots never write project files: the caller
 * turns these into actions of the journal's restore transaction, which preflights, applies,
 * rolls back and recovers them like any other restore.
 */
export interface PlannedFile {
  readonly path: string
  readonly target: PlannedTarget
  /** The snapshot the target comes from. */
  readonly source: string
  /** The path was absent from that snapshot: a later step created it, so restoring deletes it. */
  readonly created: boolean
  /** What the restored range left at the path (its last `after` snapshot), when known. */
  readonly left: SnapshotState | null
}
