import { join } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { readSmallRegularFile } from '../platform'

/** Larger ignore files are not real ones (files/walk.ts skips them too). */
const MAX_IGNORE_BYTES = 1024 * 1024

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
    // Never a FIFO or a device, which would hang the engine (issue 23 review). A `.gitignore` that
    // is a link is not followed, as git (2.32+) and the project walk do not; `info/exclude` is
    // git's own file and is followed as git follows it.
    const read = (path: string, followLinks: boolean) => {
      const text = readSmallRegularFile(path, { maxBytes: MAX_IGNORE_BYTES, followLinks })
      if (text !== undefined) sources.push(text)
    }
    read(join(root, folder, '.gitignore'), false)
    if (folder === '') read(join(root, '.git', 'info', 'exclude'), true)
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
