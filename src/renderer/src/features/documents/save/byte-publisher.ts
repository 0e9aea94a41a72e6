import type { RequestClient } from '../../../transport'
import { toBase64 } from '../../../ui/binary-text'

export type PublishOutcome =
  | { readonly kind: 'saved'; readonly revision: string }
  /** The file is no longer at the baseline revision: someone else changed it. */
  | { readonly kind: 'conflict'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }

/**
 * Where a binary editor's bytes are published. One small seam: today it is `files.write` (the
 * trusted write path: baseline revision, idempotency key, a human journal transaction); the drafts
 * and autosave of spec 08 put a durable draft in front of it without changing the editors.
 */
export interface BytePublisher {
  /**
   * Publishes `bytes` as the file's whole new content if the file is still at `baseline`.
   * `attempt` is the idempotency key: the same bytes sent again (a retry) reuse it.
   */
  saveBytes(bytes: Uint8Array, baseline: string, attempt: string): Promise<PublishOutcome>
}

export function filesWritePublisher(client: RequestClient, projectId: string, path: string): BytePublisher {
  return {
    async saveBytes(bytes, baseline, attempt) {
      const outcome = await client.request(
        'files.write',
        { path, content_base64: toBase64(bytes), expected_revision: baseline },
        // A large file takes a while to travel and to be made durable: a second per MiB on top.
        { owner: { project_id: projectId }, idempotencyKey: attempt, timeoutMs: 30_000 + bytes.length / 1024 },
      )
      switch (outcome.kind) {
        case 'ok':
          return outcome.result.revision !== null
            ? { kind: 'saved', revision: outcome.result.revision }
            : { kind: 'failed', message: 'the file is gone' }
        case 'error':
          return outcome.error.code === 'CONFLICT'
            ? { kind: 'conflict', message: outcome.error.message }
            : { kind: 'failed', message: outcome.error.message }
        case 'timeout':
          return { kind: 'failed', message: 'the save took too long' }
        default:
          return { kind: 'failed', message: 'not connected to Retrace' }
      }
    },
  }
}
