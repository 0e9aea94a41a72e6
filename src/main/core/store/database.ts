import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { MIGRATIONS } from './migrations'

export type Database = DatabaseSync

/**
 * Opens (creating if needed) the engine database with the durability settings of spec 01:
 * WAL, synchronous=FULL, foreign keys on, and every pending migration applied in order.
 */
export function openDatabase(file: string, options: { synchronous?: 'FULL' | 'OFF' } = {}): Database {
  const db = openSqlite(file, { synchronous: options.synchronous ?? 'FULL' })
  db.exec('PRAGMA foreign_keys = ON')
  migrate(db)
  return db
}

const BUSY_TIMEOUT_MS = 5_000
const SQLITE_BUSY = 5

/**
 * Opens a SQLite file in WAL mode with a busy timeout, safe against other processes opening the
 * same file at the same moment. `schema` runs once inside a write transaction.
 *
 * SQLite answers SQLITE_BUSY without waiting when waiting could deadlock: two connections that both
 * read the header of a fresh file and both want to switch it to WAL. The busy timeout cannot help
 * there, so those statements are retried whole until the timeout.
 */
export function openSqlite(file: string, options: { synchronous: 'FULL' | 'OFF'; schema?: string }): Database {
  const db = new DatabaseSync(file)
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    untilNotBusy(() => db.exec('PRAGMA journal_mode = WAL'))
    db.exec(`PRAGMA synchronous = ${options.synchronous}`)
    const schema = options.schema
    if (schema) untilNotBusy(() => inImmediateTransaction(db, () => db.exec(schema)))
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

function untilNotBusy(work: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      work()
      return
    } catch (error) {
      const code = (error as { errcode?: unknown }).errcode
      if (typeof code !== 'number' || (code & 0xff) !== SQLITE_BUSY || Date.now() >= deadline) throw error
      // Opening is synchronous, so the pause is too; it only happens while another process opens.
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20)
    }
  }
}

function migrate(db: Database): void {
  untilNotBusy(() =>
    inImmediateTransaction(db, () => db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)')),
  )
  // Each step re-reads the version inside its write transaction: another process opening the same
  // file may have applied it meanwhile.
  for (;;) {
    const applied = inImmediateTransaction(db, () => {
      const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined
      const version = row?.version ?? 0
      if (version > MIGRATIONS.length) {
        throw new Error(
          `The data directory was written by a newer Retrace (schema ${version}, this build knows ${MIGRATIONS.length}).`,
        )
      }
      const migration = MIGRATIONS[version]
      if (!migration) return false
      db.exec(migration.sql)
      db.exec('DELETE FROM schema_version')
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version + 1)
      return true
    })
    if (!applied) return
  }
}

export function schemaVersion(db: Database): number {
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined
  return row?.version ?? 0
}

/** Runs `work` in an IMMEDIATE (write-locking) transaction, committed durably. */
export function inImmediateTransaction<T>(db: Database, work: () => T): T {
  db.exec('BEGIN IMMEDIATE')
  try {
    const result = work()
    db.exec('COMMIT')
    return result
  } catch (error) {
    // SQLite rolls a transaction back by itself on some errors (SQLITE_FULL during COMMIT among
    // them); a ROLLBACK then would throw "no transaction is active" and hide the real cause.
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
}

/**
 * Runs `work` in an IMMEDIATE transaction whose commit is not fsynced. Only for writes that
 * start-up recovery can re-derive from durable state if they are lost in a crash; the next
 * FULL commit on the database makes them durable anyway.
 */
export function inLazyTransaction<T>(db: Database, work: () => T): T {
  db.exec('PRAGMA synchronous = NORMAL')
  try {
    return inImmediateTransaction(db, work)
  } finally {
    db.exec('PRAGMA synchronous = FULL')
  }
}

const STATEMENTS = new WeakMap<Database, Map<string, StatementSync>>()

/** A prepared statement, compiled once per connection (hot paths must not re-parse SQL). */
export function statement(db: Database, sql: string): StatementSync {
  let cache = STATEMENTS.get(db)
  if (!cache) {
    cache = new Map()
    STATEMENTS.set(db, cache)
  }
  let prepared = cache.get(sql)
  if (!prepared) {
    prepared = db.prepare(sql)
    cache.set(sql, prepared)
  }
  return prepared
}
