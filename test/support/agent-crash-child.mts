// Runs one agent turn against the fake model at <llmUrl> and prints every turn.part as a JSON line,
// so the parent can SIGKILL this process at an exact point of the turn.
// argv: <dataDir> <root> <llmUrl>
import { createCore } from '../../src/main/core'
import { sendUntyped } from './protocol'

const [dataDir = '', root = '', llmUrl = ''] = process.argv.slice(2)
const core = createCore({
  dataDir,
  host: { shell: 'browser', appVersion: 'crash-test', log: () => {} },
  agent: {
    env: {},
    ollamaUrl: null,
    cliProvider: { kind: 'openai-compatible', base_url: llmUrl, model: 'fake-model' },
    defaultPermissionMode: 'auto',
    loop: { maxRetries: 0 },
  },
})
core.onEvent((frame) => {
  if (frame.event === 'turn.part') process.stdout.write(`${JSON.stringify(frame.data)}\n`)
})
const call = async (action: string, owner: object, payload: unknown) => {
  const response = await sendUntyped(core, action, payload, { owner })
  if (response.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(response.error)}`)
  return response.result as Record<string, string>
}
const project = await call('project.open', {}, { path: root })
const session = await call('session.create', { project_id: project.project_id }, {})
await call('session.prompt', { project_id: project.project_id }, { session_id: session.session_id, text: 'work' })
// Keeps running until killed.
setInterval(() => {}, 1_000)
