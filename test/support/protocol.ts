import { randomUUID } from 'node:crypto'
import {
  actionDefinition,
  isActionName,
  type ActionName,
  type Owner,
  type PayloadOf,
  type ResponseEnvelope,
} from '../../src/shared/protocol'

export interface CallOptions {
  readonly owner?: Owner
  /** The idempotency key of a mutating action; a fresh one when omitted. */
  readonly key?: string
}

/**
 * One request as a client sends it: a fresh request_id, the owner, and — for a mutating action —
 * an idempotency key. Typed by the protocol registry, so a test cannot send a payload the action
 * does not take (tests of malformed input build their frames by hand on purpose).
 */
export function envelope<A extends ActionName>(action: A, payload: PayloadOf<A>, options: CallOptions = {}) {
  const mutating = isActionName(action) && actionDefinition(action).mutating
  return {
    request_id: randomUUID(),
    action,
    owner: options.owner ?? {},
    ...(mutating || options.key !== undefined ? { idempotency_key: options.key ?? randomUUID() } : {}),
    payload,
  }
}

/** Sends one typed request to anything that answers envelopes (the core, a transport). */
export function send<A extends ActionName>(
  target: { handle(raw: unknown): Promise<ResponseEnvelope> },
  action: A,
  payload: PayloadOf<A>,
  options: CallOptions = {},
): Promise<ResponseEnvelope> {
  return target.handle(envelope(action, payload, options))
}

/**
 * For table-driven tests (crash matrices, property tests, bad input) whose action comes from data:
 * the same envelope, checked only by the engine.
 */
export function sendUntyped(
  target: { handle(raw: unknown): Promise<ResponseEnvelope> },
  action: string,
  payload: unknown,
  options: CallOptions = {},
): Promise<ResponseEnvelope> {
  return send(target, action as ActionName, payload as never, options)
}

/**
 * The result of a call that must succeed (benches and crash-test scripts): an error answer throws,
 * naming the action.
 */
export async function resultOrThrow(
  target: { handle(raw: unknown): Promise<ResponseEnvelope> },
  action: string,
  owner: Owner,
  payload: unknown,
): Promise<Record<string, unknown>> {
  const response = await sendUntyped(target, action, payload, { owner })
  if (response.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(response.error)}`)
  return response.result as Record<string, unknown>
}
