// Opens one fresh engine database and one shadow-lock file at the moment a go-file appears, so
// several such processes open the same new files together. argv: <dbFile> <lockFile> <goFile>
import { existsSync } from 'node:fs'
import { createShadowLock } from '../../src/main/core/snapshot/lock'
import { openDatabase, schemaVersion } from '../../src/main/core/store'

const [dbFile = '', lockFile = '', goFile = ''] = process.argv.slice(2)
process.stdout.write('ready\n')
const pause = new Int32Array(new SharedArrayBuffer(4))
while (!existsSync(goFile)) Atomics.wait(pause, 0, 0, 1)
try {
  const db = openDatabase(dbFile)
  const lock = createShadowLock(lockFile)
  const lease = await lock.acquire('shadow', 10_000)
  lease?.release()
  process.stdout.write(`opened ${schemaVersion(db)} ${lease ? 'leased' : 'no-lease'}\n`)
  lock.dispose()
  db.close()
} catch (error) {
  process.stdout.write(`failed ${String(error)}\n`)
}
