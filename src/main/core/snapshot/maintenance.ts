import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { missingIndexObjects, reseed, shadowGit } from './repo'
import type { SnapshotRuntime } from './runtime'
import { withShadowLock } from './track'

/** Temp files of a git killed mid-write are older than any live one by far. */
const TEMP_AGE_MS = 60 * 60 * 1000

export interface MaintenanceReport {
  readonly gc: 'done' | 'failed' | 'skipped'
  readonly removedTemp: number
  readonly reseeded: boolean
  readonly message?: string
}

/**
 * Spec 06 maintenance, off the hot path: temp packs and objects left by killed git processes are
 * removed, `git gc --prune=7.days` drops snapshot trees older than a week (no ref keeps them),
 * and the objects the index borrows from the user's repository are checked (reseeding if the
 * user pruned some). Holds the shadow lock, so a capture waits rather than racing it.
 */
export function maintain(rt: SnapshotRuntime): Promise<MaintenanceReport> {
  return withShadowLock<MaintenanceReport>(
    rt,
    async (user) => {
      const removedTemp = await removeTempFiles(join(rt.shadow.gitDir, 'objects'))
      const gc = await shadowGit(rt.shadow, ['gc', '--quiet', '--prune=7.days'], 'gc', {
        timeoutMs: 30 * 60 * 1000,
        config: { 'gc.autoDetach': 'false' },
      })
      let reseeded = false
      const missing = await missingIndexObjects(rt.shadow)
      if (missing.kind === 'ok' && missing.result.length > 0) {
        rt.last = null
        reseeded = (await reseed(rt.shadow, user)).kind === 'ok'
      }
      return {
        gc: gc.kind === 'ok' ? 'done' : 'failed',
        removedTemp,
        reseeded,
        ...(gc.kind === 'error' ? { message: gc.error.message } : {}),
      }
    },
    (reason, message) => ({ gc: 'skipped', removedTemp: 0, reseeded: false, message: `${reason}: ${message}` }),
  )
}

async function removeTempFiles(objects: string): Promise<number> {
  let removed = 0
  const now = Date.now()
  const sweep = async (dir: string, depth: number) => {
    const names = await readdir(dir).catch(() => [] as string[])
    for (const name of names) {
      const path = join(dir, name)
      const isTemp = name.startsWith('tmp_') || name.startsWith('.tmp-') || name.startsWith('incoming-')
      if (isTemp) {
        const info = await stat(path).catch(() => null)
        if (info && now - info.mtimeMs > TEMP_AGE_MS) {
          await rm(path, { recursive: true, force: true })
          removed += 1
        }
      } else if (depth === 0 && (name === 'pack' || /^[0-9a-f]{2}$/.test(name))) {
        await sweep(path, 1)
      }
    }
  }
  await sweep(objects, 0)
  return removed
}
