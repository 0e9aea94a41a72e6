import { execFileSync } from 'node:child_process'
import { startFakeOpenAI, type FakeLlmServer } from '../../test/support/fake-llm'
import { startWebHost, type RunningWebHost } from './web-host'

/** Runs git in `root` as the test's own identity (never the machine's global config). */
export function git(root: string, ...args: string[]): Buffer {
  return execFileSync(
    'git',
    ['-C', root, '-c', 'user.email=e2e@example.com', '-c', 'user.name=E2E', '-c', 'init.defaultBranch=main', ...args],
    { stdio: 'pipe' },
  )
}

/** Makes `root` a git repository (if it is not one) and commits everything in it. */
export function commitAll(root: string, message = 'initial'): void {
  git(root, 'init', '-q')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', message)
}

export interface AgentHost {
  readonly host: RunningWebHost
  /** The fake OpenAI-compatible model the agent talks to: tests enqueue its answers. */
  readonly llm: FakeLlmServer
  stop(): Promise<void>
}

/**
 * Browser mode with an agent whose model is a loopback fake speaking the OpenAI wire protocol, as
 * a person starts it with a provider configured (`--provider … --permission-mode …`).
 */
export async function startAgentHost(
  project: string,
  dataDir: string,
  permissionMode: 'ask' | 'auto',
  extraArgs: readonly string[] = [],
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<AgentHost> {
  const llm = await startFakeOpenAI([], { requireKey: 'e2e-key', models: ['fake-model'] })
  const host = await startWebHost(
    project,
    dataDir,
    [
      '--provider',
      'openai-compatible',
      '--base-url',
      llm.url,
      '--model',
      'fake-model',
      '--permission-mode',
      permissionMode,
      ...extraArgs,
    ],
    { RETRACE_API_KEY: 'e2e-key', RETRACE_MAX_RETRIES: '0', ...extraEnv },
  )
  return {
    host,
    llm,
    async stop() {
      await host.stop()
      await llm.close()
    },
  }
}
