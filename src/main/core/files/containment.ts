import { realpath, stat } from 'node:fs/promises'
import { relative, sep } from 'node:path'
import type { Stats } from 'node:fs'
import { checkRelPath, isForbiddenSegment } from '../../../shared/paths'
import { isInside } from '../platform/fs-paths'
import { fail, type Outcome } from '../../../shared/protocol'

export interface ProjectRoots {
  /** Real path of the project root. */
  readonly root: string
  /** Real path of Retrace's data directory, hidden when it lies inside a project. */
  readonly dataDir: string
}

export interface ResolvedPath {
  /** Real absolute path on disk (every symlink resolved). */
  readonly real: string
  readonly stats: Stats
}

/** Git internals and Retrace's own data directory are never listed or read. */
export const isForbiddenName = isForbiddenSegment

/**
 * Resolves a root-relative path for reading. Symlinks are followed, but the resolved target must
 * stay inside the root and outside the forbidden folders; otherwise `PERMISSION_DENIED`.
 */
export async function resolveForRead(roots: ProjectRoots, path: string): Promise<Outcome<ResolvedPath>> {
  const check = checkRelPath(path)
  if (check.kind === 'escape') {
    return fail('PERMISSION_DENIED', `"${path}" points outside the project folder.`, { path, reason: check.reason })
  }
  if (check.kind === 'malformed') {
    return fail('INVALID_REQUEST', `"${path}" is not a normalised project path.`, { path, reason: check.reason })
  }
  if (check.segments.some(isForbiddenName)) {
    return fail('PERMISSION_DENIED', `"${path}" is inside a folder Retrace does not open.`, { path })
  }
  const joined = check.segments.length === 0 ? roots.root : `${roots.root}${sep}${check.segments.join(sep)}`
  let real: string
  try {
    real = await realpath(joined)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail('NOT_FOUND', `"${path}" does not exist.`, { path })
    if (code === 'EACCES' || code === 'EPERM') return fail('PERMISSION_DENIED', `"${path}" cannot be read.`, { path })
    if (code === 'ELOOP') return fail('PERMISSION_DENIED', `"${path}" is a symlink loop.`, { path })
    throw error
  }
  if (!isInside(roots.root, real)) {
    return fail('PERMISSION_DENIED', `"${path}" is a link that points outside the project folder.`, { path })
  }
  const realSegments = relative(roots.root, real).split(sep)
  if (realSegments.some(isForbiddenName) || isInside(roots.dataDir, real)) {
    return fail('PERMISSION_DENIED', `"${path}" is inside a folder Retrace does not open.`, { path })
  }
  try {
    return { kind: 'ok', result: { real, stats: await stat(real) } }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return fail('NOT_FOUND', `"${path}" does not exist.`, { path })
    throw error
  }
}
