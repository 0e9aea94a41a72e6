import { GIT_STATUS_LIMIT, ok, type GitFileState, type Outcome, type ResultOf } from '../../../shared/protocol'
import { status, type StatusEntry } from '../git'

/**
 * The explorer's and tabs' git colours (`git.status`), from the same `git status` runner Review
 * uses. The renderer re-asks after `files.changed`; a folder that is not a repository (or a
 * machine without git) simply has no decorations.
 */
export async function gitDecorations(root: string, isGit: boolean): Promise<Outcome<ResultOf<'git.status'>>> {
  if (!isGit) return ok({ kind: 'unavailable' as const, reason: 'not-git' })
  const listed = await status(root)
  if (listed.kind === 'error') {
    return ok({ kind: 'unavailable' as const, reason: String(listed.error.details?.reason ?? 'git-failed') })
  }
  const entries = listed.result.entries.slice(0, GIT_STATUS_LIMIT).map((entry) => ({
    path: entry.path,
    state: stateOf(entry),
  }))
  return ok({ kind: 'ok' as const, entries, truncated: listed.result.entries.length > GIT_STATUS_LIMIT })
}

export function stateOf(entry: StatusEntry): GitFileState {
  if (entry.staged === 'U' || entry.unstaged === 'U') return 'conflicted'
  if (entry.unstaged === '?') return 'untracked'
  if (entry.old_path !== null) return 'renamed'
  if (entry.staged === 'D' || entry.unstaged === 'D') return 'deleted'
  if (entry.staged === 'A') return 'added'
  return 'modified'
}
