import { spawnSync } from 'node:child_process'

// Node has no mkfifo; the coreutils binary is a fork per call, fine for a test flipper.
export function mkfifoSync(path) {
  const result = spawnSync('mkfifo', [path])
  if (result.status !== 0) throw new Error(`mkfifo ${path} failed`)
}
