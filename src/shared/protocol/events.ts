import { z } from 'zod'

/** Server-pushed hints (spec 02 "Events"); a view refetches through requests, never trusts data. */
export const EVENT_SCHEMAS = {
  'project.opened': z.object({ project_id: z.string(), root: z.string() }),
  'intent.progress': z.object({
    session_id: z.string(),
    phase: z.enum(['preflight', 'apply']),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  }),
  'workspace.changed': z.object({ workspace_id: z.string(), revision: z.number().int(), paths: z.array(z.string()) }),
} as const

export type EventName = keyof typeof EVENT_SCHEMAS
export type EventDataOf<E extends EventName> = z.infer<(typeof EVENT_SCHEMAS)[E]>
