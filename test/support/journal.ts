import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import {
  createJournal,
  DEFAULT_JOURNAL_LIMITS,
  ensureWorkspace,
  type FaultHook,
  type JournalLimits,
  type Workspace,
} from '../../src/main/core/journal'
import {
  createBlobStore,
  createIdempotencyStore,
  createWorkspaceLock,
  openDatabase,
  type Database,
  type WorkspaceLock,
} from '../../src/main/core/store'
import { tempDir } from './temp'

const open: Database[] = []
const locks: WorkspaceLock[] = []
afterEach(() => {
  for (const lock of locks.splice(0)) lock.dispose()
  for (const db of open.splice(0)) db.close()
})

/** The journal wired as the core wires it, over a real temp project and data directory. */
export function journalFixture(options: { fault?: FaultHook; limits?: Partial<JournalLimits> } = {}) {
  const root = tempDir()
  const dataDir = tempDir()
  mkdirSync(dataDir, { recursive: true })
  const dbFile = join(dataDir, 'retrace.db')
  const db = openDatabase(dbFile)
  const lockDb = openDatabase(dbFile, { synchronous: 'OFF' })
  open.push(lockDb, db)
  const blobs = createBlobStore(dataDir, db)
  const lock = createWorkspaceLock(lockDb)
  locks.push(lock)
  const journal = createJournal({
    db,
    blobs,
    lock,
    idempotency: createIdempotencyStore(db),
    limits: { ...DEFAULT_JOURNAL_LIMITS, ...options.limits },
    fault: options.fault ?? (() => {}),
  })
  db.prepare("INSERT INTO projects VALUES ('prj_t', ?, 't', 0, 0)").run(root)
  const workspace: Workspace = { workspace_id: ensureWorkspace(db, 'prj_t', root), root, dataDir }
  return { root, dataDir, db, blobs, journal, workspace, context: { workspace, limits: journal.limits } }
}
