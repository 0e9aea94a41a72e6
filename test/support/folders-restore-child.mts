// Makes one turn that writes gen/a/b.txt and gen/c.txt (new folders), then undoes it in a second
// core whose RETRACE_FAULT kills this process. argv: <dataDir> <root>
import { createCore } from '../../src/main/core'
import { faultHookFromEnv, planApplyPatch } from '../../src/main/core/journal'
import type { Owner } from '../../src/shared/protocol'
import { resultOrThrow } from './protocol'

const [dataDir = '', root = ''] = process.argv.slice(2)
const host = { shell: 'browser' as const, appVersion: 'crash-test', log: () => {} }
const call = (core: ReturnType<typeof createCore>, action: string, owner: Owner, payload: unknown) =>
  resultOrThrow(core, action, owner, payload)

const first = createCore({ dataDir, host, fault: () => {} })
const project = (await call(first, 'project.open', {}, { path: root })) as { project_id: string }
const session = (await call(first, 'session.create', { project_id: project.project_id }, {})) as { session_id: string }
const turn = await first.turns.begin(project.project_id, session.session_id, 'generate')
if (turn.kind !== 'ok') throw new Error('no turn')
const made = await first.turns.mutate(project.project_id, turn.result, (context) =>
  planApplyPatch(context, '*** Begin Patch\n*** Add File: gen/a/b.txt\n+b\n*** Add File: gen/c.txt\n+c\n*** End Patch'),
)
if (made.kind !== 'ok') throw new Error(JSON.stringify(made))
await first.turns.finalize(project.project_id, turn.result, { parts: [], status: 'complete' })
first.dispose()

const second = createCore({ dataDir, host, fault: faultHookFromEnv(process.env.RETRACE_FAULT) })
const owner = { project_id: project.project_id, session_id: session.session_id }
const plan = (await call(second, 'history.plan', owner, { operation: 'undo' })) as { plan_hash: string }
process.stdout.write('applying\n')
await call(second, 'history.apply', owner, { plan_hash: plan.plan_hash })
process.stdout.write('applied\n')
second.dispose()
