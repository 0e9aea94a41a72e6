import { randomUUID } from 'node:crypto'
import {
  actionDefinition,
  fail,
  isActionName,
  Owner,
  RequestEnvelope,
  type ActionName,
  type ErrorResponse,
  type Outcome,
  type ProtocolError,
  type ResponseEnvelope,
} from '../../shared/protocol'
import type { Host } from './host'
import type { ProjectRegistry } from './projects'

import type { ActionHandlers, AppRequestContext, ProjectRequestContext } from './actions'

export type { ActionHandlers, AppRequestContext, ProjectRequestContext } from './actions'

export interface Dispatcher {
  /** Answers exactly one response for any input whatsoever; never throws, never rejects. */
  handle(raw: unknown): Promise<ResponseEnvelope>
}

export function createDispatcher(handlers: ActionHandlers, projects: ProjectRegistry, host: Host): Dispatcher {
  async function dispatch<A extends ActionName>(action: A, envelope: RequestEnvelope): Promise<Outcome<unknown>> {
    const definition = actionDefinition(action)
    const parsed = definition.payload.safeParse(envelope.payload ?? {})
    if (!parsed.success) {
      return fail('INVALID_REQUEST', `The payload of "${action}" is not valid.`, {
        issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
      })
    }
    if (definition.mutating && envelope.idempotency_key === undefined) {
      return fail('INVALID_REQUEST', `"${action}" changes data and needs an idempotency_key.`)
    }
    const base: AppRequestContext = { owner: envelope.owner, idempotencyKey: envelope.idempotency_key }
    let context: AppRequestContext | ProjectRequestContext = base
    if (definition.scope === 'project') {
      const projectId = envelope.owner.project_id
      if (projectId === undefined) return fail('INVALID_REQUEST', `"${action}" needs owner.project_id.`)
      const project = projects.get(projectId)
      if (!project) return fail('NOT_FOUND', `No project with id "${projectId}" is open.`, { project_id: projectId })
      context = { ...base, project }
    }
    const handler = handlers[action] as (payload: unknown, context: unknown) => Promise<Outcome<unknown>>
    const outcome = await handler(parsed.data, context)
    if (outcome.kind === 'ok') {
      // The contract holds on the way out too: a handler result that does not match its schema is
      // a bug, reported as INTERNAL rather than sent for the client to misread.
      const checked = definition.result.safeParse(outcome.result)
      if (!checked.success) throw new Error(`Result of ${action} violates its schema: ${checked.error.message}`)
      return { kind: 'ok', result: checked.data }
    }
    return outcome
  }

  return {
    async handle(raw) {
      const envelope = RequestEnvelope.safeParse(raw)
      if (!envelope.success) return invalidEnvelope(raw, envelope.error.issues)
      const { request_id, action, owner } = envelope.data
      if (!isActionName(action)) {
        return errorResponse(request_id, action, owner, {
          code: 'INVALID_REQUEST',
          message: `Unknown action "${action}".`,
          details: { action },
        })
      }
      try {
        const outcome = await dispatch(action, envelope.data)
        return outcome.kind === 'ok'
          ? { request_id, action, owner, status: 'ok', result: outcome.result }
          : errorResponse(request_id, action, owner, outcome.error)
      } catch (error) {
        const correlationId = `err_${randomUUID()}`
        host.log('error', `Unhandled failure in ${action}`, {
          correlation_id: correlationId,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        })
        return errorResponse(request_id, action, owner, {
          code: 'INTERNAL',
          message: `Retrace hit an internal error (reference ${correlationId}).`,
          details: { correlation_id: correlationId },
        })
      }
    },
  }
}

function errorResponse(
  requestId: string | null,
  action: string | null,
  owner: Owner,
  error: ProtocolError,
): ErrorResponse {
  return { request_id: requestId, action, owner, status: 'error', error }
}

/** Echoes whatever identifying fields the malformed request had, so the sender can match it. */
function invalidEnvelope(raw: unknown, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): ErrorResponse {
  const record = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {}
  const echo = (value: unknown) => (typeof value === 'string' && value.length <= 200 ? value : null)
  const owner = Owner.safeParse(record.owner)
  const badId = issues.some((issue) => issue.path[0] === 'request_id')
  return errorResponse(echo(record.request_id), echo(record.action), owner.success ? owner.data : {}, {
    code: 'INVALID_REQUEST',
    message: badId ? 'Every request needs a request_id that is a UUID.' : 'The request envelope is not valid.',
    details: { issues: issues.slice(0, 20).map((issue) => ({ path: issue.path.map(String), message: issue.message })) },
  })
}
