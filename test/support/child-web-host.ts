import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { HostLimits } from '../../src/main/web/server'

const CHILD = join(__dirname, 'web-host-child.mts')

export interface ChildWebHost {
  readonly port: number
  readonly token: string
  readonly officePort: number
  readonly pid: number
  /** `Cookie` header value that authorises plain HTTP requests (what the first page load sets). */
  readonly cookie: string
  /** Resident memory of the child (VmRSS), MiB. */
  rssMiB(): number
  /** Open file descriptors of the child. */
  openFds(): number
  output(): string
  stop(): Promise<void>
}

/**
 * Starts the browser-mode host (engine + HTTP/WebSocket server) in its own process, so memory and
 * descriptors are measured for the host alone. `maxOpenFiles` runs it under `ulimit -n`.
 */
export async function startChildWebHost(
  dataDir: string,
  folder: string,
  options: { limits?: Partial<HostLimits>; maxOpenFiles?: number } = {},
): Promise<ChildWebHost> {
  const args = ['--expose-gc', '--import', 'tsx', CHILD, dataDir, folder, JSON.stringify(options.limits ?? {})]
  const child =
    options.maxOpenFiles === undefined
      ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('sh', ['-c', `ulimit -n ${options.maxOpenFiles} && exec "$0" "$@"`, process.execPath, ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ready = await new Promise<{ port: number; token: string; officeOrigin: string; pid: number }>(
    (resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child host did not start in time:\n${output}`)), 60_000)
      child.stdout.on('data', () => {
        const line = output.split('\n').find((l) => l.startsWith('{'))
        if (line === undefined) return
        clearTimeout(timer)
        resolve(JSON.parse(line) as { port: number; token: string; officeOrigin: string; pid: number })
      })
      void exited.then(() => {
        clearTimeout(timer)
        reject(new Error(`the child host exited before it was ready:\n${output}`))
      })
    },
  )
  return {
    port: ready.port,
    token: ready.token,
    officePort: Number(new URL(ready.officeOrigin).port),
    pid: ready.pid,
    cookie: `retrace_token_${ready.port}=${ready.token}`,
    rssMiB() {
      const status = readFileSync(`/proc/${ready.pid}/status`, 'utf8')
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN)
      return kb / 1024
    },
    openFds: () => readdirSync(`/proc/${ready.pid}/fd`).length,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const forced = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(forced)
    },
  }
}
