import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync } from 'node:fs'
import { sep } from 'node:path'

/**
 * How a path below an open directory reaches the kernel. On Linux `/proc/self/fd/<fd>/<name>` is
 * resolved through the open directory itself (the magic link is the inode we opened, not a path),
 * so a parent swapped for a symlink after we opened it cannot redirect the call. Elsewhere there is
 * no such primitive in Node; the fallback joins the absolute path and callers re-check every
 * parent's identity before and after each step ({@link verifyChain}).
 */
export type PinningMode = 'proc-fd' | 'path-recheck'

function detectMode(): PinningMode {
  // Tests force the fallback to exercise it on Linux.
  if (process.env.RETRACE_FS_PINNING === 'path-recheck') return 'path-recheck'
  return process.platform === 'linux' && existsSync('/proc/self/fd') ? 'proc-fd' : 'path-recheck'
}

export const PINNING_MODE: PinningMode = detectMode()

export interface DirIdentity {
  readonly dev: bigint
  readonly ino: bigint
}

export function sameIdentity(a: DirIdentity, b: DirIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino
}

/** A directory held open; every name below it is addressed through the handle. */
export interface OpenDir {
  readonly fd: number
  /** Where the directory was when opened: for messages and the non-Linux fallback only. */
  readonly abs: string
  readonly identity: DirIdentity
  /** A path naming `name` inside this very directory. */
  at(name: string): string
  /** A path naming the directory itself (for readdir/opendir). */
  readonly self: string
}

// O_NONBLOCK: opening a FIFO or device swapped in for a folder must never wait for a peer.
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK

function handleFor(fd: number, abs: string): OpenDir {
  const info = fstatSync(fd, { bigint: true })
  const identity = { dev: info.dev, ino: info.ino }
  if (PINNING_MODE === 'proc-fd') {
    const self = `/proc/self/fd/${fd}`
    return { fd, abs, identity, self, at: (name) => `${self}/${name}` }
  }
  return { fd, abs, identity, self: abs, at: (name) => (abs.endsWith(sep) ? `${abs}${name}` : `${abs}${sep}${name}`) }
}

export type OpenFailure = 'absent' | 'symlink' | 'not-directory' | 'no-access' | 'name-too-long' | 'io-error'

export type OpenDirOutcome = { kind: 'ok'; dir: OpenDir } | { kind: 'failed'; reason: OpenFailure; code: string }

/** Opens the project root itself (a real path recorded when the project was opened). */
export function openRoot(root: string): OpenDirOutcome {
  try {
    return { kind: 'ok', dir: handleFor(openSync(root, DIR_FLAGS), root) }
  } catch (error) {
    return { kind: 'failed', reason: classify(error, root), code: codeOf(error) }
  }
}

/** Opens `name` below `parent` as a directory, refusing a symlink or anything else. */
export function openChild(parent: OpenDir, name: string): OpenDirOutcome {
  const at = parent.at(name)
  try {
    return { kind: 'ok', dir: handleFor(openSync(at, DIR_FLAGS), `${parent.abs}${sep}${name}`) }
  } catch (error) {
    return { kind: 'failed', reason: classify(error, at), code: codeOf(error) }
  }
}

export function closeDir(dir: OpenDir): void {
  try {
    closeSync(dir.fd)
  } catch {
    // already closed: nothing held
  }
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'UNKNOWN'
}

function classify(error: unknown, at: string): OpenFailure {
  switch (codeOf(error)) {
    case 'ENOENT':
      return 'absent'
    case 'EACCES':
    case 'EPERM':
      return 'no-access'
    case 'ENAMETOOLONG':
      return 'name-too-long'
    case 'ELOOP':
      return 'symlink'
    case 'ENOTDIR':
      // O_DIRECTORY|O_NOFOLLOW on a symlink answers ENOTDIR on Linux: tell the two apart.
      try {
        return lstatSync(at).isSymbolicLink() ? 'symlink' : 'not-directory'
      } catch {
        return 'not-directory'
      }
    default:
      return 'io-error'
  }
}

/** Directories from the root down to the deepest existing one on a path, all held open. */
export interface DirChain {
  /** `dirs[0]` is the root; `dirs[i]` is `segments[i - 1]`. */
  readonly dirs: readonly OpenDir[]
  /** Segments below the deepest existing directory that do not exist. */
  readonly missing: readonly string[]
  readonly deepest: OpenDir
  close(): void
}

export type ChainOutcome =
  { kind: 'ok'; chain: DirChain } | { kind: 'failed'; reason: Exclude<OpenFailure, 'absent'>; at: number; code: string }

/**
 * Walks `segments` from the root, each component opened `O_DIRECTORY | O_NOFOLLOW` relative to
 * its already-open parent. Stops at the first missing component (the rest are `missing`).
 */
export function openChain(root: string, segments: readonly string[]): ChainOutcome {
  const opened = openRoot(root)
  if (opened.kind === 'failed') {
    return {
      kind: 'failed',
      reason: opened.reason === 'absent' ? 'io-error' : opened.reason,
      at: -1,
      code: opened.code,
    }
  }
  const dirs: OpenDir[] = [opened.dir]
  const close = () => dirs.forEach(closeDir)
  for (const [index, segment] of segments.entries()) {
    const child = openChild(dirs[dirs.length - 1] as OpenDir, segment)
    if (child.kind === 'failed') {
      if (child.reason === 'absent') {
        return { kind: 'ok', chain: chainOf(dirs, segments.slice(index), close) }
      }
      close()
      return { kind: 'failed', reason: child.reason, at: index, code: child.code }
    }
    dirs.push(child.dir)
  }
  return { kind: 'ok', chain: chainOf(dirs, [], close) }
}

function chainOf(dirs: OpenDir[], missing: readonly string[], close: () => void): DirChain {
  return { dirs, missing, deepest: dirs[dirs.length - 1] as OpenDir, close }
}

/**
 * True when walking `segments` from the root right now reaches exactly the directories in
 * `identities` (the chain as it was opened): nothing on the way was moved, replaced or swapped.
 */
export function verifyChain(root: string, segments: readonly string[], identities: readonly DirIdentity[]): boolean {
  const walked = openChain(root, segments.slice(0, identities.length - 1))
  if (walked.kind === 'failed') return false
  try {
    const dirs = walked.chain.dirs
    if (dirs.length !== identities.length) return false
    return dirs.every((dir, i) => sameIdentity(dir.identity, identities[i] as DirIdentity))
  } finally {
    walked.chain.close()
  }
}
