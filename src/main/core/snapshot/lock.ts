import { randomUUID } from 'node:crypto'
import { DatabaseSync } from 'node:sqlite'

export interface ShadowLease {
  release(): void
}

/** One lock per shadow repository, held across every Retrace process that shares the data directory. */
export interface ShadowLock {
  /** Null when the lock was not free within `timeoutMs`. */
  acquire(key: string, timeoutMs: number): Promise<ShadowLease | null>
  dispose(): void
}

const HEARTBEAT_MS = 1_000
/** A holder that stopped renewing for this long is dead even if its pid now names another process. */
const STALE_AFTER_MS = 30_000
const POLL_MS = 25

/** Holder ids alive in this process; a row naming our pid but none of these was left by a closed lock. */
const LIVE_HOLDERS = new Set<string>()

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Lease rows in a small SQLite file next to the shadow repositories, claimed inside `BEGIN
 * IMMEDIATE` so two processes can never both hold one. A holder whose process is gone (or whose
 * heartbeat stopped) is replaced; a live one is waited for. Within a process, waiters queue in
 * call order without touching the database.
 */
export function createShadowLock(file: string): ShadowLock {
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL')
  // A lease needs atomicity, not durability: after a crash its holder is dead by definition.
  db.exec('PRAGMA synchronous = OFF')
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec(
    'CREATE TABLE IF NOT EXISTS shadow_locks (key TEXT PRIMARY KEY, holder TEXT NOT NULL, pid INTEGER NOT NULL, heartbeat_ms INTEGER NOT NULL) STRICT',
  )
  const select = db.prepare('SELECT holder, pid, heartbeat_ms FROM shadow_locks WHERE key = ?')
  const upsert = db.prepare(
    `INSERT INTO shadow_locks (key, holder, pid, heartbeat_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, heartbeat_ms = excluded.heartbeat_ms`,
  )
  const beat = db.prepare('UPDATE shadow_locks SET heartbeat_ms = ? WHERE key = ? AND holder = ?')
  const remove = db.prepare('DELETE FROM shadow_locks WHERE key = ? AND holder = ?')
  const tails = new Map<string, Promise<void>>()
  const held = new Map<string, { holder: string; heartbeat: ReturnType<typeof setInterval> }>()
  let closed = false

  const tryClaim = (key: string, holder: string): boolean => {
    db.exec('BEGIN IMMEDIATE')
    try {
      const row = select.get(key) as { holder: string; pid: number; heartbeat_ms: number } | undefined
      const now = Date.now()
      const free =
        !row ||
        (row.pid === process.pid ? !LIVE_HOLDERS.has(row.holder) : !processAlive(row.pid)) ||
        now - row.heartbeat_ms > STALE_AFTER_MS
      if (free) upsert.run(key, holder, process.pid, now)
      db.exec('COMMIT')
      return free
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
  }

  const drop = (key: string) => {
    const lease = held.get(key)
    if (!lease) return
    clearInterval(lease.heartbeat)
    held.delete(key)
    LIVE_HOLDERS.delete(lease.holder)
    if (!closed) remove.run(key, lease.holder)
  }

  return {
    async acquire(key, timeoutMs) {
      if (closed) return null
      const deadline = Date.now() + timeoutMs
      const previous = tails.get(key) ?? Promise.resolve()
      let releaseLocal!: () => void
      const mine = new Promise<void>((resolve) => (releaseLocal = resolve))
      const tail = previous.then(() => mine)
      tails.set(key, tail)
      const settleLocal = () => {
        releaseLocal()
        if (tails.get(key) === tail) tails.delete(key)
      }
      let timer: ReturnType<typeof setTimeout> | undefined
      const reached = await Promise.race([
        previous.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())))),
      ])
      clearTimeout(timer)
      if (!reached) {
        // Our turn never came; whoever queued behind us goes when it does.
        void previous.then(settleLocal)
        return null
      }
      const holder = `shl_${randomUUID()}`
      LIVE_HOLDERS.add(holder)
      while (closed || !tryClaim(key, holder)) {
        if (closed || Date.now() >= deadline) {
          LIVE_HOLDERS.delete(holder)
          settleLocal()
          return null
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      }
      const heartbeat = setInterval(() => {
        if (!closed) beat.run(Date.now(), key, holder)
      }, HEARTBEAT_MS)
      heartbeat.unref()
      held.set(key, { holder, heartbeat })
      let released = false
      return {
        release() {
          if (released) return
          released = true
          drop(key)
          settleLocal()
        },
      }
    },
    dispose() {
      if (closed) return
      for (const key of [...held.keys()]) drop(key)
      closed = true
      db.close()
    },
  }
}
