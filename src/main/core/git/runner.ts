import { execFile } from 'node:child_process'
import { fail, ok, type Outcome } from '../../../shared/protocol'

const TIMEOUT_MS = 30_000
const MAX_OUTPUT = 256 * 1024 * 1024

/**
 * The one place git is run: arguments as an array (never a shell string), `-C <root>`, a timeout,
 * no pager, no prompts, and every failure classified into a stable code with git's own sentence.
 */
export function git(root: string, args: readonly string[], verb: string): Promise<Outcome<Buffer>> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-C', root, '-c', 'core.quotepath=off', '--no-optional-locks', ...args],
      {
        encoding: 'buffer',
        timeout: TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(ok(stdout))
        const message = stderr.toString('utf8').trim().split('\n')[0] ?? ''
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') {
          return resolve(fail('UNAVAILABLE', 'git is not installed on this machine.', { reason: 'no-git', verb }))
        }
        if (error.killed) {
          return resolve(fail('UNAVAILABLE', `git ${verb} took too long.`, { reason: 'timeout', verb }))
        }
        if (/not a git repository/i.test(message)) {
          return resolve(fail('UNAVAILABLE', 'This folder is not a git repository.', { reason: 'not-git', verb }))
        }
        resolve(
          fail('UNAVAILABLE', `git ${verb} failed: ${message || 'unknown error'}`, { reason: 'git-failed', verb }),
        )
      },
    )
  })
}
