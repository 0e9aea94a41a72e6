import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { Database } from './database'

export interface LockLease {
  readonly holderId: string
  release(): void
}

export interface WorkspaceLock {
  /** Waits for the workspace's mutation lock (in this process and across processes sharing the DB). */
  acquire(workspaceId: string, options?: { timeoutMs?: number }): Promise<Outcome<LockLease>>
  /** Gives up every lease row this process holds (on shutdown). */
  dispose(): void
}

/** Holder ids alive in this process: a row naming our pid but none of these is a dead holder. */
const LIVE_HOLDERS = new Set<string>()

const HEARTBEAT_MS = 1_000
/** How long an idle process keeps its lease row before letting another process have it. */
const LEASE_LINGER_MS = 150

interface ProcessLease {
  readonly holderId: string
  readonly heartbeat: ReturnType<typeof setInterval>
  idle: ReturnType<typeof setTimeout> | undefined
}
/** A lease not renewed for this long is dead even if its pid was reused by another process. */
const STALE_AFTER_MS = 30_000

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * A lease row claimed inside `BEGIN IMMEDIATE`, so two processes cannot both take it. A holder
 * whose process is gone (or whose heartbeat stopped) is replaced; a live one is waited for.
 * `db` should be its own connection opened with `synchronous = OFF`: a lease needs atomicity, not
 * durability — after a crash its holder is dead by definition — so taking it costs no fsync.
 */
export function createWorkspaceLock(db: Database): WorkspaceLock {
  const select = db.prepare('SELECT holder_id, holder_pid, heartbeat_at_ms FROM workspace_locks WHERE workspace_id = ?')
  const upsert = db.prepare(
    `INSERT INTO workspace_locks (workspace_id, holder_id, holder_pid, acquired_at_ms, heartbeat_at_ms)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET holder_id = excluded.holder_id, holder_pid = excluded.holder_pid,
       acquired_at_ms = excluded.acquired_at_ms, heartbeat_at_ms = excluded.heartbeat_at_ms`,
  )
  const beat = db.prepare('UPDATE workspace_locks SET heartbeat_at_ms = ? WHERE workspace_id = ? AND holder_id = ?')
  const remove = db.prepare('DELETE FROM workspace_locks WHERE workspace_id = ? AND holder_id = ?')
  // In-process waiters queue behind each other instead of polling the database.
  const tails = new Map<string, Promise<void>>()
  const leases = new Map<string, ProcessLease>()

  const dropLease = (workspaceId: string, lease: ProcessLease) => {
    if (leases.get(workspaceId) !== lease) return
    clearTimeout(lease.idle)
    clearInterval(lease.heartbeat)
    leases.delete(workspaceId)
    LIVE_HOLDERS.delete(lease.holderId)
    // On a closed connection the row stays; its holder id is no longer live, so the next claimant
    // treats it as dead.
    ignoreClosed(() => remove.run(workspaceId, lease.holderId))
  }

  const tryClaim = (workspaceId: string, holderId: string): boolean => {
    db.exec('BEGIN IMMEDIATE')
    try {
      const row = select.get(workspaceId) as
        { holder_id: string; holder_pid: number; heartbeat_at_ms: number } | undefined
      const now = Date.now()
      const dead =
        !row ||
        (row.holder_pid === process.pid ? !LIVE_HOLDERS.has(row.holder_id) : !processAlive(row.holder_pid)) ||
        now - row.heartbeat_at_ms > STALE_AFTER_MS
      if (dead) upsert.run(workspaceId, holderId, process.pid, now, now)
      db.exec('COMMIT')
      return dead
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
  }

  return {
    async acquire(workspaceId, { timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      const previous = tails.get(workspaceId) ?? Promise.resolve()
      let releaseLocal!: () => void
      const mine = new Promise<void>((resolve) => (releaseLocal = resolve))
      const tail = previous.then(() => mine)
      tails.set(workspaceId, tail)
      const settleLocal = () => {
        releaseLocal()
        if (tails.get(workspaceId) === tail) tails.delete(workspaceId)
      }
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = await Promise.race([
        previous.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())))),
      ])
      clearTimeout(timer)
      if (!waited) {
        // Our turn never came; let whoever is behind us go when it does.
        void previous.then(settleLocal)
        return busy(workspaceId)
      }
      let lease = leases.get(workspaceId)
      if (lease) {
        clearTimeout(lease.idle)
      } else {
        const holderId = `lock_${randomUUID()}`
        LIVE_HOLDERS.add(holderId)
        while (!tryClaim(workspaceId, holderId)) {
          if (Date.now() >= deadline) {
            LIVE_HOLDERS.delete(holderId)
            settleLocal()
            return busy(workspaceId)
          }
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
        const heartbeat = setInterval(
          () => ignoreClosed(() => beat.run(Date.now(), workspaceId, holderId)),
          HEARTBEAT_MS,
        )
        heartbeat.unref()
        lease = { holderId, heartbeat, idle: undefined }
        leases.set(workspaceId, lease)
      }
      const held = lease
      let released = false
      return ok({
        holderId: held.holderId,
        release() {
          if (released) return
          released = true
          // Keep the lease row briefly: a burst of mutations (an agent's edits, autosave) then pays
          // for it once. Another process waits at most this long beyond our last mutation.
          held.idle = setTimeout(() => dropLease(workspaceId, held), LEASE_LINGER_MS)
          held.idle.unref()
          settleLocal()
        },
      })
    },
    dispose() {
      for (const [workspaceId, lease] of leases) dropLease(workspaceId, lease)
    },
  }
}

function ignoreClosed(work: () => void): void {
  try {
    work()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_INVALID_STATE') throw error
  }
}

function busy(workspaceId: string) {
  return fail('BUSY', 'Another operation is changing this workspace; try again in a moment.', {
    workspace_id: workspaceId,
  })
}
