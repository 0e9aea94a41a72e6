import { existsSync, readFileSync } from 'node:fs'
import { afterEach } from 'vitest'

/**
 * Tests of the commands the agent runs: whether a process still runs, and cleanup of the process
 * groups a test started (directly or through the engine), so a failing run leaves no looping
 * command writing behind it.
 */

/**
 * True, after printing why, where /proc is missing (not Linux): these tests read process state
 * from it, and a skip must say so rather than pass silently.
 */
export function skipWithoutProc(reason: string): boolean {
  if (existsSync('/proc/self/stat')) return false
  console.log(`skipped: ${reason}`)
  return true
}

/** Running, as the kernel sees it: a zombie only waits for its parent and writes nothing. */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Polls `check` every 50 ms until it holds or `timeoutMs` passes; the last check's answer. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (check()) return true
    await pause(50)
  }
  return check()
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const groups: number[] = []

/** Kills the process group led by `pgid` after the current test, whatever its outcome. */
export function killGroupAfterTest(pgid: number): void {
  groups.push(pgid)
}

afterEach(() => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      // Already gone: the expected case.
    }
  }
})
