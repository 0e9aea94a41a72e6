import { z } from 'zod'
import { defineAction } from '../define-action'
import { DocumentCountsSchema, DocumentDiffSchema } from '../documents'
import { HeldReasonSchema } from '../parts'

const PathState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('regular'), digest: z.string(), mode: z.string(), blob_ref: z.string().nullable() }),
])

export const RewindMode = z.enum(['code_and_conversation', 'conversation', 'code'])
export type RewindMode = z.infer<typeof RewindMode>
export const Boundary = z.enum(['before_turn', 'after_turn'])

export const BranchOutcomeSchema = z.object({
  /**
   * `new_branch`: a target branch is created and activated; `unchanged`: the conversation stays;
   * `return_to_source`: the branch a rewind left is active again; `move_forward`: the active
   * branch's head moves one turn forward along the branch it left.
   */
  outcome: z.enum(['new_branch', 'unchanged', 'return_to_source', 'move_forward']),
  source_branch_id: z.string(),
  /** The conversation head afterwards (the session's ROOT before the first turn). */
  head_node_id: z.string(),
  head_is_root: z.boolean(),
  returns_to_branch_id: z.string().nullable(),
})

const RestoreActionSchema = z.object({
  path: z.string(),
  file_lineage_id: z.string(),
  expected: PathState,
  target: PathState,
  /** `command`: restored from a step snapshot rather than a journal receipt. */
  source: z.enum(['journal', 'command']).optional(),
  /** Also changed after the checkpoint by someone other than the undone turns (a rewind replaces that too). */
  changed_outside: z.boolean().optional(),
})

const ConflictSchema = z.object({
  path: z.string(),
  reason: z.string(),
  message: z.string(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  /** `command`: a file changed by commands, which the person may include anyway. */
  source: z.literal('command').optional(),
})

const Unavailable = z.array(z.object({ path: z.string(), reason: z.string() }))

/** What every restore plan shows, single-turn or multi-turn. */
const PlanBase = z.object({
  status: z.enum(['ready', 'blocked', 'unavailable']),
  plan_hash: z.string(),
  turn_id: z.string(),
  actions: z.array(RestoreActionSchema),
  conflicts: z.array(ConflictSchema),
  unavailable: Unavailable,
  /**
   * Folders the restore removes besides its files (Undo, Revert, Rewind: folders the undone turns
   * created that end up empty, deepest first) or makes again (Redo of a restore that removed them).
   */
  folders: z.object({ removed: z.array(z.string()), created: z.array(z.string()) }),
  /**
   * Issue 26: what changes inside each DOCX, XLSX, PPTX or PDF the restore writes — from its bytes
   * now to the bytes the restore puts there. `null` counts and diff: not computed within the
   * plan's budget, or the document could not be read (the preview then shows the path alone).
   * Shown only: not part of the plan hash.
   */
  documents: z
    .array(
      z.object({
        path: z.string(),
        counts: DocumentCountsSchema.nullable(),
        diff: DocumentDiffSchema.nullable(),
      }),
    )
    .optional(),
})

const Impact = z.object({
  files: z.number().int().nonnegative(),
  turns: z.number().int().nonnegative(),
  /** Files the turns' commands changed; restored only with include_commands. */
  command_files: z.number().int().nonnegative(),
})

/** Undo, Redo (of an Undo), Revert and Reapply of one turn, from its turn card. */
export const TurnRestorePlanSchema = PlanBase.extend({
  kind: z.literal('turn'),
  operation: z.enum(['undo', 'redo', 'revert', 'reapply']),
  impact: Impact,
  /**
   * Issue 23: files changed during the turn's command steps that are not the commands' own (the
   * person wrote them, another session did, they lie in a dependency folder or a nested
   * repository). Never restored unless named in include_conflicting.
   */
  command_held: z.array(z.object({ path: z.string(), reason: HeldReasonSchema })).optional(),
})

/** Rewind, its /redo (`unrewind`), Restore branch code (`align`) and the Redo of a Rewind. */
export const RewindPlanSchema = PlanBase.extend({
  kind: z.literal('rewind'),
  operation: z.enum(['rewind', 'unrewind', 'align', 'redo']),
  /** The mode and the boundary restored to. */
  mode: RewindMode,
  boundary: Boundary,
  /** Paths left as they are because the person chose to keep them. */
  kept: z.array(z.string()),
  /** Why the code modes are unavailable (whatever mode was asked). */
  code_unavailable: Unavailable,
  /** What happens to the conversation, besides the files. */
  impact: Impact.extend({ branch: BranchOutcomeSchema }),
  /** A conversation mode to before a prompt: the prompt, for the composer. */
  prompt_text: z.string().nullable(),
  /** What a file restore cannot take back: the commands the undone turns ran. */
  side_effects: z.array(z.object({ turn_id: z.string(), kind: z.literal('command'), command: z.string() })),
})

export const historyPlan = defineAction('history.plan', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      /**
       * `rewind`: back to a checkpoint of a turn on the active branch (spec 04 "Multi-turn
       * Rewind"); `unrewind`: forward again along the branch a rewind left (the composer's /redo);
       * `align`: "Restore branch code" (the files to the active head's code, previewed like every
       * restore); `redo`: the exact inverse of the session's last Undo or Rewind.
       */
      operation: z.enum(['undo', 'redo', 'revert', 'reapply', 'rewind', 'unrewind', 'align']),
      turn_id: z.string().max(200).optional(),
      checkpoint_id: z.string().max(200).optional(),
      boundary: Boundary.optional(),
      mode: RewindMode.optional(),
      /** `unrewind`: one turn forward (default), or all the way back to the branch it left. */
      steps: z.enum(['one', 'all']).optional(),
      /** Also restore the files the turn's commands changed, from its step snapshots (undo, revert). */
      include_commands: z.boolean().optional(),
      /** Command-changed files edited since the step, explicitly included anyway (their bytes are replaced). */
      include_conflicting: z.array(z.string().max(4_096)).max(10_000).optional(),
      /** Multi-turn restores: conflicting paths the person keeps as they are (left out of the restore). */
      keep_current: z.array(z.string().max(4_096)).max(10_000).optional(),
    })
    .strict(),
  result: z.discriminatedUnion('kind', [TurnRestorePlanSchema, RewindPlanSchema]),
})

export const historyApply = defineAction('history.apply', {
  scope: 'project',
  mutating: true,
  payload: z.object({ plan_hash: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
  result: z.object({
    intent_id: z.string(),
    status: z.enum(['applying', 'committed', 'rolled_back', 'recovery_required']),
    transaction_id: z.string().nullable(),
    /** Multi-turn restores: the branch active afterwards. */
    branch_id: z.string().nullable().optional(),
    /** A rewind to before a prompt in a conversation mode: the prompt, for the composer. */
    prompt_text: z.string().nullable().optional(),
  }),
})
