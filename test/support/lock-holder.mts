// Holds a workspace lock in a separate process until killed. argv: <dbFile> <workspaceId>
import { createWorkspaceLock, openDatabase } from '../../src/main/core/store'

const [dbFile = '', workspaceId = ''] = process.argv.slice(2)
const lock = createWorkspaceLock(openDatabase(dbFile, { synchronous: 'OFF' }))
const lease = await lock.acquire(workspaceId, { timeoutMs: 10_000 })
process.stdout.write(lease.kind === 'ok' ? 'held\n' : `failed ${JSON.stringify(lease.error)}\n`)
setInterval(() => {}, 1000)
