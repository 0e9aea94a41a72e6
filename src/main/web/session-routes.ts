import { randomUUID } from 'node:crypto'
import type { ProtocolError, ResponseEnvelope } from '../../shared/protocol'
import type { Core } from '../core'

/** `POST /api/session/<id>/revert` and `/unrevert` (spec 06), for scripts. */
export const SESSION_ROUTE = /^\/api\/session\/([A-Za-z0-9_-]{1,200})\/(revert|unrevert)$/

export interface RouteAnswer {
  readonly status: number
  readonly body: unknown
}

const HTTP_STATUS: Partial<Record<ProtocolError['code'], number>> = {
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  PERMISSION_DENIED: 403,
  IDEMPOTENCY_KEY_CONFLICT: 422,
  INTERNAL: 500,
}

const failure = (error: ProtocolError): RouteAnswer => ({ status: HTTP_STATUS[error.code] ?? 409, body: { error } })

/**
 * The same plan/apply as the composer's /undo and the HTTP flavour of /redo: `revert` rewinds code
 * and conversation to before a prompt — `part_id` names it (the prompt's node id or its turn's id
 * from `session.transcript`), else the latest prompt of the active branch; `unrevert` returns to
 * the branch that rewind left (files re-applied). A plan that is not ready answers 409 with the
 * plan (its conflicts or unavailable paths); nothing is written then. `idempotency_key` in the body
 * (or an `Idempotency-Key` header) makes a retry replay the first answer.
 */
export async function answerSessionRoute(
  core: Core,
  sessionId: string,
  verb: 'revert' | 'unrevert',
  body: { part_id?: unknown; idempotency_key?: unknown },
  headerKey: string | undefined,
): Promise<RouteAnswer> {
  const projectId = core.projectOfSession(sessionId)
  if (projectId === undefined) {
    return failure({
      code: 'NOT_FOUND',
      message: `There is no session "${sessionId}".`,
      details: { session_id: sessionId },
    })
  }
  if (body.part_id !== undefined && typeof body.part_id !== 'string') {
    return failure({ code: 'INVALID_REQUEST', message: 'part_id must be a string.' })
  }
  const key = typeof body.idempotency_key === 'string' ? body.idempotency_key : (headerKey ?? randomUUID())
  const owner = { project_id: projectId, session_id: sessionId }
  const ask = (action: string, payload: unknown, idempotencyKey?: string): Promise<ResponseEnvelope> =>
    core.handle({
      request_id: randomUUID(),
      action,
      owner,
      payload,
      ...(idempotencyKey ? { idempotency_key: idempotencyKey } : {}),
    })

  let planPayload: Record<string, unknown>
  if (verb === 'unrevert') planPayload = { operation: 'unrewind', steps: 'all' }
  else {
    const turnId = await turnToRevert(ask, sessionId, body.part_id as string | undefined)
    if (typeof turnId !== 'string') return turnId
    planPayload = { operation: 'rewind', turn_id: turnId, boundary: 'before_turn', mode: 'code_and_conversation' }
  }
  const planned = await ask('history.plan', planPayload)
  if (planned.status !== 'ok') return failure(planned.error)
  const plan = planned.result as { status: string; plan_hash: string }
  if (plan.status !== 'ready') return { status: 409, body: { plan } }
  const applied = await ask('history.apply', { plan_hash: plan.plan_hash }, key)
  if (applied.status !== 'ok') return failure(applied.error)
  return { status: 200, body: { ...(applied.result as object), plan } }
}

/** The assistant turn whose prompt a revert goes before. */
async function turnToRevert(
  ask: (action: string, payload: unknown) => Promise<ResponseEnvelope>,
  sessionId: string,
  partId: string | undefined,
): Promise<string | RouteAnswer> {
  const read = await ask('session.transcript', { session_id: sessionId })
  if (read.status !== 'ok') return failure(read.error)
  const transcript = read.result as {
    session: { active_branch_id: string }
    branches: Array<{ branch_id: string; head_node_id: string }>
    nodes: Array<{ node_id: string; parent_node_id: string | null; kind: string }>
  }
  const byId = new Map(transcript.nodes.map((node) => [node.node_id, node]))
  if (partId !== undefined) {
    const node = byId.get(partId)
    if (node?.kind === 'assistant') return node.node_id
    const turn = node?.kind === 'user' ? transcript.nodes.find((n) => n.parent_node_id === node.node_id) : undefined
    if (turn) return turn.node_id
    return failure({ code: 'NOT_FOUND', message: `There is no prompt or turn "${partId}" in this session.` })
  }
  const head = transcript.branches.find((b) => b.branch_id === transcript.session.active_branch_id)?.head_node_id
  const node = head === undefined ? undefined : byId.get(head)
  if (node?.kind !== 'assistant') {
    return failure({
      code: 'UNAVAILABLE',
      message: 'There is no prompt to revert on this branch.',
      details: { reason: 'nothing-to-revert' },
    })
  }
  return node.node_id
}
