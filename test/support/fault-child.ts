import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/**
 * Runs a crash-test script (`test/support/<script>`) in its own process with `RETRACE_FAULT` set,
 * so the fault kills that process at the named phase; the test then restarts on its data directory.
 */
export function runFaultChild(script: string, dataDir: string, root: string, fault: string, timeoutMs = 90_000) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, script), dataDir, root], {
    env: { ...process.env, RETRACE_FAULT: fault },
    encoding: 'utf8',
    timeout: timeoutMs,
  })
}
