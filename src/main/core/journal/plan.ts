import type { DiskState } from './target'

/** A project checkout the journal writes to (spec 01 "Projects and workspaces"). */
export interface Workspace {
  readonly workspace_id: string
  readonly root: string
  readonly dataDir: string
}

export type PlannedAfter = { kind: 'absent' } | { kind: 'directory' } | { kind: 'regular'; bytes: Buffer; mode: number }

/** One file of a transaction, planned under the workspace lock from what is on disk now. */
export interface PlannedChange {
  readonly operation: 'create' | 'modify' | 'delete' | 'rename'
  readonly path: string
  readonly old_path: string | null
  /** The disk state at `old_path ?? path` when planned. */
  readonly before: DiskState
  /** For a rename: the (absent) destination. */
  readonly destination?: Extract<DiskState, { kind: 'absent' }>
  readonly after: PlannedAfter
}
