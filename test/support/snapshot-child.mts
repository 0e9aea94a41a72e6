// Takes `count` snapshots of a project, adding a file of its own before each (renamed into place,
// so the other process never sees it half written), and prints when it held the shadow lock.
// argv: <dataDir> <root> <count> <name>
import { renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createSnapshotService } from '../../src/main/core/snapshot'

const [dataDir = '', root = '', count = '1', name = 'child'] = process.argv.slice(2)
const now = () => performance.timeOrigin + performance.now()
const service = createSnapshotService({
  dataDir,
  maintenance: false,
  onLockHeld: (_gitDir, event) => process.stdout.write(`${event} ${now()}\n`),
})
const project = service.project({ project_id: 'prj_shared', root })
for (let i = 0; i < Number(count); i++) {
  const temp = join(dirname(root), `${name}-${i}.tmp`)
  writeFileSync(temp, `${name} ${i}\n`)
  renameSync(temp, join(root, `${name}-${i}.txt`))
  const capture = await project.track()
  process.stdout.write(
    capture.kind === 'snapshot' ? `snapshot ${capture.hash}\n` : `none ${capture.reason} ${capture.message}\n`,
  )
}
service.dispose()
