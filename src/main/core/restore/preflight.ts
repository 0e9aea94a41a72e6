import { statfs } from 'node:fs/promises'
import type { NetChange } from '../changes'
import { parentWritable, readWriteTarget, type DiskState, type FileState, type Workspace } from '../journal'
import { runningNodeOf } from '../conversation'
import type { BlobStore, Database, Digest } from '../store'

/** The state a path must be in now, and the state the restore puts it in. */
export type PathState = { kind: 'absent' } | { kind: 'regular'; digest: Digest; mode: string; blob_ref: Digest | null }

export interface RestoreAction {
  readonly path: string
  /** Empty for a file only commands changed (it has no journal lineage). */
  readonly file_lineage_id: string
  readonly expected: PathState
  readonly target: PathState
  /** `command`: the target comes from a step snapshot (issue 16), not from a journal receipt. */
  readonly source?: 'journal' | 'command'
  /**
   * Multi-turn restores: the file was also changed after the checkpoint by something other than
   * the turns being undone (the person, another session or branch); the restore replaces that too.
   */
  readonly changed_outside?: boolean
  /**
   * Multi-turn restores: the last change of the path was not the session's own (the person or
   * another session), so `expected` is what the turns left there and the path is a conflict until
   * the person keeps their bytes or includes them.
   */
  readonly outside_last?: boolean
}

export interface Conflict {
  readonly path: string
  readonly reason: 'changed-since' | 'later-mutation' | 'unsafe-path' | 'turn-running' | 'no-space' | 'no-permission'
  readonly message: string
  readonly expected?: string
  readonly actual?: string
  /** `command`: a file changed by commands; the person may include it anyway (issue 16). */
  readonly source?: 'command'
}

/** What the preflight read, so an apply planned under the lock needs no second pass. */
export interface PlanEvidence {
  readonly disks: ReadonlyMap<string, DiskState>
  readonly targets: ReadonlyMap<string, Buffer>
  /** The folders the restore removes or makes (plan-folders.ts), as read with the files. */
  readonly folders?: ReadonlyMap<string, DiskState>
}

export interface PreflightResult extends PlanEvidence {
  /**
   * Paths that already hold what the restore would write (the person deleted the file the turn
   * created, typed the turn's bytes back, removed the turn's folder…): nothing to write there, so
   * the planner drops them instead of blocking the whole restore on a change that agrees with it.
   */
  readonly settled: ReadonlySet<string>
  readonly conflicts: Conflict[]
  readonly unavailable: Array<{ path: string; reason: string }>
}

/** A turn is running in the session: nothing may be restored under it. */
export function runningTurnConflict(db: Database, sessionId: string): Conflict | null {
  return runningNodeOf(db, sessionId) !== null
    ? { path: '', reason: 'turn-running', message: 'A turn is still running in this session; stop it or wait.' }
    : null
}

/**
 * Spec 04 step 1's per-path checks, read-only: the target's bytes are kept and readable, the path
 * is safe to write, its content now is what the journal expects, the folder is writable, and the
 * disk has room. Every failure is listed; nothing stops at the first.
 */
export async function preflightActions(input: {
  readonly blobs: BlobStore
  readonly workspace: Workspace
  readonly maxFileBytes: number
  readonly actions: readonly RestoreAction[]
  /** Target bytes that come from step snapshots rather than the content store. */
  readonly snapshotBytes: ReadonlyMap<string, Buffer>
  readonly changedMessage: (path: string) => string
  /** A further check once the path holds what is expected (single-turn: later mutations). */
  readonly extraCheck?: (action: RestoreAction) => Conflict | null
  readonly onProgress?: ((done: number, total: number) => void) | undefined
}): Promise<PreflightResult> {
  const { blobs, workspace, actions } = input
  const conflicts: Conflict[] = []
  const unavailable: Array<{ path: string; reason: string }> = []
  const disks = new Map<string, DiskState>()
  const targets = new Map<string, Buffer>()
  const settled = new Set<string>()
  let bytesNeeded = 0
  for (const [index, action] of actions.entries()) {
    if (input.onProgress && index % 100 === 0) input.onProgress(index, actions.length)
    const fromSnapshot = input.snapshotBytes.get(action.path)
    if (action.target.kind === 'regular' && fromSnapshot) {
      bytesNeeded += fromSnapshot.length
      targets.set(action.path, fromSnapshot)
    } else if (action.target.kind === 'regular') {
      if (!action.target.blob_ref) {
        unavailable.push({ path: action.path, reason: 'no-recovery-blob' })
        continue
      }
      const bytes = await blobs.read(action.target.blob_ref)
      if (bytes.kind === 'error') {
        unavailable.push({ path: action.path, reason: String(bytes.error.details?.reason ?? 'missing') })
        continue
      }
      bytesNeeded += bytes.result.length
      targets.set(action.path, bytes.result)
    }
    const disk = await readWriteTarget(
      { root: workspace.root, dataDir: workspace.dataDir },
      action.path,
      input.maxFileBytes,
    )
    if (disk.kind === 'error') {
      conflicts.push({ path: action.path, reason: 'unsafe-path', message: disk.error.message })
      continue
    }
    disks.set(action.path, disk.result)
    const actual: PathState | 'directory' =
      disk.result.kind === 'regular'
        ? { kind: 'regular', digest: disk.result.digest, mode: '', blob_ref: null }
        : disk.result.kind === 'absent'
          ? { kind: 'absent' }
          : 'directory'
    if (actual !== 'directory' && !sameContent(actual, action.expected) && sameContent(actual, action.target)) {
      // Decision (issue 23 sequences): content that already is the target is not a conflict, even
      // when its mode differs — the person's own mode stays.
      settled.add(action.path)
      targets.delete(action.path)
      continue
    }
    if (actual === 'directory' || !sameContent(actual, action.expected)) {
      conflicts.push({
        path: action.path,
        reason: 'changed-since',
        message: input.changedMessage(action.path),
        expected: describe(action.expected),
        actual: actual === 'directory' ? 'directory' : describe(actual),
        ...(action.source === 'command' ? { source: 'command' as const } : {}),
      })
      continue
    }
    const extra = input.extraCheck?.(action)
    if (extra) {
      conflicts.push(extra)
      continue
    }
    if (!parentWritable(workspace.root, disk.result.place)) {
      conflicts.push({
        path: action.path,
        reason: 'no-permission',
        message: `Retrace may not write "${action.path}".`,
      })
    }
  }
  if (input.onProgress && actions.length > 0) input.onProgress(actions.length, actions.length)
  if (bytesNeeded > 0) {
    const fs = await statfs(workspace.root)
    if (fs.bavail * fs.bsize < bytesNeeded * 2) {
      conflicts.push({ path: '', reason: 'no-space', message: 'There is not enough free disk space for this restore.' })
    }
  }
  return { settled, conflicts, unavailable, disks, targets }
}

/**
 * What a path holds on disk now, as an action's expected state: what a restore replaces when the
 * person explicitly includes a path that changed since (its receipt keeps those bytes).
 */
export async function currentPathState(
  workspace: Workspace,
  path: string,
  maxFileBytes: number,
): Promise<PathState | 'unsafe-path' | 'file-folder-swap'> {
  const disk = await readWriteTarget(workspace, path, maxFileBytes)
  if (disk.kind === 'error') return 'unsafe-path'
  if (disk.result.kind === 'regular') return { kind: 'regular', digest: disk.result.digest, mode: '', blob_ref: null }
  return disk.result.kind === 'absent' ? { kind: 'absent' } : 'file-folder-swap'
}

/** A recorded state as an action's state; a folder is not something a restore writes. */
export function pathStateOf(state: FileState): PathState | 'unsupported' {
  if (state.kind === 'absent') return { kind: 'absent' }
  if (state.kind === 'directory') return 'unsupported'
  return { kind: 'regular', digest: state.digest, mode: state.mode, blob_ref: state.blob_ref }
}

export function sameContent(a: PathState, b: PathState): boolean {
  return a.kind === b.kind && (a.kind === 'absent' || (b.kind === 'regular' && a.digest === b.digest))
}

export function sameState(a: PathState, b: PathState): boolean {
  return sameContent(a, b) && (a.kind === 'absent' || (b.kind === 'regular' && a.mode === b.mode))
}

function describe(state: PathState): string {
  return state.kind === 'regular' ? state.digest : 'absent'
}

/** One path a lineage's net change has a restore write: what it must hold now, what it gets. */
export type PathMove = readonly [path: string, expected: PathState, target: PathState]

/**
 * A lineage's net change as the paths a restore writes (issue 24: one rule for the single-turn
 * planner and the multi-turn transition). `backwards` goes to the change's first before (Undo,
 * Revert, Rewind), `forwards` to its last after (Reapply). A rename writes both names: the new
 * one goes and the old one comes back, or the other way round. A change that cannot be restored
 * exactly, or that something outside Retrace broke into (a gap), or that is a folder's, is
 * unavailable with the reason.
 */
export function pathMoves(
  change: NetChange,
  direction: 'backwards' | 'forwards',
): { readonly kind: 'moves'; readonly moves: PathMove[] } | { readonly kind: 'unavailable'; readonly reason: string } {
  if (change.recoverability !== 'exact')
    return { kind: 'unavailable', reason: change.unavailable_reason ?? 'not-exact' }
  // Something outside Retrace wrote this file between two of the recorded changes: going back to
  // the first before would also erase that write, and going forward would skip it.
  if (change.gaps > 0) return { kind: 'unavailable', reason: 'outside-changes' }
  const before = pathStateOf(change.before)
  const after = pathStateOf(change.after)
  if (before === 'unsupported' || after === 'unsupported') return { kind: 'unavailable', reason: 'directory' }
  const absent: PathState = { kind: 'absent' }
  const backwards = direction === 'backwards'
  if (change.first_path === change.last_path) {
    return { kind: 'moves', moves: [[change.last_path, backwards ? after : before, backwards ? before : after]] }
  }
  return {
    kind: 'moves',
    moves: backwards
      ? [
          [change.last_path, after, absent],
          [change.first_path, absent, before],
        ]
      : [
          [change.first_path, before, absent],
          [change.last_path, absent, after],
        ],
  }
}
