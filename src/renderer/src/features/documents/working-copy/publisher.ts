import type { RequestClient } from '../../../transport'
import { toBase64 } from '../../../ui/binary-text'
import { readCache, type DraftContent, type PublishFn, type PublishOutcome } from '../../drafts'

/** What one publish of a whole file came to, for a working copy to act on. */
export type PublishResult =
  | { readonly kind: 'saved'; readonly revision: string | null }
  /** The file is no longer at the expected revision: someone else changed it. */
  | { readonly kind: 'conflict'; readonly actualRevision: string | null; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string }

/**
 * The one way an open document reaches the disk (spec 08): `files.write` with the revision the
 * edit started from, an idempotency key (a retry of the same content reuses it) and the editing
 * session, so text and byte editors group their saves in File History the same way.
 *
 * Editing sessions: the engine merges consecutive saves with the same `edit_session_id` (less than
 * five minutes apart) into one version. A session ends when the person leaves the tab (a switch or
 * a close) or restores a version; the next edit starts a new one. Decision: the id changes at the
 * next edit, not at the moment of leaving, so the final publish of what was typed before leaving
 * still belongs to the session it was typed in.
 */
export class Publisher {
  private session: string
  private ended = false

  constructor(
    private readonly client: Pick<RequestClient, 'request'>,
    readonly projectId: string,
    readonly path: string,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {
    this.session = newId()
  }

  /** The editing session the next publish belongs to. */
  get editSession(): string {
    return this.session
  }

  /** The person edited the document: a session that ended gives way to a new one. */
  noteEdit(): void {
    if (!this.ended) return
    this.ended = false
    this.session = this.newId()
  }

  /** The person left the tab or restored a version: the next edit is a new History version. */
  endEditSession(): void {
    this.ended = true
  }

  /** The raw publish, for the text autosave (which keeps its own draft bookkeeping). */
  readonly write: PublishFn = async (payload, idempotencyKey) => {
    const size = payload.content_base64 !== undefined ? (payload.content_base64.length * 3) / 4 : 0
    const outcome = await this.client.request(
      'files.write',
      { ...payload, edit_session_id: this.session },
      // A large file takes a while to travel and to be made durable: a second per MiB on top.
      { owner: { project_id: this.projectId }, idempotencyKey, timeoutMs: 30_000 + size / 1024 },
    )
    if (outcome.kind === 'ok') readCache.invalidate(this.projectId, this.path)
    return outcome
  }

  /** Publishes `content` as the file's whole new content if the file is still at `expected`. */
  async publish(content: DraftContent, expected: string | null, idempotencyKey: string): Promise<PublishResult> {
    const outcome = await this.write(
      {
        path: this.path,
        ...(content.kind === 'text' ? { content: content.text } : { content_base64: toBase64(content.bytes) }),
        expected_revision: expected,
      },
      idempotencyKey,
    )
    return resultOf(outcome)
  }
}

export function resultOf(outcome: PublishOutcome): PublishResult {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'saved', revision: outcome.result.revision }
    case 'error':
      return outcome.error.code === 'CONFLICT'
        ? {
            kind: 'conflict',
            actualRevision: (outcome.error.details?.actual_revision as string | null | undefined) ?? null,
            message: outcome.error.message,
          }
        : { kind: 'failed', message: outcome.error.message }
    case 'timeout':
      return { kind: 'failed', message: 'the save took too long' }
    default:
      return { kind: 'failed', message: 'not connected to Retrace' }
  }
}
