import { afterEach } from 'vitest'
import {
  ensureWorkspace,
  openJournalStore,
  type FaultHook,
  type JournalLimits,
  type JournalStore,
  type Workspace,
} from '../../src/main/core/journal'
import { tempDir } from './temp'

const open: JournalStore[] = []
afterEach(() => {
  for (const store of open.splice(0)) store.close()
})

/** The journal wired as the core wires it, over a real temp project and data directory. */
export function journalFixture(options: { fault?: FaultHook; limits?: Partial<JournalLimits> } = {}) {
  const root = tempDir()
  const dataDir = tempDir()
  const store = openJournalStore(dataDir, { fault: options.fault ?? (() => {}), limits: options.limits })
  open.push(store)
  const { db, blobs, journal } = store
  db.prepare("INSERT INTO projects VALUES ('prj_t', ?, 't', 0, 0)").run(root)
  const workspace: Workspace = { workspace_id: ensureWorkspace(db, 'prj_t', root), root, dataDir }
  return { root, dataDir, db, blobs, journal, workspace, context: { workspace, limits: journal.limits } }
}
