import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { MIGRATIONS } from './migrations'

export type Database = DatabaseSync

/**
 * Opens (creating if needed) the engine database with the durability settings of spec 01:
 * WAL, synchronous=FULL, foreign keys on, and every pending migration applied in order.
 */
export function openDatabase(file: string, options: { synchronous?: 'FULL' | 'OFF' } = {}): Database {
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'FULL'}`)
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 5000')
  migrate(db)
  return db
}

function migrate(db: Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)')
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined
  let version = row?.version ?? 0
  if (version > MIGRATIONS.length) {
    throw new Error(
      `The data directory was written by a newer Retrace (schema ${version}, this build knows ${MIGRATIONS.length}).`,
    )
  }
  for (const migration of MIGRATIONS.slice(version)) {
    db.exec('BEGIN IMMEDIATE')
    try {
      db.exec(migration.sql)
      version += 1
      db.exec('DELETE FROM schema_version')
      db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version)
      db.exec('COMMIT')
    } catch (error) {
      db.exec('ROLLBACK')
      throw error
    }
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
    db.exec('ROLLBACK')
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
