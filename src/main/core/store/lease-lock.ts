import { randomUUID } from 'node:crypto'
import { processAlive } from '../platform'
import { inImmediateTransaction, type Database } from './database'

/** One lease row as the lock reads it, whatever its table calls the columns. */
export interface LeaseRow {
  readonly holder: string
  readonly pid: number
  readonly heartbeatMs: number
}

/** The table a lease lock keeps its rows in: each owner names its own columns. */
export interface LeaseRows {
  read(key: string): LeaseRow | undefined
  /** Inserts or replaces the key's row with this holder. */
  claim(key: string, holder: string, pid: number, nowMs: number): void
  beat(key: string, holder: string, nowMs: number): void
  remove(key: string, holder: string): void
}

export interface Lease {
  readonly holderId: string
  release(): void
}

/** A mutual-exclusion lock per key, across every process that shares the database file. */
export interface LeaseLock {
  /** Null when the key was not free within `timeoutMs`, or the lock was disposed. */
  acquire(key: string, timeoutMs: number): Promise<Lease | null>
  /** Gives up every lease row this process holds; later acquires get null. */
  dispose(): void
}

export interface LeaseLockOptions {
  /**
   * How long an idle process keeps its row after the last release. A burst of work (an agent's
   * edits, autosave) then pays for the row once; another process waits at most this much longer.
   */
  readonly lingerMs?: number
}

const HEARTBEAT_MS = 1_000
/** A holder that stopped renewing for this long is dead even if its pid now names another process. */
const STALE_AFTER_MS = 30_000
const POLL_MS = 25

/** Holder ids alive in this process: a row naming our pid but none of these was left by a closed lock. */
const LIVE_HOLDERS = new Set<string>()

interface ProcessLease {
  readonly holderId: string
  readonly heartbeat: ReturnType<typeof setInterval>
  idle: ReturnType<typeof setTimeout> | undefined
}

/**
 * Lease rows claimed inside `BEGIN IMMEDIATE`, so two processes can never both hold a key. A
 * holder whose process is gone (or whose heartbeat stopped) is replaced; a live one is waited for.
 * Within a process, waiters queue in call order without touching the database. `db` should be a
 * connection of its own opened with `synchronous = OFF`: a lease needs atomicity, not durability —
 * after a crash its holder is dead by definition — so taking one costs no fsync.
 */
export function createLeaseLock(db: Database, rows: LeaseRows, options: LeaseLockOptions = {}): LeaseLock {
  const lingerMs = options.lingerMs ?? 0
  const tails = new Map<string, Promise<void>>()
  const leases = new Map<string, ProcessLease>()
  let disposed = false

  const dropLease = (key: string, lease: ProcessLease) => {
    if (leases.get(key) !== lease) return
    clearTimeout(lease.idle)
    clearInterval(lease.heartbeat)
    leases.delete(key)
    LIVE_HOLDERS.delete(lease.holderId)
    // On a closed connection (or a full disk) the row stays; its holder id is no longer live, so
    // the next claimant in this process treats it as dead, and another process sees our pid gone
    // or the beat stale.
    ignoreStorageFailure(() => rows.remove(key, lease.holderId))
  }

  const tryClaim = (key: string, holderId: string): boolean =>
    inImmediateTransaction(db, () => {
      const row = rows.read(key)
      const now = Date.now()
      const free =
        !row ||
        (row.pid === process.pid ? !LIVE_HOLDERS.has(row.holder) : !processAlive(row.pid)) ||
        now - row.heartbeatMs > STALE_AFTER_MS
      if (free) rows.claim(key, holderId, process.pid, now)
      return free
    })

  return {
    async acquire(key, timeoutMs) {
      if (disposed) return null
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
      let lease = leases.get(key)
      if (lease) {
        clearTimeout(lease.idle)
      } else {
        const holderId = `lease_${randomUUID()}`
        LIVE_HOLDERS.add(holderId)
        try {
          while (disposed || !tryClaim(key, holderId)) {
            if (disposed || Date.now() >= deadline) {
              LIVE_HOLDERS.delete(holderId)
              settleLocal()
              return null
            }
            await new Promise((resolve) => setTimeout(resolve, POLL_MS))
          }
        } catch (error) {
          // The claim itself failed (a full disk: SQLITE_FULL). Leave the queue as if we timed out,
          // or every later acquire of this key would wait behind us forever.
          LIVE_HOLDERS.delete(holderId)
          settleLocal()
          throw error
        }
        // A beat lost to a full disk costs nothing until STALE_AFTER_MS of them are lost; a throw
        // from this timer would end the whole process.
        const heartbeat = setInterval(
          () => ignoreStorageFailure(() => rows.beat(key, holderId, Date.now())),
          HEARTBEAT_MS,
        )
        heartbeat.unref()
        lease = { holderId, heartbeat, idle: undefined }
        leases.set(key, lease)
      }
      const held = lease
      let released = false
      return {
        holderId: held.holderId,
        release() {
          if (released) return
          released = true
          if (lingerMs > 0 && !disposed) {
            held.idle = setTimeout(() => dropLease(key, held), lingerMs)
            held.idle.unref()
          } else {
            dropLease(key, held)
          }
          settleLocal()
        },
      }
    },
    dispose() {
      if (disposed) return
      for (const [key, lease] of [...leases]) dropLease(key, lease)
      disposed = true
    },
  }
}

/**
 * For the writes a lease can lose without harm (a heartbeat, removing our own row): a closed
 * connection, or any SQLite failure (a full disk, an I/O error). They run from timers, where a
 * throw would end the process.
 */
function ignoreStorageFailure(work: () => void): void {
  try {
    work()
  } catch (error) {
    const { code, errcode } = error as { code?: unknown; errcode?: unknown }
    if (code !== 'ERR_INVALID_STATE' && typeof errcode !== 'number') throw error
  }
}
