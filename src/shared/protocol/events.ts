import { z } from 'zod'
import { EventFrame, type Owner } from './envelope'
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
  /** Real byte counts of a LibreOffice WebAssembly pack install; `phase: done | failed` ends it. */
  'office.pack.progress': z.object({
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

/** One event frame whose `data` has been checked against its event's schema. */
export interface EventFrameOf<E extends EventName> {
  readonly event: E
  readonly owner: Owner
  readonly data: EventDataOf<E>
}

/** Any declared event, discriminated by `event`: narrowing the name types the data. */
export type KnownEventFrame = { [E in EventName]: EventFrameOf<E> }[EventName]

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(EVENT_SCHEMAS, name)
}

/**
 * The frame as a declared event, or null when it is not one: an unknown name, a bad owner, or
 * data its schema refuses. Events are hints, so a refused one is dropped, never half-applied.
 */
export function parseKnownEvent(frame: unknown): KnownEventFrame | null {
  const envelope = EventFrame.safeParse(frame)
  if (!envelope.success || !isEventName(envelope.data.event)) return null
  const data = EVENT_SCHEMAS[envelope.data.event].safeParse(envelope.data.data)
  if (!data.success) return null
  return { event: envelope.data.event, owner: envelope.data.owner, data: data.data } as KnownEventFrame
}
