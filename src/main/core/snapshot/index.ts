import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ok, type Outcome } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import { readSetting, writeSetting, type Database } from '../store'
import type { Disposable } from '../../../shared/disposable'
import { diff } from './diff'
import { diffFull } from './diff-full'
import { createShadowLock } from './lock'
import { maintain, type MaintenanceReport } from './maintenance'
import { changedPaths, patch } from './patch'
import { shadowFor } from './repo'
import { restore } from './restore'
import { revert } from './revert'
import type { SnapshotRuntime, SnapshotSettings } from './runtime'
import { LARGE_UNTRACKED_BYTES } from './stage'
import { track } from './track'
import { blobOid, entriesAt, readBlobs } from './tree'
import type { Capture, PatchRef, PlannedFile, SnapshotChange, SnapshotState } from './types'

export type {
  Capture,
  ExcludedFile,
  NoSnapshotReason,
  PatchRef,
  PlannedFile,
  PlannedTarget,
  SnapshotChange,
  SnapshotState,
} from './types'
export type { MaintenanceReport } from './maintenance'
export { blobOid, LARGE_UNTRACKED_BYTES }

/**
 * Spec 06 step snapshots of one project folder, from a shadow git repository under the data
 * directory. Snapshots only ever write their own repository: `restore` and `revert` return the
 * planned file states for the journal's restore transaction to apply.
 */
export interface ProjectSnapshots {
  /** The shadow repository (`<data>/snapshot/<project_id>/<hash(worktree)>`). */
  readonly gitDir: string
  track(): Promise<Capture>
  /** Paths that differ between two snapshots. */
  changedPaths(from: string, to: string): Promise<Outcome<string[]>>
  patch(hash: string): Promise<Outcome<{ hash: string; files: string[] }>>
  diff(hash: string): Promise<Outcome<{ hash: string; text: string; truncated: boolean }>>
  diffFull(from: string, to: string): Promise<Outcome<SnapshotChange[]>>
  restore(hash: string): Promise<Outcome<PlannedFile[]>>
  revert(patches: readonly PatchRef[]): Promise<Outcome<PlannedFile[]>>
  /** The entries of exactly these paths in a snapshot (absent paths are missing from the map). */
  entries(hash: string, paths: readonly string[]): Promise<Outcome<Map<string, SnapshotState>>>
  /** Blob bytes by object id; null for a blob over `maxBytes`. */
  readBlobs(oids: readonly string[], maxBytes?: number): Promise<Outcome<Map<string, Buffer | null>>>
  maintain(): Promise<MaintenanceReport>
}

export interface SnapshotServiceOptions {
  readonly dataDir: string
  readonly enabled?: () => boolean
  readonly lockTimeoutMs?: number
  readonly indexLockWaitMs?: number
  readonly largeUntrackedBytes?: number
  readonly maxFileBytes?: number
  /** Spec 06: gc one minute after start, then hourly. `false` schedules nothing (tests, tools). */
  readonly maintenance?: { readonly firstAfterMs: number; readonly everyMs: number } | false
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
  /** Race tests only: runs after a capture staged its files and before it writes the tree. */
  readonly afterStage?: (attempt: number) => Promise<void> | void
  /** Test observability: the moments this process held a shadow repository's lock. */
  readonly onLockHeld?: (gitDir: string, event: 'acquired' | 'released') => void
}

export interface SnapshotService extends Disposable {
  project(project: { readonly project_id: string; readonly root: string }): ProjectSnapshots
  /** Runs maintenance on every shadow repository this process has used. */
  maintainAll(): Promise<void>
}

export function createSnapshotService(options: SnapshotServiceOptions): SnapshotService {
  const root = join(options.dataDir, 'snapshot')
  mkdirSync(root, { recursive: true, mode: 0o700 })
  const lock = createShadowLock(join(root, 'locks.sqlite'))
  const settings: SnapshotSettings = {
    enabled: options.enabled ?? (() => true),
    lockTimeoutMs: options.lockTimeoutMs ?? 30_000,
    indexLockWaitMs: options.indexLockWaitMs ?? 10_000,
    largeUntrackedBytes: options.largeUntrackedBytes ?? LARGE_UNTRACKED_BYTES,
    maxFileBytes: options.maxFileBytes ?? 64 * 1024 * 1024,
    ...(options.afterStage ? { afterStage: options.afterStage } : {}),
  }
  const runtimes = new Map<string, { rt: SnapshotRuntime; api: ProjectSnapshots }>()
  let disposed = false

  const maintainAll = async () => {
    for (const { rt } of [...runtimes.values()]) {
      if (disposed) return
      const report = await maintain(rt)
      if (report.gc === 'failed' || report.reseeded) {
        options.log?.('warn', 'Snapshot maintenance', { gitDir: rt.shadow.gitDir, ...report })
      }
    }
  }
  const schedule =
    options.maintenance === undefined ? { firstAfterMs: 60_000, everyMs: 3_600_000 } : options.maintenance
  let timer: ReturnType<typeof setTimeout> | undefined
  if (schedule !== false) {
    const run = (delay: number) => {
      timer = setTimeout(() => {
        void maintainAll()
          .catch((error: unknown) => options.log?.('warn', 'Snapshot maintenance failed', { error: String(error) }))
          .finally(() => {
            if (!disposed) run(schedule.everyMs)
          })
      }, delay)
      timer.unref()
    }
    run(schedule.firstAfterMs)
  }

  return {
    project(project) {
      const shadow = shadowFor(options.dataDir, project.project_id, project.root)
      const known = runtimes.get(shadow.gitDir)
      if (known) return known.api
      const onLockHeld = options.onLockHeld
      const rt: SnapshotRuntime = {
        shadow,
        lock,
        settings,
        last: null,
        user: null,
        ...(onLockHeld ? { onLockHeld: (event: 'acquired' | 'released') => onLockHeld(shadow.gitDir, event) } : {}),
      }
      const api: ProjectSnapshots = {
        gitDir: shadow.gitDir,
        track: () => track(rt),
        changedPaths: (from, to) => changedPaths(rt, from, to),
        patch: (hash) => patch(rt, hash),
        diff: (hash) => diff(rt, hash),
        diffFull: (from, to) => diffFull(rt, from, to),
        restore: (hash) => restore(rt, hash),
        revert: (patches) => revert(rt, patches),
        entries: (hash, paths) => entriesAt(shadow, hash, paths),
        readBlobs: (oids, maxBytes) => readBlobs(shadow, oids, maxBytes ?? settings.maxFileBytes),
        maintain: () => maintain(rt),
      }
      runtimes.set(shadow.gitDir, { rt, api })
      return api
    },
    maintainAll,
    dispose() {
      if (disposed) return
      disposed = true
      clearTimeout(timer)
      lock.dispose()
    },
  }
}

export {
  commandChanges,
  commandNotes,
  commandPatches,
  heldCommandChanges,
  heldReason,
  receiptSteps,
  type CommandChange,
  type CommandPatch,
  type HeldChange,
} from './command-changes'
export { attributeStep, inDependencyFolder, type StepAttribution } from './attribute'
export {
  closeAbandonedWindows,
  closeCommandWindow,
  commandWindow,
  openCommandWindow,
  type CommandWindow,
} from './windows'

/** The app setting that turns step snapshots off (spec 06 `snapshot: false`). */
const SETTING = 'snapshot'

export interface SnapshotModule {
  readonly service: SnapshotService
  /** One project's shadow repository (created lazily). */
  of(projectId: string, root: string): ProjectSnapshots
  readonly actions: ModuleActions<'settings.snapshots'>
  dispose(): void
}

export function createSnapshotModule(deps: {
  db: Database
  dataDir: string
  maxFileBytes: number
  /** `false` (an engine option) turns snapshots off for good, whatever the setting says. */
  available: boolean
  maintenance?: { firstAfterMs: number; everyMs: number } | false | undefined
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
}): SnapshotModule {
  const enabled = () => deps.available && readSetting(deps.db, SETTING) !== 'false'
  const service = createSnapshotService({
    dataDir: deps.dataDir,
    enabled,
    maxFileBytes: deps.maxFileBytes,
    ...(deps.maintenance !== undefined ? { maintenance: deps.maintenance } : {}),
    log: deps.log,
  })
  return {
    service,
    of: (projectId, root) => service.project({ project_id: projectId, root }),
    actions: {
      'settings.snapshots': async ({ enabled: wanted }) => {
        if (wanted !== undefined) writeSetting(deps.db, SETTING, wanted ? 'true' : 'false')
        return ok({ enabled: enabled(), available: deps.available })
      },
    },
    dispose: () => service.dispose(),
  }
}
