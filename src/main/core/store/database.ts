import { DatabaseSync } from 'node:sqlite'
import { MIGRATIONS } from './migrations'

export type Database = DatabaseSync

/**
 * Opens (creating if needed) the engine database with the durability settings of spec 01:
 * WAL, synchronous=FULL, foreign keys on, and every pending migration applied in order.
 */
export function openDatabase(file: string): Database {
  const db = new DatabaseSync(file)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
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
