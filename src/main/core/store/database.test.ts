import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { MIGRATIONS } from './migrations'
import { openDatabase, schemaVersion } from './database'

describe('engine database', () => {
  test('opens in WAL mode with synchronous=FULL and foreign keys on, fully migrated', () => {
    const db = openDatabase(join(tempDir(), 'retrace.db'))
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 })
    expect(db.prepare('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    expect(schemaVersion(db)).toBe(MIGRATIONS.length)
    db.close()
  })

  test('reopening applies nothing twice and keeps the data', () => {
    const file = join(tempDir(), 'retrace.db')
    const first = openDatabase(file)
    first.prepare("INSERT INTO projects VALUES ('prj_1', '/r', 'r', 1, 1)").run()
    first.close()
    const second = openDatabase(file)
    expect(second.prepare('SELECT project_id FROM projects').all()).toEqual([{ project_id: 'prj_1' }])
    expect(schemaVersion(second)).toBe(MIGRATIONS.length)
    second.close()
  })

  test('a database from a newer Retrace is refused, not downgraded', () => {
    const file = join(tempDir(), 'retrace.db')
    openDatabase(file).close()
    const raw = new DatabaseSync(file)
    raw.exec(`UPDATE schema_version SET version = ${MIGRATIONS.length + 1}`)
    raw.close()
    expect(() => openDatabase(file)).toThrow(/newer Retrace/)
  })
})
