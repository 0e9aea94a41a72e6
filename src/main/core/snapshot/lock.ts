import { createLeaseLock, openSqlite, statement, type Lease } from '../store'

/** One lock per shadow repository, held across every Retrace process that shares the data directory. */
export interface ShadowLock {
  /** Null when the lock was not free within `timeoutMs`. */
  acquire(key: string, timeoutMs: number): Promise<Lease | null>
  dispose(): void
}

/**
 * Lease rows in a small SQLite file next to the shadow repositories rather than a table in the
 * engine database: the snapshot service is opened from the data directory alone and has no part
 * in the journal's migrations.
 */
export function createShadowLock(file: string): ShadowLock {
  const db = openSqlite(file, {
    synchronous: 'OFF',
    schema:
      'CREATE TABLE IF NOT EXISTS shadow_locks (key TEXT PRIMARY KEY, holder TEXT NOT NULL, pid INTEGER NOT NULL, heartbeat_ms INTEGER NOT NULL) STRICT',
  })
  const lock = createLeaseLock(db, {
    read(key) {
      const row = statement(db, 'SELECT holder, pid, heartbeat_ms FROM shadow_locks WHERE key = ?').get(key) as
        { holder: string; pid: number; heartbeat_ms: number } | undefined
      return row && { holder: row.holder, pid: row.pid, heartbeatMs: row.heartbeat_ms }
    },
    claim(key, holder, pid, nowMs) {
      statement(
        db,
        `INSERT INTO shadow_locks (key, holder, pid, heartbeat_ms) VALUES (?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, heartbeat_ms = excluded.heartbeat_ms`,
      ).run(key, holder, pid, nowMs)
    },
    beat(key, holder, nowMs) {
      statement(db, 'UPDATE shadow_locks SET heartbeat_ms = ? WHERE key = ? AND holder = ?').run(nowMs, key, holder)
    },
    remove(key, holder) {
      statement(db, 'DELETE FROM shadow_locks WHERE key = ? AND holder = ?').run(key, holder)
    },
  })
  let closed = false
  return {
    acquire: (key, timeoutMs) => lock.acquire(key, timeoutMs),
    dispose() {
      if (closed) return
      closed = true
      lock.dispose()
      db.close()
    },
  }
}
