import { chmodSync, existsSync, mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import {
  createBlobStore,
  createIdempotencyStore,
  createWorkspaceLock,
  openDatabase,
  type BlobStore,
  type Database,
  type IdempotencyStore,
} from '../store'
import type { FaultHook } from './faults'
import { createJournal, type Journal } from './journal'
import { DEFAULT_JOURNAL_LIMITS, type JournalLimits } from './types'

export interface JournalStore {
  readonly db: Database
  readonly blobs: BlobStore
  readonly idempotency: IdempotencyStore
  readonly journal: Journal
  close(): void
}

/**
 * Opens a data directory's database, content store and journal, wired as the engine uses them:
 * the lease lock on its own unsynced connection, files private to the user (spec 11).
 */
export function openJournalStore(
  dataDir: string,
  options: { fault: FaultHook; limits?: Partial<JournalLimits> | undefined },
): JournalStore {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const dbFile = join(dataDir, 'retrace.db')
  const db = openDatabase(dbFile)
  const lockDb = openDatabase(dbFile, { synchronous: 'OFF' })
  for (const file of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) if (existsSync(file)) chmodSync(file, 0o600)
  const blobs = createBlobStore(dataDir, db)
  const lock = createWorkspaceLock(lockDb)
  const idempotency = createIdempotencyStore(db)
  const journal = createJournal({
    db,
    blobs,
    lock,
    idempotency,
    limits: { ...DEFAULT_JOURNAL_LIMITS, ...options.limits },
    fault: options.fault,
    dataDir: realpathSync(dataDir),
  })
  return {
    db,
    blobs,
    idempotency,
    journal,
    close() {
      journal.dispose()
      lock.dispose()
      lockDb.close()
      db.close()
    },
  }
}
