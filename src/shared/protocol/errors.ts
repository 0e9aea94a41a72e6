import { z } from 'zod'

/** Stable, machine-readable error codes (spec 02). Never rename one: scripts depend on them. */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'STALE_SNAPSHOT',
  'STALE_PLAN',
  'BLOCKED',
  'UNAVAILABLE',
  'IN_PROGRESS',
  'IDEMPOTENCY_KEY_CONFLICT',
  'RECOVERY_REQUIRED',
  'PERMISSION_DENIED',
  'TOO_LARGE',
  'UNSUPPORTED',
  'BUSY',
  'INTERNAL',
  // The disk holding the project or Retrace's data is full (ENOSPC, a quota, SQLITE_FULL): nothing
  // was written; the same request succeeds once space is freed.
  'NO_SPACE',
] as const

export const ErrorCode = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof ErrorCode>

export const ProtocolError = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
})
export type ProtocolError = z.infer<typeof ProtocolError>

/** What a handler returns: a result, or a failure a user can hit, as a value. */
export type Outcome<R> = { kind: 'ok'; result: R } | { kind: 'error'; error: ProtocolError }

export function ok<R>(result: R): Outcome<R> {
  return { kind: 'ok', result }
}

export function fail(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): { kind: 'error'; error: ProtocolError } {
  return { kind: 'error', error: details ? { code, message, details } : { code, message } }
}
