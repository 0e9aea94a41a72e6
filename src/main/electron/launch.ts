import { existsSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { isInside } from '../core/platform'

/**
 * The paths a launch names: `retrace <folder>`, `retrace <file>` (a file opened with Retrace from
 * the file manager, or a second launch), after the executable (and, when Electron runs an
 * unpackaged app, the app path). Switches — Chromium's, or `-psn_…` from old macOS Finder — are
 * not paths.
 */
export function launchPaths(argv: readonly string[], options: { defaultApp: boolean }): string[] {
  const args = argv.slice(options.defaultApp ? 2 : 1)
  const paths: string[] = []
  for (const arg of args) {
    if (arg === '' || arg.startsWith('-')) continue
    paths.push(arg)
  }
  return paths
}

export type LaunchTarget =
  /** Open `folder` as a project; `open` is a root-relative file to show in a tab. */
  { kind: 'open'; folder: string; open: string | null } | { kind: 'missing'; path: string }

/**
 * Where a launched path leads. A folder opens as itself. A file opens in the project that holds it:
 * the innermost project Retrace already knows, else the nearest folder above it with a `.git`, else
 * its own folder — and the file opens in a tab (the same route as `open=` in browser mode).
 */
export async function resolveLaunchTarget(
  path: string,
  cwd: string,
  knownRoots: readonly string[],
): Promise<LaunchTarget> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path)
  let real: string
  try {
    real = await realpath(absolute)
  } catch {
    return { kind: 'missing', path: absolute }
  }
  const info = await stat(real)
  if (info.isDirectory()) return { kind: 'open', folder: real, open: null }
  const folder = innermostRoot(real, knownRoots) ?? gitRootAbove(real) ?? dirname(real)
  return { kind: 'open', folder, open: relative(folder, real).split(sep).join('/') }
}

function innermostRoot(file: string, roots: readonly string[]): string | undefined {
  return roots.filter((root) => isInside(root, file) && root !== file).sort((a, b) => b.length - a.length)[0]
}

function gitRootAbove(file: string): string | undefined {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder
    if (dirname(folder) === folder) return undefined
  }
}

/** The window's address: the app entry, with a file to open as `open=` (browser mode's route). */
export function windowUrl(entry: string, open: string | null): string {
  if (open === null) return entry
  const url = new URL(entry)
  url.searchParams.set('open', open)
  return url.toString()
}
