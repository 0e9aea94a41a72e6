import { fail, ok, type Outcome } from '../../../shared/protocol'
import { statement, type Database } from './database'
import { createLeaseLock, type Lease } from './lease-lock'
import { storageFailure } from './storage-errors'

export type LockLease = Lease

export interface WorkspaceLock {
  /** Waits for the workspace's mutation lock (in this process and across processes sharing the DB). */
  acquire(workspaceId: string, options?: { timeoutMs?: number }): Promise<Outcome<LockLease>>
  /** Gives up every lease row this process holds (on shutdown). */
  dispose(): void
}

/** How long an idle process keeps its lease row before letting another process have it. */
const LEASE_LINGER_MS = 150

/**
 * The journal's per-workspace mutation lock: lease rows in `workspace_locks`. `db` should be its
 * own connection opened with `synchronous = OFF` (see `createLeaseLock`).
 */
export function createWorkspaceLock(db: Database): WorkspaceLock {
  const lock = createLeaseLock(
    db,
    {
      read(workspaceId) {
        const row = statement(
          db,
          'SELECT holder_id, holder_pid, heartbeat_at_ms FROM workspace_locks WHERE workspace_id = ?',
        ).get(workspaceId) as { holder_id: string; holder_pid: number; heartbeat_at_ms: number } | undefined
        return row && { holder: row.holder_id, pid: row.holder_pid, heartbeatMs: row.heartbeat_at_ms }
      },
      claim(workspaceId, holder, pid, nowMs) {
        statement(
          db,
          `INSERT INTO workspace_locks (workspace_id, holder_id, holder_pid, acquired_at_ms, heartbeat_at_ms)
           VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (workspace_id) DO UPDATE SET holder_id = excluded.holder_id, holder_pid = excluded.holder_pid,
             acquired_at_ms = excluded.acquired_at_ms, heartbeat_at_ms = excluded.heartbeat_at_ms`,
        ).run(workspaceId, holder, pid, nowMs, nowMs)
      },
      beat(workspaceId, holder, nowMs) {
        statement(db, 'UPDATE workspace_locks SET heartbeat_at_ms = ? WHERE workspace_id = ? AND holder_id = ?').run(
          nowMs,
          workspaceId,
          holder,
        )
      },
      remove(workspaceId, holder) {
        statement(db, 'DELETE FROM workspace_locks WHERE workspace_id = ? AND holder_id = ?').run(workspaceId, holder)
      },
    },
    { lingerMs: LEASE_LINGER_MS },
  )
  return {
    async acquire(workspaceId, { timeoutMs = 30_000 } = {}) {
      let lease: Lease | null
      try {
        lease = await lock.acquire(workspaceId, timeoutMs)
      } catch (error) {
        // Taking the lock writes its row: on a full data disk that is the first write to fail.
        const failure = storageFailure(error, { side: 'data' })
        if (failure) return { kind: 'error', error: failure }
        throw error
      }
      return lease ? ok(lease) : busy(workspaceId)
    },
    dispose: () => lock.dispose(),
  }
}

function busy(workspaceId: string) {
  return fail('BUSY', 'Another operation is changing this workspace; try again in a moment.', {
    workspace_id: workspaceId,
    reason: 'workspace-busy',
  })
}
