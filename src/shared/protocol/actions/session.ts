import { z } from 'zod'
import { defineAction } from '../define-action'

export const SessionSchema = z.object({
  session_id: z.string(),
  project_id: z.string(),
  title: z.string(),
  root_node_id: z.string(),
  active_branch_id: z.string(),
  state: z.enum(['active', 'archived']),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
})

export const TurnSummarySchema = z.object({
  files: z.number().int().nonnegative(),
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  first_files: z.array(z.string()).max(3),
  transactions: z.number().int().nonnegative(),
})

export const NodeSchema = z.object({
  node_id: z.string(),
  parent_node_id: z.string().nullable(),
  kind: z.enum(['root', 'user', 'assistant']),
  parts: z.array(z.object({ type: z.literal('text'), text: z.string() })),
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
  payload: z.object({ title: z.string().max(200).optional() }).strict(),
  result: SessionSchema,
})

export const sessionList = defineAction('session.list', {
  scope: 'project',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.object({ sessions: z.array(SessionSchema) }),
})

export const sessionTranscript = defineAction('session.transcript', {
  scope: 'project',
  mutating: false,
  payload: z.object({ session_id: z.string().min(1).max(200) }).strict(),
  result: z.object({ session: SessionSchema, branches: z.array(BranchSchema), nodes: z.array(NodeSchema) }),
})
