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
  const web = await startWebHost({ core, rendererDir: join(__dirname, '../renderer'), port, log: host.log })
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
