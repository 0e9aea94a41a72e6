import { closeSync } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { relative, sep } from 'node:path'
import { checkRelPath, isForbiddenSegment } from '../../../shared/paths'
import { fail, type FailureReasonOf, type Outcome } from '../../../shared/protocol'
import { isInside } from '../platform'
import {
  openChain,
  openFileForRead,
  unreachablePath,
  type FileIdentity,
  type OpenDir,
  type OpenedFile,
} from '../project-fs'

export interface ProjectRoots {
  /** Real path of the project root. */
  readonly root: string
  /** Real path of Retrace's data directory, hidden when it lies inside a project. */
  readonly dataDir: string
}

/** Git internals and Retrace's own data directory are never listed or read. */
export const isForbiddenName = isForbiddenSegment

/** A file or folder opened for reading; the caller reads through it and then closes it. */
export type OpenedForRead =
  | { kind: 'file'; fd: number; identity: FileIdentity; size: number; close(): void }
  | { kind: 'directory'; dir: OpenDir; close(): void }

function notFound(path: string) {
  return fail('NOT_FOUND', `"${path}" does not exist.`, { path, reason: 'no-file' })
}

function outside(path: string) {
  return fail('PERMISSION_DENIED', `"${path}" is a link that points outside the project folder.`, {
    path,
    reason: 'outside-root',
  })
}

/**
 * Opens a root-relative path for reading. Symlinks inside the project are followed (to their real
 * location, which must stay inside the root and outside the forbidden folders); the real location
 * is then opened component by component from the root without following links, so a folder
 * swapped for a link after the check cannot redirect the read. Never blocks on a FIFO.
 */
export async function openForRead(roots: ProjectRoots, path: string): Promise<Outcome<OpenedForRead>> {
  const check = checkRelPath(path)
  if (check.kind === 'escape') {
    return fail('PERMISSION_DENIED', `"${path}" points outside the project folder.`, {
      path,
      reason: check.reason satisfies FailureReasonOf<'PERMISSION_DENIED'>,
    })
  }
  if (check.kind === 'malformed') {
    return fail('INVALID_REQUEST', `"${path}" is not a normalised project path.`, {
      path,
      reason: check.reason satisfies FailureReasonOf<'INVALID_REQUEST'>,
    })
  }
  if (check.segments.some(isForbiddenName)) {
    return fail('PERMISSION_DENIED', `"${path}" is inside a folder Retrace does not open.`, {
      path,
      reason: 'forbidden-folder',
    })
  }
  // One retry: a link that appeared between resolving and opening is resolved again (and then
  // refused if it leads out); a second change means someone is racing us, and we refuse.
  for (let attempt = 0; attempt < 2; attempt++) {
    const joined = check.segments.length === 0 ? roots.root : `${roots.root}${sep}${check.segments.join(sep)}`
    let real: string
    try {
      real = await realpath(joined)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return notFound(path)
      if (code === 'EACCES' || code === 'EPERM')
        return fail('PERMISSION_DENIED', `"${path}" cannot be read.`, { path, reason: 'no-access' })
      if (code === 'ELOOP')
        return fail('PERMISSION_DENIED', `"${path}" is a symlink loop.`, { path, reason: 'symlink-loop' })
      if (code === 'ENAMETOOLONG')
        return fail('INVALID_REQUEST', `"${path}" is too long for this file system.`, { path, reason: 'too-long' })
      throw error
    }
    if (!isInside(roots.root, real)) return outside(path)
    const realSegments = real === roots.root ? [] : relative(roots.root, real).split(sep)
    if (realSegments.some(isForbiddenName) || isInside(roots.dataDir, real)) {
      return fail('PERMISSION_DENIED', `"${path}" is inside a folder Retrace does not open.`, {
        path,
        reason: 'forbidden-folder',
      })
    }
    const opened = openReal(roots.root, realSegments)
    if (opened.kind === 'opened') return { kind: 'ok', result: opened.target }
    if (opened.kind === 'absent') return notFound(path)
    if (opened.kind === 'special') {
      return fail('UNSUPPORTED', `"${path}" is not a regular file (a device, socket or pipe).`, {
        path,
        reason: 'not-regular',
      })
    }
    if (opened.kind === 'no-access')
      return fail('PERMISSION_DENIED', `"${path}" cannot be read.`, { path, reason: 'no-access' })
    if (opened.kind === 'io-error') {
      // Out of descriptors (EMFILE/ENFILE) or a failing disk is not a race: say what it is.
      return unreachablePath(path, opened.code, 'read')
    }
  }
  return fail('PERMISSION_DENIED', `"${path}" kept changing while Retrace read it; try again.`, {
    path,
    reason: 'changed-during-read',
  })
}

type RealOpen =
  | { kind: 'opened'; target: OpenedForRead }
  | { kind: 'absent' | 'special' | 'no-access' | 'changed' }
  | { kind: 'io-error'; code: string }

/** The kernel's own failures (no descriptors left, I/O errors) are reported, not taken for a race. */
function openReal(root: string, segments: readonly string[]): RealOpen {
  try {
    return openRealOrThrow(root, segments)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (typeof code === 'string') return { kind: 'io-error', code }
    throw error
  }
}

function openRealOrThrow(root: string, segments: readonly string[]): RealOpen {
  if (segments.length === 0) {
    const walked = openChain(root, [])
    if (walked.kind === 'failed')
      return walked.reason === 'io-error' ? { kind: 'io-error', code: walked.code } : { kind: 'changed' }
    const chain = walked.chain
    return { kind: 'opened', target: { kind: 'directory', dir: chain.deepest, close: () => chain.close() } }
  }
  const walked = openChain(root, segments.slice(0, -1))
  if (walked.kind === 'failed') {
    if (walked.reason === 'io-error') return { kind: 'io-error', code: walked.code }
    return { kind: walked.reason === 'no-access' ? 'no-access' : 'changed' }
  }
  const chain = walked.chain
  if (chain.missing.length > 0) {
    chain.close()
    return { kind: 'absent' }
  }
  const name = segments[segments.length - 1] as string
  let file: OpenedFile
  try {
    file = openFileForRead(chain.deepest, name)
  } catch (error) {
    chain.close()
    throw error
  }
  switch (file.kind) {
    case 'regular':
      chain.close()
      return {
        kind: 'opened',
        target: {
          kind: 'file',
          fd: file.fd,
          identity: file.identity,
          size: Number(file.identity.size),
          close: () => closeSync(file.fd),
        },
      }
    case 'directory': {
      const dirChain = openChain(root, segments)
      chain.close()
      if (dirChain.kind === 'failed' || dirChain.chain.missing.length > 0) {
        if (dirChain.kind === 'ok') dirChain.chain.close()
        else if (dirChain.reason === 'io-error') return { kind: 'io-error', code: dirChain.code }
        return { kind: 'changed' }
      }
      const held = dirChain.chain
      return { kind: 'opened', target: { kind: 'directory', dir: held.deepest, close: () => held.close() } }
    }
    case 'absent':
      chain.close()
      return { kind: 'absent' }
    case 'special':
      chain.close()
      return { kind: 'special' }
    case 'no-access':
      chain.close()
      return { kind: 'no-access' }
    case 'symlink':
      chain.close()
      return { kind: 'changed' }
  }
}
