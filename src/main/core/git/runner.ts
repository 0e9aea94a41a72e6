import { execFile } from 'node:child_process'
import { fail, ok, type Outcome } from '../../../shared/protocol'

const TIMEOUT_MS = 30_000
const MAX_OUTPUT = 256 * 1024 * 1024

/**
 * Environment variables that would point git at another repository, index or object store. A
 * command run against an explicit `gitDir` must not inherit them (Retrace started from a git hook
 * has GIT_INDEX_FILE set: a shadow `add` would then write the user's index).
 */
const REDIRECTING_ENV = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_LITERAL_PATHSPECS',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
  'GIT_QUARANTINE_PATH',
])

export interface GitOptions {
  /** `--git-dir`: this repository, never one discovered from `root` (a shadow repository). */
  readonly gitDir?: string
  /** `--work-tree`, with `gitDir`. */
  readonly workTree?: string
  /** Added to the environment (after the redirecting variables are removed, with `gitDir`). */
  readonly env?: Readonly<Record<string, string>>
  /** Written to git's standard input, which is then closed. */
  readonly stdin?: Buffer | string
  /** Exit codes besides 0 that are answers rather than failures (`diff --quiet` says 1 for "differs"). */
  readonly acceptExitCodes?: readonly number[]
  readonly timeoutMs?: number
  /** `-c key=value` for this command only. */
  readonly config?: Readonly<Record<string, string>>
}

export interface GitResult {
  readonly stdout: Buffer
  /** git's own sentences (warnings on success, the reason on an accepted exit code). */
  readonly stderr: string
  readonly exitCode: number
}

/**
 * The one place git is run: arguments as an array (never a shell string), `-C <root>`, a timeout,
 * no pager, no prompts, and every failure classified into a stable code with git's own sentence.
 * Without options it behaves exactly as it always has (callers reading the user's repository).
 */
export function git(
  root: string,
  args: readonly string[],
  verb: string,
  options?: GitOptions,
): Promise<Outcome<Buffer>> {
  return runGit(root, args, verb, options).then((out) => (out.kind === 'ok' ? ok(out.result.stdout) : out))
}

/** Like `git`, with the exit code and standard error of an accepted run. */
export function runGit(
  root: string,
  args: readonly string[],
  verb: string,
  options: GitOptions = {},
): Promise<Outcome<GitResult>> {
  const prefix = ['-C', root, '-c', 'core.quotepath=off', '--no-optional-locks']
  for (const [key, value] of Object.entries(options.config ?? {})) prefix.push('-c', `${key}=${value}`)
  if (options.gitDir !== undefined) prefix.push(`--git-dir=${options.gitDir}`)
  if (options.workTree !== undefined) prefix.push(`--work-tree=${options.workTree}`)
  const env: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => options.gitDir === undefined || !REDIRECTING_ENV.has(name)),
  )
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' }, options.env)
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      [...prefix, ...args],
      { encoding: 'buffer', timeout: options.timeoutMs ?? TIMEOUT_MS, maxBuffer: MAX_OUTPUT, env },
      (error, stdout, stderr) => {
        const text = stderr.toString('utf8')
        if (!error) return resolve(ok({ stdout, stderr: text, exitCode: 0 }))
        const code = (error as NodeJS.ErrnoException).code as unknown
        if (typeof code === 'number' && !error.killed && options.acceptExitCodes?.includes(code)) {
          return resolve(ok({ stdout, stderr: text, exitCode: code }))
        }
        resolve(classify(error, code, text, verb, options))
      },
    )
    if (options.stdin !== undefined) {
      // git may exit before reading everything (a failure): that is its answer, not ours to throw.
      child.stdin?.on('error', () => undefined)
      child.stdin?.end(options.stdin)
    }
  })
}

function classify(
  error: Error & { killed?: boolean },
  code: unknown,
  stderr: string,
  verb: string,
  options: GitOptions,
): Outcome<never> {
  const message = stderr.trim().split('\n')[0] ?? ''
  if (code === 'ENOENT') {
    return fail('UNAVAILABLE', 'git is not installed on this machine.', { reason: 'no-git', verb })
  }
  if (error.killed) {
    return fail('UNAVAILABLE', `git ${verb} took too long.`, { reason: 'timeout', verb })
  }
  if (/not a git repository/i.test(message)) {
    return fail('UNAVAILABLE', 'This folder is not a git repository.', { reason: 'not-git', verb })
  }
  if (options.gitDir !== undefined) {
    // Only a repository Retrace drives itself can meet these; the user's is read-only for us.
    if (/index\.lock'?: File exists/i.test(stderr)) {
      return fail('UNAVAILABLE', `git ${verb} found the index locked by another git process.`, {
        reason: 'index-locked',
        verb,
      })
    }
    const missing =
      /invalid object|unable to read [0-9a-f]{7,}|bad object|not a tree object|missing (blob|tree) |does not point to a valid object/i
    if (missing.test(stderr)) {
      return fail('UNAVAILABLE', `git ${verb} is missing objects: ${message}`, {
        reason: 'missing-object',
        verb,
        stderr: stderr.slice(0, 2000),
      })
    }
  }
  return fail('UNAVAILABLE', `git ${verb} failed: ${message || 'unknown error'}`, {
    reason: 'git-failed',
    verb,
    ...(options.gitDir !== undefined ? { stderr: stderr.slice(0, 2000) } : {}),
  })
}
