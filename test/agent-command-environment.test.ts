import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { agentFixture, resultOf, toolParts } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { tempDir } from './support/temp'

const fakes: FakeLlmServer[] = []
const savedEnvironment = new Map<string, string | undefined>()
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
  for (const [name, value] of savedEnvironment) {
    if (value === undefined) Reflect.deleteProperty(process.env, name)
    else process.env[name] = value
  }
  savedEnvironment.clear()
})

/** Sets a variable in this process's environment, which the engine under test shares. */
function setEngineVariable(name: string, value: string): void {
  if (!savedEnvironment.has(name)) savedEnvironment.set(name, process.env[name])
  process.env[name] = value
}

const OPENAI_SECRET = 'sk-openai-secret-0d1f7a'
const PROVIDER_SECRET = 'my-provider-secret-93be2c'
const ANTHROPIC_SECRET = 'sk-ant-secret-55aa01'

describe("the agent's commands", () => {
  test("run without Retrace's provider keys or RETRACE_* variables, and keep the person's other tools' settings", async () => {
    setEngineVariable('OPENAI_API_KEY', OPENAI_SECRET)
    setEngineVariable('ANTHROPIC_API_KEY', ANTHROPIC_SECRET)
    setEngineVariable('MY_KEY', PROVIDER_SECRET)
    // The same key under a name no provider reads is still the key.
    setEngineVariable('MY_KEY_COPY', PROVIDER_SECRET)
    setEngineVariable('RETRACE_TEST_INTERNAL', 'retrace-internal-value')
    setEngineVariable('ELECTRON_RUN_AS_NODE', '1')
    setEngineVariable('GITHUB_TOKEN', 'ghp-person-tool-token')
    const root = tempDir('retrace-agent-env-')
    writeFileSync(join(root, 'README.md'), 'hello\n')
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    llm.enqueue(
      { kind: 'stream', steps: [{ toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'env' } }] }] },
      { kind: 'stream', steps: [{ text: 'done' }] },
    )
    const agent = await agentFixture(root, llm, {
      agent: {
        env: { MY_KEY: PROVIDER_SECRET, OPENAI_API_KEY: OPENAI_SECRET, RETRACE_API_KEY: 'test-key' },
        loop: { maxRetries: 0, stallTimeoutMs: 5_000 },
      },
    })
    const saved = resultOf(
      await agent.core.handle({
        request_id: crypto.randomUUID(),
        action: 'settings.save_provider',
        owner: {},
        payload: {
          kind: 'openai-compatible',
          name: 'Mine',
          base_url: llm.url,
          model: 'fake-model',
          key: { kind: 'env', name: 'MY_KEY' },
          activate: true,
        },
      }),
    ) as { provider_id: string }
    expect(saved.provider_id).toBeTruthy()

    const turnId = await agent.prompt('print the environment')
    expect((await agent.finished(turnId)).status).toBe('complete')
    const bash = toolParts(await agent.turn(turnId)).find((part) => part.id === 'b1')
    expect(bash?.state).toBe('completed')
    const output = bash?.output ?? ''
    expect(output).toContain('exit code 0')
    // The command really saw an environment: PATH and the person's own tool settings are there.
    expect(output).toMatch(/^PATH=/m)
    expect(output).toContain('GITHUB_TOKEN=ghp-person-tool-token')
    for (const secret of [OPENAI_SECRET, PROVIDER_SECRET, ANTHROPIC_SECRET, 'test-key', 'retrace-internal-value']) {
      expect(output).not.toContain(secret)
    }
    expect(output).not.toMatch(/^(OPENAI_API_KEY|ANTHROPIC_API_KEY|MY_KEY|MY_KEY_COPY|ELECTRON_RUN_AS_NODE)=/m)
    // Only the command-group marker (how recovery finds a command's processes) is Retrace's.
    const retraceVariables = output.match(/^RETRACE_[A-Z_]*(?==)/gm) ?? []
    expect(retraceVariables).toEqual(['RETRACE_COMMAND_GROUP'])
  })
})
