import { z } from 'zod'
import { DocumentDiffSchema } from './documents'

/**
 * The persisted parts of an assistant turn (spec 05 "Loop"). Every transition of a part is written
 * before it is announced as a `turn.part` event, so a transcript read after a crash shows what the
 * agent really did. `turn.part` carries the whole part (not a delta): a view that missed an event
 * is never left with a torn part.
 */
export const TextPartSchema = z.object({ type: z.literal('text'), id: z.string(), text: z.string() })

export const ReasoningPartSchema = z.object({ type: z.literal('reasoning'), id: z.string(), text: z.string() })

export const ToolStateSchema = z.enum(['pending', 'running', 'completed', 'error'])
export type ToolState = z.infer<typeof ToolStateSchema>

/** What a person approves: the diff for file tools, the command for bash. */
export const ApprovalRequestSchema = z.object({
  kind: z.enum(['diff', 'command']),
  /** Unified diff of every file the call would change (file tools). */
  diff: z.string().optional(),
  /** Files the call would change, with the operation. */
  files: z
    .array(
      z.object({
        path: z.string(),
        operation: z.string(),
        /** The project file whose bytes the call publishes at `path` (write's source_path), root-relative. */
        source: z.string().optional(),
      }),
    )
    .optional(),
  command: z.string().optional(),
  /**
   * Documents the call would change (issue 26): what changes inside each, as Review shows it;
   * `diff` null when it could not be computed (the card then shows sizes).
   */
  documents: z.array(z.object({ path: z.string(), diff: DocumentDiffSchema.nullable() })).optional(),
  /** Set when the call reaches outside the project root: recorded with the authorisation. */
  outside_root: z.boolean().optional(),
  status: z.enum(['waiting', 'approved', 'rejected', 'auto']),
  decided_by: z.enum(['user', 'mode', 'always-allow']).optional(),
})
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>

export const ToolPartSchema = z.object({
  type: z.literal('tool'),
  /** The model's tool call id; `session.approve` names it. */
  id: z.string(),
  tool: z.string(),
  state: ToolStateSchema,
  input: z.unknown(),
  /** Model-facing output of a completed call (bounded). */
  output: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** Journal transactions this call committed. */
  receipt_ids: z.array(z.string()),
  approval: ApprovalRequestSchema.optional(),
  started_at_ms: z.number().optional(),
  ended_at_ms: z.number().optional(),
  /**
   * A call of a sub-agent: the id of the `task` call it ran under. Shown (and approved) in the
   * turn like any call, but not part of this turn's own conversation with the model.
   */
  task_call_id: z.string().optional(),
})
export type ToolPart = z.infer<typeof ToolPartSchema>

/** Why a step has no snapshot (spec 06): never an older tree in its place. */
export const SnapshotNoteSchema = z.object({
  reason: z.enum(['disabled', 'not-git', 'no-git', 'busy', 'partial', 'raced', 'missing-objects', 'failed']),
  message: z.string(),
})
export type SnapshotNote = z.infer<typeof SnapshotNoteSchema>

export const StepStartPartSchema = z.object({
  type: z.literal('step-start'),
  id: z.string(),
  step: z.number().int().nonnegative(),
  /** The shadow repository's tree when the step began (spec 06), or null with `snapshot_note`. */
  snapshot: z.string().nullable(),
  snapshot_note: SnapshotNoteSchema.optional(),
})

export const StepFinishPartSchema = z.object({
  type: z.literal('step-finish'),
  id: z.string(),
  step: z.number().int().nonnegative(),
  /** The tree once the step's tools finished (filled in after they ran), or null with `snapshot_note`. */
  snapshot: z.string().nullable(),
  snapshot_note: SnapshotNoteSchema.optional(),
  finish_reason: z.string(),
  tokens: z.object({
    input: z.number().nullable(),
    output: z.number().nullable(),
    reasoning: z.number().nullable(),
    cache_read: z.number().nullable(),
  }),
  /** USD when the provider reports it; null otherwise (Retrace keeps no price list). */
  cost: z.number().nullable(),
})

/**
 * Why a file changed during a command step is not credited to the step's commands (issue 23): it
 * is shown with the reason and restored only when the person asks for that file.
 */
export const HeldReasonSchema = z.enum(['person', 'other-session', 'ambiguous', 'nested-repository', 'ignored-folder'])
export type HeldReason = z.infer<typeof HeldReasonSchema>

/**
 * Spec 06 `patch` part: these files changed during the step; before it they looked like the tree
 * `hash`, and the step left them as in `after`. Written also when a step is interrupted. At most
 * PATCH_FILES_KEPT paths are stored; the full list is always recomputable from the two trees.
 */
export const PatchPartSchema = z.object({
  type: z.literal('patch'),
  id: z.string(),
  step: z.number().int().nonnegative(),
  hash: z.string(),
  after: z.string(),
  files: z.array(z.string()),
  files_total: z.number().int().nonnegative(),
  /** Untracked files over 2 MiB, nested repositories and undecodable names left out of the snapshots. */
  excluded: z
    .array(
      z.object({
        path: z.string(),
        reason: z.enum(['large', 'nested-repository', 'not-unicode']),
        size: z.number().optional(),
      }),
    )
    .optional(),
  /**
   * Issue 23: changed files this step's commands are not credited with, each with why (files in
   * dependency folders are held too, by their path alone, and not listed here). At most
   * PATCH_FILES_KEPT; `held_all` says more were held than fit, so none of the step's files is credited.
   */
  held: z.array(z.object({ path: z.string(), reason: HeldReasonSchema })).optional(),
  held_all: HeldReasonSchema.optional(),
  /** Folders of the project that are repositories of their own: nothing below them is credited. */
  nested_repositories: z.array(z.string()).optional(),
})
export type PatchPart = z.infer<typeof PatchPartSchema>
export const PATCH_FILES_KEPT = 1_000

export const TurnSummarySchema = z.object({
  files: z.number().int().nonnegative(),
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  first_files: z.array(z.string()).max(3),
  transactions: z.number().int().nonnegative(),
  /**
   * Places where a file's recorded chain breaks inside the turn: something outside Retrace (a
   * command, an editor) wrote it between two recorded changes. The counts include those writes.
   */
  outside_changes: z.number().int().positive().optional(),
  /** Files changed by commands (a step's patch, no receipt in that step): Undo restores them only when the person includes them. */
  command_files: z.number().int().nonnegative().optional(),
  /**
   * Issue 23 "what was not recorded is said": files changed during command steps that are shown but
   * not restored unless asked (by reason), files left out of the snapshots (over the size limit,
   * nested repositories, undecodable names), and why a command step has no snapshot at all.
   */
  command_held: z.array(z.object({ reason: HeldReasonSchema, files: z.number().int().positive() })).optional(),
  command_excluded: z
    .array(
      z.object({
        reason: z.enum(['large', 'nested-repository', 'not-unicode']),
        files: z.number().int().positive(),
      }),
    )
    .optional(),
  command_unrecorded: SnapshotNoteSchema.optional(),
})
export type TurnSummaryData = z.infer<typeof TurnSummarySchema>

export const FileSummaryPartSchema = z.object({
  type: z.literal('file-summary'),
  id: z.string(),
  summary: TurnSummarySchema,
})

/**
 * Why a turn stopped early. Not in spec 05's list of parts: it is how "shown in the turn with a
 * retry action" is persisted, so an old transcript still explains an error or a pause.
 */
export const NoticePartSchema = z.object({
  type: z.literal('notice'),
  id: z.string(),
  reason: z.enum(['provider-error', 'no-model', 'step-limit', 'repeated-calls', 'stalled', 'aborted', 'interrupted']),
  message: z.string(),
  /** The error code or HTTP status behind a provider error, when known. */
  code: z.string().optional(),
  retryable: z.boolean(),
})

export const PartSchema = z.discriminatedUnion('type', [
  TextPartSchema,
  ReasoningPartSchema,
  ToolPartSchema,
  StepStartPartSchema,
  StepFinishPartSchema,
  PatchPartSchema,
  FileSummaryPartSchema,
  NoticePartSchema,
])
export type TurnPart = z.infer<typeof PartSchema>
export type NoticePart = z.infer<typeof NoticePartSchema>
export type StepFinishPart = z.infer<typeof StepFinishPartSchema>
export type StepStartPart = z.infer<typeof StepStartPartSchema>
