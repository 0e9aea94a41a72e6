import { execFile } from 'node:child_process'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { gitEnvironment } from './environment'
import { CONFIG_LIMITS, neutralisingConfig } from './neutralise'

/**
 * THE RULE (issue 23 items 1 and 19): every git process Retrace starts — on the person's
 * repository, a repository a `.git` file points at, a worktree it makes, or its own shadow
 * repository whose work tree is the person's folder — runs nothing but git itself, and sees
 * nothing of Retrace's environment but what git needs. It is a property of this runner, not of
 * its callers, so a new verb cannot forget it:
 *
 * - Configuration is data. Before a run the configuration is read with `git config --list -z
 *   --show-origin`, which executes nothing (cached per location, re-read when one of its files
 *   changes: neutralise.ts), and every setting that names a program is overridden for the run —
 *   hooks (local, `core.hooksPath` local or global), `core.fsmonitor`, filter drivers
 *   (clean/smudge/process), textconv and diff/merge drivers, `diff.external`, pager, editors,
 *   askpass, credential helpers, ssh/proxy commands, signing programs, upload/receive-pack paths —
 *   whichever scope or included file defines it. The overrides come last (command-line scope), so
 *   they win over the repository, its includes, the person's global and the system config.
 *   Drivers are neutralised in every scope, the person's own global ones too (git-lfs reads the
 *   repository's `lfs.customtransfer.*` and would run what it names): an LFS file is seen as its
 *   pointer, and a forked worktree holds pointers.
 * - No transport: no protocol is allowed, so reading a missing object of a partial clone never
 *   starts a fetch (an ssh command, a remote helper, `ext::`).
 * - Submodules: a submodule's status would run in a git that reads the submodule's own config;
 *   verbs compare only the commit a submodule is at (`--ignore-submodules=dirty`).
 * - The environment is built, never inherited (environment.ts): PATH, HOME, XDG_CONFIG_HOME,
 *   TMPDIR and the person's `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM`/`GIT_CONFIG_NOSYSTEM`, plus
 *   what the caller names (the shadow's `GIT_INDEX_FILE`). No API key, token or inherited `GIT_*`
 *   variable reaches git or what it starts.
 * - Still read as data, deliberately: the person's global and system config (their excludes and
 *   attributes files, `core.autocrlf`, `safe.directory` make our answers their git's answers), a
 *   `.git` file's `gitdir:` and `core.worktree` (they choose which files are read, and reading runs
 *   nothing). A repository owned by another user stays refused as git refuses it
 *   (`dubious-ownership`); the person can mark it safe in their global config, which we honour.
 */

const TIMEOUT_MS = 30_000
const MAX_OUTPUT = 256 * 1024 * 1024

export interface GitOptions {
  /** `--git-dir`: this repository, never one discovered from `root` (a shadow repository). */
  readonly gitDir?: string
  /** `--work-tree`, with `gitDir`. */
  readonly workTree?: string
  /** Added to git's environment (which is otherwise built from nothing: environment.ts). */
  readonly env?: Readonly<Record<string, string>>
  /** Written to git's standard input, which is then closed. */
  readonly stdin?: Buffer | string
  /** Exit codes besides 0 that are answers rather than failures (`diff --quiet` says 1 for "differs"). */
  readonly acceptExitCodes?: readonly number[]
  readonly timeoutMs?: number
  /** Configuration for this command only; it cannot undo a neutralised setting. */
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
 * no pager, no prompts, nothing run but git (the rule above), and every failure classified into a
 * stable code with git's own sentence.
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
export async function runGit(
  root: string,
  args: readonly string[],
  verb: string,
  options: GitOptions = {},
): Promise<Outcome<GitResult>> {
  const where = ['--no-pager', '-C', root]
  if (options.gitDir !== undefined) where.push(`--git-dir=${options.gitDir}`)
  if (options.workTree !== undefined) where.push(`--work-tree=${options.workTree}`)
  const location = { root, ...(options.gitDir !== undefined ? { gitDir: options.gitDir } : {}) }
  const neutral = await neutralisingConfig(location, async (configArgs, fixed) => {
    const read = await execute([...where, 'config', ...configArgs], gitEnvironment(undefined, fixed), 'config', {
      timeoutMs: CONFIG_LIMITS.timeoutMs,
      maxBuffer: CONFIG_LIMITS.listingBytes,
    })
    return read.kind === 'ok' ? ok(read.result.stdout) : read
  })
  if (neutral.kind === 'error') return neutral
  const config: Array<readonly [string, string]> = [
    ['core.quotepath', 'off'],
    ...Object.entries(options.config ?? {}),
    // Last, so that they win over everything before them.
    ...neutral.result,
  ]
  return execute([...where, '--no-optional-locks', ...args], gitEnvironment(options.env, config), verb, options)
}

function execute(
  argv: readonly string[],
  env: Record<string, string>,
  verb: string,
  options: GitOptions & { maxBuffer?: number },
): Promise<Outcome<GitResult>> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      argv,
      { encoding: 'buffer', timeout: options.timeoutMs ?? TIMEOUT_MS, maxBuffer: options.maxBuffer ?? MAX_OUTPUT, env },
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
  // git's first stderr line is what the sentence quotes; a hostile repository can make it long.
  const detail = message.slice(0, 500) || 'unknown error'
  if (code === 'ENOENT') {
    return fail('UNAVAILABLE', 'git is not installed on this machine.', { reason: 'no-git', verb })
  }
  if (error.killed && code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return fail('UNAVAILABLE', `git ${verb} took too long.`, { reason: 'timeout', verb })
  }
  if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
    return fail('UNAVAILABLE', `git ${verb} answered more than Retrace reads.`, { reason: 'output-too-large', verb })
  }
  if (/detected dubious ownership/i.test(stderr)) {
    // git's own protection for a repository another user owns; nothing of it is read.
    return fail(
      'UNAVAILABLE',
      'git refuses to read this repository because another user owns it. If you trust it, add it with "git config --global --add safe.directory <folder>".',
      { reason: 'dubious-ownership', verb },
    )
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
        detail,
        stderr: stderr.slice(0, 2000),
      })
    }
  }
  return fail('UNAVAILABLE', `git ${verb} failed: ${message || 'unknown error'}`, {
    reason: 'git-failed',
    verb,
    detail,
    ...(options.gitDir !== undefined ? { stderr: stderr.slice(0, 2000) } : {}),
  })
}
