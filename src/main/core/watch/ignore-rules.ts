import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ignore, { type Ignore } from 'ignore'

/**
 * git's ignore semantics for a watcher: `.gitignore` in every folder (read once, forgotten when it
 * changes), `.git/info/exclude`, plus what Retrace never shows (`.git`, its own data directory,
 * the journal's temp files). Paths are root-relative with `/`.
 */
export function createIgnoreRules(root: string, options: { alwaysIgnored: (relative: string) => boolean }) {
  const perFolder = new Map<string, Ignore | null>()

  function rulesOf(folder: string): Ignore | null {
    const cached = perFolder.get(folder)
    if (cached !== undefined) return cached
    const sources: string[] = []
    const read = (path: string) => {
      try {
        sources.push(readFileSync(path, 'utf8'))
      } catch {
        // No ignore file here: nothing to add.
      }
    }
    read(join(root, folder, '.gitignore'))
    if (folder === '') read(join(root, '.git', 'info', 'exclude'))
    const rules = sources.length > 0 ? ignore().add(sources.join('\n')) : null
    perFolder.set(folder, rules)
    return rules
  }

  return {
    /** Whether `relative` (a file, or a folder when `isDirectory`) is ignored. */
    ignores(relative: string, isDirectory: boolean | undefined): boolean {
      if (relative === '') return false
      if (options.alwaysIgnored(relative)) return true
      const segments = relative.split('/')
      // A path is ignored when any folder's rules (from the root down) ignore it relative to that folder.
      for (let depth = 0; depth < segments.length; depth++) {
        const folder = segments.slice(0, depth).join('/')
        const rules = rulesOf(folder)
        if (!rules) continue
        const rest = segments.slice(depth).join('/')
        if (rules.ignores(rest)) return true
        if (isDirectory !== false && rules.ignores(`${rest}/`)) return true
      }
      return false
    },
    /** A `.gitignore` changed: its folder's rules are read again on next use. */
    forget(relativeFolder: string): void {
      perFolder.delete(relativeFolder)
    },
  }
}
