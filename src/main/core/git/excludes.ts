import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Outcome } from '../../../shared/protocol'
import { runGit } from './runner'

/**
 * The ignore files git reads besides `.gitignore`, lowest precedence first: the global excludes
 * file (`core.excludesFile`, by default `$XDG_CONFIG_HOME/git/ignore`) and the repository's
 * `info/exclude` (in the common directory, so a linked worktree gets its main repository's).
 * Absolute paths; either may not exist.
 */
export async function excludeFiles(root: string): Promise<Outcome<string[]>> {
  const options = { gitDir: `${root}/.git`, workTree: root }
  const [configured, info] = await Promise.all([
    runGit(root, ['config', '--path', '--get', 'core.excludesFile'], 'config', { ...options, acceptExitCodes: [1] }),
    runGit(root, ['rev-parse', '--path-format=absolute', '--git-path', 'info/exclude'], 'rev-parse', options),
  ])
  if (configured.kind === 'error') return configured
  if (info.kind === 'error') return info
  const named = configured.result.exitCode === 0 ? configured.result.stdout.toString('utf8').trim() : ''
  const xdg = process.env.XDG_CONFIG_HOME
  const global = named !== '' ? resolve(root, named) : join(xdg ? xdg : join(homedir(), '.config'), 'git', 'ignore')
  return { kind: 'ok', result: [global, info.result.stdout.toString('utf8').trim()] }
}
