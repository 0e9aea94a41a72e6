import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { inImmediateTransaction } from './database'
import { storageFailure } from './storage-errors'

/** The error a real call threw, for classifying. */
function thrownBy(work: () => unknown): unknown {
  try {
    work()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('storage failures', () => {
  // /dev/full answers every write with ENOSPC: a real full disk without mounting one.
  test.skipIf(!existsSync('/dev/full'))('ENOSPC from a file write is NO_SPACE naming the path', () => {
    const error = thrownBy(() => writeFileSync('/dev/full', 'bytes'))
    expect(storageFailure(error, { side: 'project', path: 'notes.txt' })).toMatchObject({
      code: 'NO_SPACE',
      message: expect.stringContaining('"notes.txt" is full'),
      details: { reason: 'no-space', where: 'project', path: 'notes.txt', errno: 'ENOSPC' },
    })
  })

  test('a SQLite write past the size the database may take is NO_SPACE, and the transaction helper rethrows that error, not its rollback', () => {
    const db = new DatabaseSync(join(tempDir(), 'full.db'))
    db.exec('CREATE TABLE t (v BLOB)')
    // The database may not grow: the next page it needs is SQLITE_FULL, as on a full disk.
    const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count
    db.exec(`PRAGMA max_page_count = ${pages}`)
    const error = thrownBy(() =>
      inImmediateTransaction(db, () => db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(64 * 1024))),
    )
    expect(storageFailure(error, { side: 'data' })).toMatchObject({
      code: 'NO_SPACE',
      details: { reason: 'no-space', where: 'data', errno: 'SQLITE_FULL' },
    })
    expect(db.isTransaction).toBe(false)
    db.close()
  })

  test('anything else is not a storage failure: it stays an exception', () => {
    const error = thrownBy(() => writeFileSync(join(tempDir(), 'missing', 'file'), 'x'))
    expect(storageFailure(error, { side: 'project' })).toBeUndefined()
    expect(storageFailure(new Error('a bug'), {})).toBeUndefined()
  })
})
