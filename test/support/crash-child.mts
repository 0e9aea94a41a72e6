// A child process that performs one mutation and is SIGKILLed by RETRACE_FAULT at a phase boundary.
// argv: <dataDir> <root> <json request>; request is { action, payload, key } or { twoFiles: {...} }.
import { randomUUID } from 'node:crypto'
import { createCore } from '../../src/main/core'

const [dataDir = '', root = '', requestJson = '{}'] = process.argv.slice(2)
const request = JSON.parse(requestJson) as { action: string; payload: unknown; key: string }

const core = createCore({ dataDir, host: { shell: 'browser', appVersion: 'crash-test', log: () => {} } })
const opened = await core.handle({
  request_id: randomUUID(),
  action: 'project.open',
  owner: {},
  payload: { path: root },
})
if (opened.status !== 'ok') throw new Error('open failed')
const projectId = (opened.result as { project_id: string }).project_id
const response = await core.handle({
  request_id: randomUUID(),
  action: request.action,
  owner: { project_id: projectId },
  idempotency_key: request.key,
  payload: request.payload,
})
process.stdout.write(`${JSON.stringify(response)}\n`)
core.dispose()
