import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCore, type Host } from '../core'
import { parseWebCli } from './cli'
import { startWebHost } from './server'

/**
 * Browser-mode entry: `npm run web -- <folder>`. Opens the folder as a project, serves the built
 * renderer on 127.0.0.1 and prints the one URL line scripts wait for (spec 02).
 */
async function main(): Promise<void> {
  const parsed = parseWebCli(process.argv.slice(2), process.env, process.env.INIT_CWD ?? process.cwd())
  if (parsed.kind === 'usage') {
    process.stderr.write(`${parsed.message}\n`)
    process.exitCode = 2
    return
  }
  const { folder, port, dataDir, provider, permissionMode, open } = parsed.options
  const host: Host = {
    shell: 'browser',
    appVersion: process.env.npm_package_version ?? '0.0.0',
    log: (level, message, fields) => {
      process.stderr.write(`[${level}] ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`)
    },
  }
  const core = createCore({
    dataDir,
    host,
    prewarmSearch: true,
    agent: {
      ...(provider ? { cliProvider: provider } : {}),
      ...(permissionMode ? { defaultPermissionMode: permissionMode } : {}),
      ...(process.env.RETRACE_MAX_RETRIES ? { loop: { maxRetries: Number(process.env.RETRACE_MAX_RETRIES) } } : {}),
      ...(process.env.RETRACE_OLLAMA_URL !== undefined
        ? { ollamaUrl: process.env.RETRACE_OLLAMA_URL === '' ? null : process.env.RETRACE_OLLAMA_URL }
        : {}),
    },
  })
  const opened = await core.handle({
    request_id: crypto.randomUUID(),
    action: 'project.open',
    owner: {},
    payload: { path: folder },
  })
  if (opened.status === 'error') {
    process.stderr.write(`Cannot open "${folder}": ${opened.error.message}\n`)
    core.dispose()
    process.exitCode = 1
    return
  }
  const portFile = join(dataDir, 'web-port')
  const web = await startWebHost({
    core,
    rendererDir: join(__dirname, '../renderer'),
    port,
    ...(port === 0 ? lastPort(portFile) : {}),
    log: host.log,
  })
  rememberPort(portFile, web.port)
  // `--open` rides along in the address as `open=` (next to the token); the window opens it.
  const url = open === undefined ? web.url : `${web.url}&open=${encodeURIComponent(open)}`
  process.stdout.write(`Retrace is ready at ${url}\n`)

  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    process.stderr.write(`Stopping Retrace (${signal})…\n`)
    void web.close().then(() => {
      core.dispose()
      process.exit(0)
    })
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

void main()

/**
 * The port the last run listened on (`<data dir>/web-port`), tried first so a restart keeps the
 * window's address and with it the browser storage its tabs are restored from (issue 25). A file
 * that is not a small decimal port is ignored.
 */
function lastPort(file: string): { preferredPort?: number } {
  try {
    if (statSync(file).size > 16) return {}
    const text = readFileSync(file, 'utf8').trim()
    const port = Number(text)
    return /^\d{4,5}$/.test(text) && port >= 1024 && port <= 65535 ? { preferredPort: port } : {}
  } catch {
    return {}
  }
}

function rememberPort(file: string, port: number): void {
  try {
    writeFileSync(file, `${port}\n`, { mode: 0o600 })
  } catch {
    // Only the next run's address depends on it: it picks a free port instead.
  }
}
