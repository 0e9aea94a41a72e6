// A child process that performs one mutation and is SIGKILLed by RETRACE_FAULT at a phase boundary.
// argv: <dataDir> <root> <json request>; request is { action, payload, key } or { twoFiles: {...} }.
import { createCore } from '../../src/main/core'
import { send, sendUntyped } from './protocol'

const [dataDir = '', root = '', requestJson = '{}'] = process.argv.slice(2)
const request = JSON.parse(requestJson) as { action: string; payload: unknown; key: string }

const core = createCore({ dataDir, host: { shell: 'browser', appVersion: 'crash-test', log: () => {} } })
const opened = await send(core, 'project.open', { path: root })
if (opened.status !== 'ok') throw new Error('open failed')
const projectId = (opened.result as { project_id: string }).project_id
const response = await sendUntyped(core, request.action, request.payload, {
  owner: { project_id: projectId },
  key: request.key,
})
process.stdout.write(`${JSON.stringify(response)}\n`)
core.dispose()
