import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/**
 * `git worktree add --detach <dir> HEAD`: a new working tree of the repository at its HEAD
 * commit, on no branch (the user's branches are never created or moved). `<dir>` must not exist.
 * Like every run, no hook (`post-checkout`) and no smudge filter runs (runner.ts): the new tree
 * holds the committed bytes — for git-lfs files, their pointers.
 */
export async function addWorktree(repo: string, dir: string): Promise<Outcome<void>> {
  const out = await git(repo, ['worktree', 'add', '--detach', '--quiet', dir, 'HEAD'], 'worktree add', {
    timeoutMs: 120_000,
  })
  return out.kind === 'error' ? out : { kind: 'ok', result: undefined }
}
