import type { ErrorCode, ProtocolError } from './errors'

/**
 * The `details.reason` values the engine sends, per error code. Views match on these (and the
 * catalogue keys its messages by code and reason), so a reason is declared here before the engine
 * sends it; test/failure-reasons.test.ts holds the engine's literal reasons to this table.
 * A code absent here carries no reason a view may act on.
 */
export const FAILURE_REASONS = {
  BLOCKED: ['conflicts'],
  BUSY: ['restore-applying', 'turn-running', 'workspace-busy'],
  CONFLICT: [
    'already-exists',
    'baseline-mismatch',
    'changed-during-publish',
    'changed-during-read',
    'changed-since-approval',
    'hunk-mismatch',
    'no-free-name',
    'no-longer-exists',
    'not-read',
    'parent-changed',
    'turn-finished',
  ],
  INVALID_REQUEST: [
    'damaged',
    'merged-cell',
    'shape-mismatch',
    'wrong-format',
    'bad-base-url',
    'bad-base64',
    'content-xor-base64',
    'empty-segment',
    'invalid-glob',
    'invalid-regex',
    'is-directory',
    'is-root',
    'missing-key',
    'name-too-long',
    'not-a-folder',
    'not-absolute',
    'not-unicode',
    'nul',
    'old-string-not-unique',
    'parent-not-directory',
    'patch-syntax',
    'path-too-long',
    'preview-required',
    'reserved-name',
    'same-name',
    'source-is-target',
    'symlink-loop',
    'too-long',
    'unexpected-key',
  ],
  NOT_FOUND: [
    'missing-anchor',
    'no-such-annotation',
    'no-such-sheet',
    'no-such-slide',
    'no-text-found',
    'no-branch',
    'no-checkpoint',
    'no-file',
    'no-folder',
    'no-pending-approval',
    'no-provider',
    'no-session',
    'no-source',
    'no-turn',
    'no-version',
    'not-a-turn',
    'not-changed',
    'not-in-review',
    'not-on-branch',
    'old-string-not-found',
  ],
  NO_SPACE: ['no-space'],
  PERMISSION_DENIED: [
    'absolute',
    'backslash',
    'bad-path',
    'changed-during-read',
    'data-directory',
    'data-folder',
    'dot-segment',
    'forbidden-folder',
    'git-internal',
    'hard-link',
    'no-access',
    'not-regular',
    'outside-root',
    'symlink-leaf',
    'symlink-loop',
    'symlink-parent',
  ],
  RECOVERY_REQUIRED: ['interrupted', 'unresolved'],
  STALE_PLAN: ['alignment-changed', 'plan-changed'],
  STALE_SNAPSHOT: ['bad-cursor', 'basis-changed', 'cursor-mismatch', 'evicted', 'query-mismatch'],
  TOO_LARGE: [
    'document-limit',
    'part-bytes',
    'package-bytes',
    'compression-ratio',
    'too-many-parts',
    'time',
    'memory',
    'read-limit',
    'file-limit',
    'office-limit',
  ],
  UNAVAILABLE: [
    'aborted',
    'active-branch',
    'aligned',
    'already-reverted',
    'archived',
    'blob-store-failed',
    'code-not-exact',
    'config-too-large',
    'config-unstable',
    'conversation-moved-on',
    'corrupt',
    'dubious-ownership',
    'expired',
    'git-failed',
    'git-too-old',
    'index-locked',
    'io-error',
    'misaligned',
    'missing',
    'missing-blob',
    'missing-object',
    'no-base',
    'no-commits',
    'no-engine',
    'no-git',
    'no-model',
    'not-archived',
    'not-exact',
    'not-git',
    'nothing-to-redo',
    'nothing-to-restore',
    'nothing-to-revert',
    'nothing-to-undo',
    'output-too-large',
    'reapply-after-revert',
    'redo-after-undo',
    'redo-last-only',
    'snapshot-expired',
    'source-branch-gone',
    'stale-writer',
    'timeout',
    'too-many-open-files',
    'turn-running',
    'undo-latest-only',
    'unpinned',
  ],
  UNSUPPORTED: [
    'convert-first',
    'encrypted',
    'unsupported-content',
    'binary',
    'command-line-provider',
    'directory-not-empty',
    'is-directory',
    'no-picker',
    'no-secret-store',
    'not-regular',
    'wrong-family',
  ],
} as const satisfies Partial<Record<ErrorCode, readonly string[]>>

type CodeWithReasons = keyof typeof FAILURE_REASONS

/** The reasons declared for one error code (`never` for a code that has none). */
export type FailureReasonOf<C extends ErrorCode> = C extends CodeWithReasons
  ? (typeof FAILURE_REASONS)[C][number]
  : never

/** Any declared reason, of any code. */
export type FailureReason = FailureReasonOf<CodeWithReasons>

/**
 * The failure's reason when the protocol declares it for that code; `undefined` for no reason, a
 * reason of another code, or one this build does not know (an engine newer than the renderer).
 */
export function failureReason<C extends ErrorCode>(error: ProtocolError & { code: C }): FailureReasonOf<C> | undefined {
  const reason = error.details?.reason
  if (typeof reason !== 'string' || !Object.hasOwn(FAILURE_REASONS, error.code)) return undefined
  const declared: readonly string[] = FAILURE_REASONS[error.code as CodeWithReasons]
  return declared.includes(reason) ? (reason as FailureReasonOf<C>) : undefined
}
