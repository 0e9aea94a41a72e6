/**
 * Root-relative project paths, as they cross the protocol: `''` is the project root, segments are
 * joined with `/`. Pure string rules here; containment on disk (symlinks, realpath) is the core's.
 */
export type RelPathCheck =
  | { kind: 'ok'; path: string; segments: readonly string[] }
  | { kind: 'escape'; reason: 'absolute' | 'dot-segment' | 'backslash' }
  | { kind: 'malformed'; reason: 'empty-segment' | 'nul' | 'too-long' | 'not-unicode' | 'name-too-long' }

const MAX_PATH_LENGTH = 4096
/** NAME_MAX on Linux and macOS (bytes of one path segment, UTF-8). */
export const MAX_NAME_BYTES = 255
/** PATH_MAX on Linux, NUL included: the longest absolute path the kernel accepts. */
export const MAX_ABSOLUTE_PATH_BYTES = 4095

const encoder = new TextEncoder()

export function utf8Length(text: string): number {
  return encoder.encode(text).length
}

export function checkRelPath(path: string): RelPathCheck {
  if (path.length > MAX_PATH_LENGTH) return { kind: 'malformed', reason: 'too-long' }
  if (path.includes('\0')) return { kind: 'malformed', reason: 'nul' }
  // A lone surrogate cannot be encoded as UTF-8: the file name on disk would silently differ.
  if (!path.isWellFormed()) return { kind: 'malformed', reason: 'not-unicode' }
  if (path === '') return { kind: 'ok', path, segments: [] }
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return { kind: 'escape', reason: 'absolute' }
  // A backslash is a separator on Windows, so `..\x` would escape there; refuse it everywhere so a
  // path means the same thing on every platform.
  if (path.includes('\\')) return { kind: 'escape', reason: 'backslash' }
  const segments = path.split('/')
  if (segments.some((s) => s === '.' || s === '..')) return { kind: 'escape', reason: 'dot-segment' }
  if (segments.some((s) => s === '')) return { kind: 'malformed', reason: 'empty-segment' }
  if (utf8Length(path) > MAX_PATH_LENGTH) return { kind: 'malformed', reason: 'too-long' }
  if (segments.some((s) => s.length > MAX_NAME_BYTES / 4 && utf8Length(s) > MAX_NAME_BYTES)) {
    return { kind: 'malformed', reason: 'name-too-long' }
  }
  return { kind: 'ok', path, segments }
}

export function joinRelPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`
}

export function baseName(path: string): string {
  const i = path.lastIndexOf('/')
  return i < 0 ? path : path.slice(i + 1)
}

export function parentPath(path: string): string {
  const i = path.lastIndexOf('/')
  return i < 0 ? '' : path.slice(0, i)
}

/**
 * Folders the server never lists, reads or writes: git's internals (a repository's object store
 * is not project content and reading it could leak other branches). Compared the way
 * case-insensitive file systems compare names (`.GIT`, and Windows' `.git.` / `.git ` and 8.3
 * short name `GIT~1` all open the same folder there), on every platform: refusing such a name on a
 * case-sensitive disk costs nothing, missing it on macOS or Windows would expose the repository.
 */
export function isForbiddenSegment(name: string): boolean {
  const folded = name.toLowerCase().replace(/[. ]+$/, '')
  return folded === '.git' || folded === 'git~1'
}

/**
 * Dependency and environment folders (issue 23): files a command changes inside one are held, not
 * credited to the command, whatever the ignore rules say.
 */
const DEPENDENCY_FOLDERS = new Set([
  'node_modules',
  'bower_components',
  '.venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.gradle',
])

/** The outermost dependency or environment folder a path lies in (`web/node_modules`), or null. */
export function dependencyFolderOf(path: string): string | null {
  const segments = path.split('/')
  const at = segments.slice(0, -1).findIndex((segment) => DEPENDENCY_FOLDERS.has(segment))
  return at < 0 ? null : segments.slice(0, at + 1).join('/')
}

/**
 * The name of a copy of `name`: `notes.md` → `notes (copy).md`, then `notes (copy 2).md`; a name
 * without an extension (or a dot file) gets the suffix at the end. The editor's "save mine as a
 * copy" and the explorer's paste both name copies this way.
 */
export function copyName(name: string, attempt: number): string {
  const dot = name.lastIndexOf('.')
  const suffix = attempt <= 1 ? ' (copy)' : ` (copy ${attempt})`
  return dot > 0 ? `${name.slice(0, dot)}${suffix}${name.slice(dot)}` : `${name}${suffix}`
}
