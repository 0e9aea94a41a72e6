import type { ShadowLock } from './lock'
import type { Shadow, UserRepo } from './repo'

export interface SnapshotSettings {
  /** Spec 06 `snapshot: false`: read at every capture, so a change applies to the next step. */
  readonly enabled: () => boolean
  /** How long a capture waits for another process's hold on the same shadow repository. */
  readonly lockTimeoutMs: number
  /** How long a capture waits for a live git that holds the shadow's `index.lock`. */
  readonly indexLockWaitMs: number
  /** Untracked files over this size are excluded (spec 06: 2 MiB). */
  readonly largeUntrackedBytes: number
  /** Restores load the bytes of files up to this size; larger ones are planned without bytes. */
  readonly maxFileBytes: number
  /** Race tests only: runs after a capture staged its files and before it writes the tree. */
  readonly afterStage?: (attempt: number) => Promise<void> | void
}

/** One shadow repository as this process drives it. */
export interface SnapshotRuntime {
  readonly shadow: Shadow
  readonly lock: ShadowLock
  readonly settings: SnapshotSettings
  /** The last tree written and the index identity it was written from: a no-change step reuses it. */
  last: { index: string; hash: string } | null
  /** The user's repository as last probed, keyed by the identity of the project's `.git`. */
  user: { key: string; repo: UserRepo } | null
  /** Test observability: called with the moments this process held the shadow lock. */
  readonly onLockHeld?: (event: 'acquired' | 'released') => void
}
