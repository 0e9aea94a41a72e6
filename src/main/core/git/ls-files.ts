import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/*
 * What git shows in the work tree at `root` (its top level), in two listings that run side by side:
 * the tracked files (the index, fast) and the untracked ones no ignore source excludes (`.gitignore`
 * at every level, `.git/info/exclude`, the global excludes file; git walks the folders for these).
 * NUL-separated as git printed them. The repository is named explicitly (`<root>/.git`, a directory
 * or a gitfile). Nothing the repository configures runs (runner.ts).
 */

function lsFiles(root: string, args: readonly string[]): Promise<Outcome<Buffer>> {
  return git(root, ['ls-files', ...args, '-z'], 'ls-files', {
    gitDir: `${root}/.git`,
    workTree: root,
  })
}

/** `git ls-files --cached -z`: every tracked path (each stage of a conflicted one). */
export function listTrackedFiles(root: string): Promise<Outcome<Buffer>> {
  return lsFiles(root, ['--cached'])
}

/** `git ls-files --others --exclude-standard -z`: untracked paths that nothing ignores. */
export function listUntrackedFiles(root: string): Promise<Outcome<Buffer>> {
  return lsFiles(root, ['--others', '--exclude-standard'])
}
