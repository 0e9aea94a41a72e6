import { execFile } from 'node:child_process'
import { lstatSync, type Stats } from 'node:fs'
import { readdir, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'

export type IndexLockState = 'free' | 'cleared' | 'busy'

/** How long a lock whose holder cannot be determined must be untouched before it counts as stale. */
const UNKNOWN_HOLDER_STALE_MS = 10 * 60 * 1000

/**
 * git leaves `index.lock` behind when it is killed. Every shadow command runs with
 * `--git-dir=<shadow>` on its command line, and the shadow lock is held while we look: a lock
 * file with no live process naming the shadow repository is a leftover and is removed (only the
 * very file we examined); one whose git is still running — an orphan of a crashed Retrace — is
 * waited for and never deleted. Past `waitMs` the answer is `busy`, never a retry loop.
 */
export async function settleIndexLock(gitDir: string, waitMs: number): Promise<IndexLockState> {
  const lockPath = join(gitDir, 'index.lock')
  const deadline = Date.now() + waitMs
  let delay = 20
  for (;;) {
    const seen = identity(lockPath)
    if (seen === null) return 'free'
    const holders = await processesNaming(gitDir)
    const stale = holders === 'unknown' ? Date.now() - seen.mtimeMs > UNKNOWN_HOLDER_STALE_MS : holders.length === 0
    if (stale) {
      const again = identity(lockPath)
      if (again === null) return 'free'
      if (again.ino === seen.ino && again.mtimeMs === seen.mtimeMs) {
        await unlink(lockPath).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error
        })
        return 'cleared'
      }
      continue
    }
    if (Date.now() >= deadline) return 'busy'
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(delay * 2, 250)
  }
}

function identity(path: string): Stats | null {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

/** Pids of other processes whose command line names the repository, or `unknown` where that cannot be read. */
export async function processesNaming(gitDir: string): Promise<number[] | 'unknown'> {
  const needle = `--git-dir=${gitDir}`
  let entries: string[]
  try {
    entries = await readdir('/proc')
  } catch {
    return processesFromPs(needle)
  }
  const pids: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`).catch(() => null)
    if (cmdline === null) continue
    if (cmdline.toString('utf8').split('\0').includes(needle)) pids.push(pid)
  }
  return pids
}

function processesFromPs(needle: string): Promise<number[] | 'unknown'> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-ww', '-o', 'pid=', '-o', 'args='], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return resolve('unknown')
      const pids: number[] = []
      for (const line of stdout.split('\n')) {
        const match = /^\s*(\d+)\s+(.*)$/.exec(line)
        if (!match || !match[2]?.includes(needle)) continue
        const pid = Number(match[1])
        if (pid !== process.pid) pids.push(pid)
      }
      resolve(pids)
    })
  })
}
