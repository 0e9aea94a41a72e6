import { excludeFiles } from '../git'
import { readExcludes } from './search-index'

/** Where each root's exclude files are: asked of git once per root and process (two `git` runs). */
const excludePaths = new Map<string, Promise<string[]>>()

/**
 * The ignore rules git applies beyond `.gitignore` files in a work tree — the global excludes file
 * and `info/exclude`, lowest precedence first — as one pattern text for `walkTree`'s
 * `outerIgnore`. Undefined outside a git work tree (git answers nothing) or when neither exists.
 * The agent's tools call this on every list/glob/grep, so the files' locations are remembered
 * (a changed `core.excludesFile` setting is seen after a restart, as search sees it); their
 * contents are read each time, so an edited exclude file applies at once.
 */
export async function outerIgnoreOf(root: string): Promise<string | undefined> {
  let paths = excludePaths.get(root)
  if (!paths) {
    paths = excludeFiles(root).then((found) => (found.kind === 'ok' ? found.result : []))
    excludePaths.set(root, paths)
  }
  return readExcludes(await paths)
}
