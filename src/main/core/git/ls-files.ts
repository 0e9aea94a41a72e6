import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/**
 * Every path git would show in the work tree at `root` (its top level): tracked files plus untracked
 * ones that no ignore source excludes (`.gitignore` at every level, `.git/info/exclude`, the global
 * excludes file), NUL-separated as git printed them. The repository is named explicitly
 * (`<root>/.git`, a directory or a gitfile), so a `GIT_DIR` in our environment cannot redirect it.
 * A search only reads: the repository's `core.fsmonitor` command (reading the index would run it)
 * is turned off for this call.
 */
export async function listWorkTreeFiles(root: string): Promise<Outcome<Buffer>> {
  return git(root, ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], 'ls-files', {
    gitDir: `${root}/.git`,
    workTree: root,
    config: { 'core.fsmonitor': 'false' },
  })
}
