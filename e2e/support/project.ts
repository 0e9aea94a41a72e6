import { execFileSync } from 'node:child_process'

/** Runs git in `root` as the test's own identity (never the machine's global config). */
export function git(root: string, ...args: string[]): Buffer {
  return execFileSync(
    'git',
    ['-C', root, '-c', 'user.email=e2e@example.com', '-c', 'user.name=E2E', '-c', 'init.defaultBranch=main', ...args],
    { stdio: 'pipe' },
  )
}

/** Makes `root` a git repository (if it is not one) and commits everything in it. */
export function commitAll(root: string, message = 'initial'): void {
  git(root, 'init', '-q')
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', message)
}
