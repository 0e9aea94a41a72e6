import { z } from 'zod'
import { defineAction } from '../define-action'
import { PartSchema, TurnSummarySchema } from '../parts'

export { TurnSummarySchema } from '../parts'

/** Spec 05 "Permissions": `ask` approves each write, patch and command; `accept-edits` only commands. */
export const PermissionMode = z.enum(['ask', 'accept-edits', 'auto'])
export type PermissionMode = z.infer<typeof PermissionMode>

export const SessionSchema = z.object({
  session_id: z.string(),
  project_id: z.string(),
  title: z.string(),
  root_node_id: z.string(),
  active_branch_id: z.string(),
  state: z.enum(['active', 'archived']),
  permission_mode: PermissionMode,
  /** The turn now answering, if any (one running turn per session). */
  running_turn_id: z.string().nullable(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
})

export const RestoreOffersSchema = z.object({
  /** The latest turn Undo acts on, or null. */
  undo_turn_id: z.string().nullable(),
  /** The turn Redo acts on (right after an Undo), or null. */
  redo_turn_id: z.string().nullable(),
  /** Turns whose latest restore undid them (offered Reapply). */
  undone_turn_ids: z.array(z.string()),
})

export const NodeSchema = z.object({
  node_id: z.string(),
  parent_node_id: z.string().nullable(),
  kind: z.enum(['root', 'user', 'assistant']),
  parts: z.array(PartSchema),
  status: z.enum(['complete', 'running', 'aborted', 'error']),
  created_at_ms: z.number(),
  summary: TurnSummarySchema.optional(),
})

export const BranchSchema = z.object({
  branch_id: z.string(),
  parent_branch_id: z.string().nullable(),
  head_node_id: z.string(),
  head_version: z.number().int().nonnegative(),
  writer_epoch: z.number().int().nonnegative(),
  archived: z.boolean(),
})

export const sessionCreate = defineAction('session.create', {
  scope: 'project',
  mutating: false,
  payload: z.object({ title: z.string().max(200).optional(), permission_mode: PermissionMode.optional() }).strict(),
  result: SessionSchema,
})

export const sessionList = defineAction('session.list', {
  scope: 'project',
  mutating: false,
  payload: z.object({ include_archived: z.boolean().optional() }).strict(),
  result: z.object({ sessions: z.array(SessionSchema) }),
})

export const sessionTranscript = defineAction('session.transcript', {
  scope: 'project',
  mutating: false,
  payload: z.object({ session_id: z.string().min(1).max(200) }).strict(),
  result: z.object({
    session: SessionSchema,
    branches: z.array(BranchSchema),
    nodes: z.array(NodeSchema),
    /** Which single-turn restores are executable now, so turn cards show only those (spec 07). */
    restore: RestoreOffersSchema,
  }),
})

const SessionId = z.string().min(1).max(200)

export const sessionUpdate = defineAction('session.update', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      session_id: SessionId,
      title: z.string().min(1).max(200).optional(),
      archived: z.boolean().optional(),
      permission_mode: PermissionMode.optional(),
    })
    .strict(),
  result: SessionSchema,
})

export const sessionPrompt = defineAction('session.prompt', {
  scope: 'project',
  mutating: false,
  payload: z.object({ session_id: SessionId, text: z.string().min(1).max(200_000) }).strict(),
  result: z.object({ turn_id: z.string() }),
})

export const sessionAbort = defineAction('session.abort', {
  scope: 'project',
  mutating: false,
  payload: z.object({ session_id: SessionId }).strict(),
  result: z.object({}),
})

export const sessionApprove = defineAction('session.approve', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      session_id: SessionId,
      tool_call_id: z.string().min(1).max(500),
      decision: z.enum(['approve', 'reject', 'always']),
    })
    .strict(),
  result: z.object({}),
})
