// A child that applies one multi-file patch through the journal and is SIGKILLed by RETRACE_FAULT.
// argv: <dataDir> <root> <patch>
import { ensureWorkspace, faultHookFromEnv, openJournalStore, planApplyPatch } from '../../src/main/core/journal'

const [dataDir = '', root = '', patch = ''] = process.argv.slice(2)
const { db, journal } = openJournalStore(dataDir, { fault: faultHookFromEnv(process.env.RETRACE_FAULT) })
db.prepare("INSERT INTO projects VALUES ('prj_patch', ?, 'patch', 0, 0)").run(root)
const workspace = { workspace_id: ensureWorkspace(db, 'prj_patch', root), root, dataDir }
const outcome = await journal.mutate(workspace, { kind: 'edit', origin_turn_id: 'turn_1' }, () =>
  planApplyPatch({ workspace, limits: journal.limits }, patch),
)
process.stdout.write(`${JSON.stringify(outcome.kind)}\n`)
process.exit(0)
