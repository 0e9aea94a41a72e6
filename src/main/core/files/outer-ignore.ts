import { excludeFiles } from '../git'
import { readExcludes } from './search-index'

/**
 * The ignore rules git applies beyond `.gitignore` files in a work tree — the global excludes file
 * and `info/exclude`, lowest precedence first — as one pattern text for `walkTree`'s
 * `outerIgnore`. Undefined outside a git work tree (git answers nothing) or when neither exists.
 */
export async function outerIgnoreOf(root: string): Promise<string | undefined> {
  const found = await excludeFiles(root)
  return readExcludes(found.kind === 'ok' ? found.result : [])
}
