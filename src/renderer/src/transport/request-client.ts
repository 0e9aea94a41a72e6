import { Emitter, type Subscription } from '../../../shared/emitter'
import {
  actionDefinition,
  isEventFrame,
  parseKnownEvent,
  ResponseEnvelope,
  type ActionName,
  type EventDataOf,
  type EventFrameOf,
  type EventName,
  type KnownEventFrame,
  type Owner,
  type PayloadOf,
  type ProtocolError,
  type ResultOf,
} from '../../../shared/protocol'
import type { ChannelStatus, FrameChannel } from './channel'

export type RequestOutcome<R> =
  | { kind: 'ok'; result: R }
  | { kind: 'error'; error: ProtocolError }
  /** No answer within the deadline; a late answer is dropped. */
  | { kind: 'timeout' }
  /** The caller forgot the request (view unmounted, query replaced, project switched). */
  | { kind: 'cancelled' }
  /** The connection to the host was lost before an answer came. */
  | { kind: 'disconnected' }

export interface RequestOptions {
  readonly owner?: Owner
  readonly signal?: AbortSignal
  readonly timeoutMs?: number
  readonly idempotencyKey?: string
}

interface Pending {
  readonly action: ActionName
  readonly owner: Owner
  readonly path: string | undefined
  settle(outcome: RequestOutcome<unknown>): void
}

export interface DroppedFrame {
  readonly reason:
    | 'malformed'
    | 'unknown-id'
    | 'action-mismatch'
    | 'owner-mismatch'
    | 'path-mismatch'
    | 'bad-result'
    /** An event frame with an undeclared name or data its event's schema refuses. */
    | 'bad-event'
  readonly requestId: string | null
}

export const DEFAULT_TIMEOUT_MS = 30_000

/** Which events a listener wants: those of one project (frames that name no project pass too). */
export interface EventScope {
  readonly projectId?: string
}

/**
 * Pairs requests with responses by `request_id` only: no queue, so a slow listing never delays a
 * read. A response is applied only if its id is pending and its action, owner (and path, where the
 * request had one) match what was asked; anything else is dropped and reported, never applied.
 */
export class RequestClient {
  private readonly pending = new Map<string, Pending>()
  private readonly events = new Emitter<KnownEventFrame>()
  private readonly unsubscribe: Array<() => void> = []

  constructor(
    private readonly channel: FrameChannel,
    private readonly onDrop: (dropped: DroppedFrame) => void = () => {},
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {
    this.unsubscribe.push(channel.onFrame((frame) => this.receive(frame)))
    this.unsubscribe.push(
      channel.onStatus((status) => {
        if (status === 'closed') this.failAll({ kind: 'disconnected' })
      }),
    )
  }

  get status(): ChannelStatus {
    return this.channel.status
  }

  onStatus(listener: (status: ChannelStatus) => void): () => void {
    return this.channel.onStatus(listener)
  }

  request<A extends ActionName>(
    action: A,
    payload: PayloadOf<A>,
    options: RequestOptions = {},
  ): Promise<RequestOutcome<ResultOf<A>>> {
    const requestId = this.newId()
    const owner = options.owner ?? {}
    const path =
      typeof (payload as { path?: unknown }).path === 'string' ? (payload as { path: string }).path : undefined
    return new Promise((resolve) => {
      if (options.signal?.aborted) {
        resolve({ kind: 'cancelled' })
        return
      }
      const timer = setTimeout(() => settle({ kind: 'timeout' }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS)
      const onAbort = () => settle({ kind: 'cancelled' })
      const settle = (outcome: RequestOutcome<unknown>) => {
        if (!this.pending.delete(requestId)) return
        clearTimeout(timer)
        options.signal?.removeEventListener('abort', onAbort)
        resolve(outcome as RequestOutcome<ResultOf<A>>)
      }
      options.signal?.addEventListener('abort', onAbort, { once: true })
      this.pending.set(requestId, { action, owner, path, settle })
      const envelope = {
        request_id: requestId,
        action,
        owner,
        ...(options.idempotencyKey ? { idempotency_key: options.idempotencyKey } : {}),
        payload,
      }
      if (!this.channel.send(envelope)) settle({ kind: 'disconnected' })
    })
  }

  /** Every declared event, already checked against its schema; narrow on `frame.event`. */
  onEvent(listener: (frame: KnownEventFrame) => void, scope: EventScope = {}): Subscription {
    return this.events.on((frame) => {
      if (inScope(frame, scope)) listener(frame)
    })
  }

  /** One event by name, its data typed from the protocol's event registry. */
  on<E extends EventName>(
    event: E,
    listener: (data: EventDataOf<E>, frame: EventFrameOf<E>) => void,
    scope: EventScope = {},
  ): Subscription {
    return this.events.on((frame) => {
      if (frame.event !== event || !inScope(frame, scope)) return
      // The name matched, so this frame is the E member of the union.
      const typed = frame as EventFrameOf<E>
      listener(typed.data, typed)
    })
  }

  get pendingCount(): number {
    return this.pending.size
  }

  close(): void {
    for (const off of this.unsubscribe) off()
    this.events.dispose()
    this.failAll({ kind: 'cancelled' })
    this.channel.close()
  }

  private failAll(outcome: RequestOutcome<never>): void {
    for (const pending of [...this.pending.values()]) pending.settle(outcome)
  }

  private receive(frame: unknown): void {
    if (isEventFrame(frame)) {
      const event = parseKnownEvent(frame)
      if (event) this.events.fire(event)
      else this.onDrop({ reason: 'bad-event', requestId: null })
      return
    }
    const parsed = ResponseEnvelope.safeParse(frame)
    if (!parsed.success) {
      this.onDrop({ reason: 'malformed', requestId: null })
      return
    }
    const response = parsed.data
    const pending = response.request_id === null ? undefined : this.pending.get(response.request_id)
    const drop = (reason: DroppedFrame['reason']) => this.onDrop({ reason, requestId: response.request_id })
    if (!pending) return drop('unknown-id')
    if (response.action !== pending.action) return drop('action-mismatch')
    if (!sameOwner(response.owner, pending.owner)) return drop('owner-mismatch')
    if (response.status === 'error') {
      pending.settle({ kind: 'error', error: response.error })
      return
    }
    const definition = actionDefinition(pending.action)
    const result = definition.result.safeParse(response.result)
    if (!result.success) return drop('bad-result')
    const resultPath = (result.data as { path?: unknown }).path
    if (
      pending.path !== undefined &&
      definition.resultPath !== 'new' &&
      typeof resultPath === 'string' &&
      resultPath !== pending.path
    ) {
      return drop('path-mismatch')
    }
    pending.settle({ kind: 'ok', result: result.data })
  }
}

function inScope(frame: KnownEventFrame, scope: EventScope): boolean {
  // Older engines sent some events without a project; those still reach every view, as before.
  return (
    scope.projectId === undefined || frame.owner.project_id === undefined || frame.owner.project_id === scope.projectId
  )
}

function sameOwner(a: Owner, b: Owner): boolean {
  return a.project_id === b.project_id && a.session_id === b.session_id
}
