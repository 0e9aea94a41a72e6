// A browser-mode host in a child process, run from the sources (`node --import tsx`): the engine
// and the HTTP/WebSocket server as `npm run web` wires them, so a test can measure the child's
// memory and file descriptors from outside. argv: <dataDir> <project folder> [limits JSON].
// Prints one JSON line `{ url, port, token, officeOrigin, pid }` when ready; stops on SIGTERM.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createCore } from '../../src/main/core'
import { startWebHost, type HostLimits } from '../../src/main/web/server'

const [dataDir = '', folder = '', limitsJson = '{}'] = process.argv.slice(2)
// Run with --expose-gc: collecting garbage often makes the resident size a test reads reflect
// what is held, not what a lazy collector has yet to free.
const collect = (globalThis as { gc?: () => void }).gc
if (collect) setInterval(collect, 250).unref()
const limits = JSON.parse(limitsJson) as Partial<HostLimits>
const rendererDir = join(dataDir, 'renderer')
mkdirSync(rendererDir, { recursive: true })
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Retrace</title><div id="root"></div>')

const core = createCore({
  dataDir,
  host: {
    shell: 'browser',
    appVersion: 'child',
    log: (level, message) => process.stderr.write(`[${level}] ${message}\n`),
  },
  agent: { env: {}, ollamaUrl: null },
})
const opened = await core.handle({
  request_id: crypto.randomUUID(),
  action: 'project.open',
  owner: {},
  payload: { path: folder },
})
if (opened.status !== 'ok') throw new Error(`project.open failed: ${JSON.stringify(opened.error)}`)
const web = await startWebHost({ core, rendererDir, limits })
process.stdout.write(
  `${JSON.stringify({ url: web.url, port: web.port, token: web.token, officeOrigin: web.officeOrigin, pid: process.pid })}\n`,
)
process.once('SIGTERM', () => {
  void web.close().then(() => {
    core.dispose()
    process.exit(0)
  })
})
