import { z } from 'zod'
import { PartSchema, TurnSummarySchema } from './parts'

/** Server-pushed hints (spec 02 "Events"); a view refetches through requests, never trusts data. */
export const EVENT_SCHEMAS = {
  'project.opened': z.object({ project_id: z.string(), root: z.string() }),
  'intent.progress': z.object({
    session_id: z.string(),
    phase: z.enum(['preflight', 'apply']),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  }),
  /** A session's title, mode, archive state or running turn changed. */
  'session.updated': z.object({ session_id: z.string() }),
  /** The whole part at `index` of the turn's parts, after a transition (or while text streams). */
  'turn.part': z.object({
    session_id: z.string(),
    turn_id: z.string(),
    index: z.number().int().nonnegative(),
    part: PartSchema,
  }),
  'turn.finished': z.object({
    session_id: z.string(),
    turn_id: z.string(),
    status: z.enum(['complete', 'aborted', 'error']),
    summary: TurnSummarySchema.nullable(),
  }),
  /** Real byte counts of an ONLYOFFICE bundle install; `phase: done | failed` ends it. */
  'office.install.progress': z.object({
    install_id: z.string(),
    phase: z.enum(['download', 'verify', 'extract', 'publish', 'done', 'failed']),
    received_bytes: z.number().int().nonnegative(),
    total_bytes: z.number().int().nonnegative(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  /** A LibreOffice preview or conversion still running after a second (then every second); no percentages. */
  'office.progress': z.object({
    operation_id: z.string(),
    operation: z.enum(['preview', 'convert']),
    path: z.string(),
    phase: z.enum(['queued', 'starting-engine', 'converting', 'publishing', 'done', 'failed']),
    elapsed_ms: z.number().int().nonnegative(),
  }),
  'workspace.changed': z.object({ workspace_id: z.string(), revision: z.number().int(), paths: z.array(z.string()) }),
  /**
   * The file watcher saw files created, changed or removed in the project named by the frame's
   * owner (by anyone: an editor, git, a build). A hint for views to re-read; `truncated` means
   * more changed than `paths` lists, so a view re-reads everything it shows. Never journaled.
   */
  'files.changed': z.object({ paths: z.array(z.string()), truncated: z.boolean() }),
} as const

export type EventName = keyof typeof EVENT_SCHEMAS
export type EventDataOf<E extends EventName> = z.infer<(typeof EVENT_SCHEMAS)[E]>
