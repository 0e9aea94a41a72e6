import type { FailureReasonOf, ProtocolError } from '../../../shared/protocol'

/** Which disk ran out: the project's (its files) or Retrace's data directory (database, content store). */
export type StorageSide = 'project' | 'data'

/** SQLite primary result codes (the low byte of an extended code) that mean the disk said no. */
const SQLITE_FULL = 13
const SQLITE_IOERR = 10

const NO_SPACE_ERRNOS = new Set(['ENOSPC', 'EDQUOT'])
const DESCRIPTOR_ERRNOS = new Set(['EMFILE', 'ENFILE'])

/** A resource the operating system refused: the one thing a caller can act on. */
export type ResourceShortage = 'no-space' | 'too-many-open-files'

/**
 * What kind of exhaustion `error` reports, whether it came from a Node file call (`code`) or from
 * node:sqlite (`errcode`; SQLite reports ENOSPC on its own files as SQLITE_FULL, or as an I/O error
 * whose system errno is ENOSPC when it happens during a sync or truncate).
 */
export function resourceShortageOf(error: unknown): ResourceShortage | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, errcode, errstr, message } = error as {
    code?: unknown
    errcode?: unknown
    errstr?: unknown
    message?: unknown
  }
  if (typeof code === 'string') {
    if (NO_SPACE_ERRNOS.has(code)) return 'no-space'
    if (DESCRIPTOR_ERRNOS.has(code)) return 'too-many-open-files'
  }
  if (typeof errcode === 'number') {
    const primary = errcode & 0xff
    if (primary === SQLITE_FULL) return 'no-space'
    const text = `${typeof errstr === 'string' ? errstr : ''} ${typeof message === 'string' ? message : ''}`
    if (primary === SQLITE_IOERR && /no space|disk is full/i.test(text)) return 'no-space'
    if (/too many open files/i.test(text)) return 'too-many-open-files'
  }
  return undefined
}

/**
 * The precise refusal for an exhaustion met while writing, or undefined for anything else (a bug or
 * an I/O error that is not the user's to fix: those stay exceptions). Every caller guarantees what
 * the message promises — nothing was written — before it returns this.
 */
export function storageFailure(
  error: unknown,
  where: { side?: StorageSide; path?: string | undefined },
): ProtocolError | undefined {
  const shortage = resourceShortageOf(error)
  if (shortage === undefined) return undefined
  const errno = errnoOf(error)
  const path = where.path
  const details: Record<string, unknown> = {
    reason: shortage satisfies FailureReasonOf<'NO_SPACE' | 'UNAVAILABLE'>,
    ...(where.side !== undefined ? { where: where.side } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(errno !== undefined ? { errno } : {}),
  }
  if (shortage === 'too-many-open-files') {
    return {
      code: 'UNAVAILABLE',
      message:
        'The system has run out of open files (too many open files), so Retrace could not finish this; nothing was written. Close other programs or raise the open-file limit, then try again.',
      details,
    }
  }
  const message =
    where.side === 'project'
      ? `The disk holding ${path !== undefined ? `"${path}"` : 'the project'} is full; nothing was written and the file is unchanged. Free some space, then try again.`
      : where.side === 'data'
        ? "The disk holding Retrace's data is full, so it could not record this change; nothing was written. Free some space, then try again."
        : 'A disk Retrace writes to is full, so this could not be finished. Free some space, then try again.'
  return { code: 'NO_SPACE', message, details }
}

function errnoOf(error: unknown): string | undefined {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown }
  if (typeof errcode === 'number') return (errcode & 0xff) === SQLITE_FULL ? 'SQLITE_FULL' : `SQLITE_${errcode}`
  return typeof code === 'string' ? code : undefined
}
