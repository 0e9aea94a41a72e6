import { z } from 'zod'
import { defineAction } from '../define-action'
import { PartSchema, TurnSummarySchema } from '../parts'

export { TurnSummarySchema } from '../parts'

/** Spec 05 "Permissions": `ask` approves each write, patch and command; `accept-edits` only commands. */
export const PermissionMode = z.enum(['ask', 'accept-edits', 'auto'])
export type PermissionMode = z.infer<typeof PermissionMode>

/**
 * Spec 04 alignment: `aligned` (the files hold the active head's code), `mismatch` (after a
 * conversation-only rewind or a switch whose code differs: the next turn waits for Keep current
 * files / Restore branch code), `code_rewound` (after a code-only rewind: a banner).
 * `session.align` binds `files_node_id` as expected_source and `head_node_id` as expected_target.
 */
export const AlignmentSchema = z.object({
  state: z.enum(['aligned', 'mismatch', 'code_rewound']),
  /** The node whose code the files hold (the active head when aligned). */
  files_node_id: z.string(),
  head_node_id: z.string(),
  /** code_rewound: the checkpoint the code went to. */
  checkpoint_id: z.string().nullable(),
})

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
  alignment: AlignmentSchema,
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
  /** Where the branch left its parent (its first head); null for the session's first branch. */
  fork_node_id: z.string().nullable(),
  created_at_ms: z.number(),
  /** The prompt of the branch's head turn (null at ROOT). */
  last_prompt: z.string().nullable(),
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

export const sessionBranch = defineAction('session.branch', {
  scope: 'project',
  mutating: false,
  /** "Branch from here": a new branch whose head is that node; the files stay as they are. */
  payload: z.object({ session_id: SessionId, node_id: z.string().min(1).max(200) }).strict(),
  result: z.object({ branch_id: z.string(), session: SessionSchema }),
})

export const sessionSwitchBranch = defineAction('session.switch_branch', {
  scope: 'project',
  mutating: false,
  /** Makes a branch active (re-activating an archived one); the files stay, alignment says whether they match. */
  payload: z.object({ session_id: SessionId, branch_id: z.string().min(1).max(200) }).strict(),
  result: SessionSchema,
})

export const sessionArchiveBranch = defineAction('session.archive_branch', {
  scope: 'project',
  mutating: false,
  /** Archive keeps every node, checkpoint and receipt; a switch (or `archived: false`) re-activates it. */
  payload: z.object({ session_id: SessionId, branch_id: z.string().min(1).max(200), archived: z.boolean() }).strict(),
  result: z.object({ branches: z.array(BranchSchema) }),
})

export const sessionFork = defineAction('session.fork', {
  scope: 'project',
  mutating: false,
  /**
   * "Fork to new task": a new session with the conversation up to `node_id`, the source untouched.
   * `with_files` (git projects only) creates a git worktree at that checkpoint and opens it as a
   * project of its own; the new session belongs to it.
   */
  payload: z.object({ session_id: SessionId, node_id: z.string().min(1).max(200), with_files: z.boolean() }).strict(),
  result: z.object({
    session: SessionSchema,
    worktree: z.object({ path: z.string(), project_id: z.string() }).nullable(),
  }),
})

export const sessionAlign = defineAction('session.align', {
  scope: 'project',
  mutating: true,
  /**
   * Keep current files (the active branch adopts them, with a new checkpoint) or Restore branch
   * code (a restore transaction applying the previewed `plan_hash`; the conversation head does not move). `expected_source` is the
   * alignment's files_node_id, `expected_target` its head_node_id; a stale pair is `STALE_PLAN`.
   */
  payload: z
    .object({
      session_id: SessionId,
      decision: z.enum(['keep', 'restore']),
      expected_source: z.string().min(1).max(200),
      expected_target: z.string().min(1).max(200),
      /**
       * `restore` only: the previewed plan (`history.plan { operation: "align" }`) the person saw;
       * without it nothing is written (`INVALID_REQUEST`, reason `preview-required`).
       */
      plan_hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
    })
    .strict(),
  result: z.object({
    status: z.enum(['aligned', 'committed', 'rolled_back', 'recovery_required']),
    intent_id: z.string().nullable(),
    session: SessionSchema,
  }),
})

export const sessionPurge = defineAction('session.purge', {
  scope: 'project',
  mutating: false,
  /**
   * Explicit and final: an archived branch (`branch_id`), or a whole archived session. Frees only
   * what nothing else references (nodes shared with another branch stay; blobs go when no receipt,
   * checkpoint or baseline names them).
   */
  payload: z.object({ session_id: SessionId, branch_id: z.string().min(1).max(200).optional() }).strict(),
  result: z.object({ nodes: z.number().int().nonnegative(), transactions_released: z.number().int().nonnegative() }),
})

export const sessionResume = defineAction('session.resume', {
  scope: 'project',
  mutating: false,
  /** After start-up recovery: the session's real ids, its active branch, heads and the workspace revision. */
  payload: z.object({ session_id: SessionId }).strict(),
  result: z.object({
    session: SessionSchema,
    branches: z.array(BranchSchema),
    head_node_id: z.string(),
    head_version: z.number().int().nonnegative(),
    workspace_revision: z.number().int().nonnegative(),
  }),
})
