import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'

const REPO = join(__dirname, '..', '..')
/** How long a host may take to shut down after its signal before it is killed. */
const STOP_GRACE_MS = 15_000
const READY_LINE = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+)(?:&open=\S+)?/

export interface RunningWebHost {
  readonly url: string
  readonly port: number
  readonly token: string
  readonly process: ChildProcess
  readonly output: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/**
 * Starts browser mode exactly as a person does (`npm run web -- <folder>`, minus npm) and waits
 * for the URL line the protocol promises.
 */
export async function startWebHost(
  folder: string,
  dataDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningWebHost> {
  const child = spawn(
    process.execPath,
    [join(REPO, 'scripts', 'web.mjs'), folder, '--data-dir', dataDir, ...extraArgs],
    {
      cwd: REPO,
      // Never the developer's own keys or local Ollama: tests say exactly which model to use.
      env: {
        ...process.env,
        INIT_CWD: REPO,
        RETRACE_OLLAMA_URL: '',
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A host that never printed its URL is still a running process: it must not outlive the spec.
      child.kill('SIGKILL')
      reject(new Error(`web host did not print its URL in time:\n${output}`))
    }, 90_000)
    const check = () => {
      const found = output.match(READY_LINE)
      if (found) {
        clearTimeout(timer)
        resolve(found)
      }
    }
    child.stdout.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`web host exited with ${code} before it was ready:\n${output}`))
    })
  })
  return {
    url: match[0],
    port: Number(match[1]),
    token: match[2] ?? '',
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      // A host stuck in shutdown is killed rather than left behind (and the hook left hanging).
      const grace = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
      try {
        return await exited
      } finally {
        clearTimeout(grace)
      }
    },
  }
}
