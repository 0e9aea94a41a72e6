/** Stable codes for an install that did not complete; the previous bundle stays selected. */
export type InstallErrorCode =
  | 'unpinned'
  | 'download-failed'
  | 'too-large'
  | 'truncated'
  | 'digest-mismatch'
  | 'unsafe-entry'
  | 'limits-exceeded'
  | 'manifest-invalid'
  | 'manifest-mismatch'
  | 'publish-failed'
  | 'cancelled'

export class InstallError extends Error {
  constructor(
    readonly code: InstallErrorCode,
    message: string,
  ) {
    super(message)
  }
}
