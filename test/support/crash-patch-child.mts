// A child that applies one multi-file patch through the journal and is SIGKILLed by RETRACE_FAULT.
// argv: <dataDir> <root> <patch>
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createJournal, ensureWorkspace, faultHookFromEnv, planApplyPatch } from '../../src/main/core/journal'
// From its own module: ESM does not see names that a CJS-compiled `export *` re-exports.
import { DEFAULT_JOURNAL_LIMITS } from '../../src/main/core/journal/types'
import { createBlobStore, createIdempotencyStore, createWorkspaceLock, openDatabase } from '../../src/main/core/store'

const [dataDir = '', root = '', patch = ''] = process.argv.slice(2)
mkdirSync(dataDir, { recursive: true })
const db = openDatabase(join(dataDir, 'retrace.db'))
const journal = createJournal({
  db,
  blobs: createBlobStore(dataDir, db),
  lock: createWorkspaceLock(openDatabase(join(dataDir, 'retrace.db'), { synchronous: 'OFF' })),
  idempotency: createIdempotencyStore(db),
  limits: DEFAULT_JOURNAL_LIMITS,
  fault: faultHookFromEnv(process.env.RETRACE_FAULT),
})
db.prepare("INSERT INTO projects VALUES ('prj_patch', ?, 'patch', 0, 0)").run(root)
const workspace = { workspace_id: ensureWorkspace(db, 'prj_patch', root), root, dataDir }
const outcome = await journal.mutate(workspace, { kind: 'edit', origin_turn_id: 'turn_1' }, () =>
  planApplyPatch({ workspace, limits: journal.limits }, patch),
)
process.stdout.write(`${JSON.stringify(outcome.kind)}\n`)
process.exit(0)
