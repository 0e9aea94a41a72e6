import { z } from 'zod'
import { ProtocolError } from './errors'

/**
 * The owner scopes a request: which project (and later which session) it acts on.
 * App-level actions (project.open, project.list) take an empty owner.
 */
export const Owner = z
  .object({
    project_id: z.string().min(1).max(200).optional(),
    session_id: z.string().min(1).max(200).optional(),
  })
  .strict()
export type Owner = z.infer<typeof Owner>

export const RequestId = z.uuid()

/** The envelope shape; the payload is checked afterwards against the action's own schema. */
export const RequestEnvelope = z
  .object({
    request_id: RequestId,
    action: z.string().min(1).max(100),
    owner: Owner.default({}),
    idempotency_key: z.uuid().optional(),
    payload: z.unknown(),
  })
  .strict()
export type RequestEnvelope = z.infer<typeof RequestEnvelope>

const ResponseBase = {
  request_id: z.string().nullable(),
  action: z.string().nullable(),
  owner: Owner,
}

export const OkResponse = z.object({ ...ResponseBase, status: z.literal('ok'), result: z.unknown() })
export const ErrorResponse = z.object({
  ...ResponseBase,
  status: z.literal('error'),
  error: ProtocolError,
})
export const ResponseEnvelope = z.discriminatedUnion('status', [OkResponse, ErrorResponse])
export type ResponseEnvelope = z.infer<typeof ResponseEnvelope>
export type ErrorResponse = z.infer<typeof ErrorResponse>

export const EventFrame = z.object({
  event: z.string(),
  owner: Owner,
  data: z.record(z.string(), z.unknown()),
})
export type EventFrame = z.infer<typeof EventFrame>

/** A frame the server sends: a response to one request, or an event. */
export type ServerFrame = ResponseEnvelope | EventFrame

export function isEventFrame(frame: unknown): frame is EventFrame {
  return typeof frame === 'object' && frame !== null && 'event' in frame
}
