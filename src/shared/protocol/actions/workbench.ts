import { z } from 'zod'
import { defineAction } from '../define-action'
import { DiffLineSchema } from './review'

/** Git decorations for the explorer and tabs: one state per changed path, from `git status`. */
export const GitFileState = z.enum(['modified', 'added', 'deleted', 'renamed', 'untracked', 'conflicted'])
export type GitFileState = z.infer<typeof GitFileState>

/** At most this many entries are returned; past it `truncated` is true. */
export const GIT_STATUS_LIMIT = 10_000

export const gitStatus = defineAction('git.status', {
  scope: 'project',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('ok'),
      entries: z.array(z.object({ path: z.string(), state: GitFileState })),
      truncated: z.boolean(),
    }),
    /** Not a git repository, or git is missing: no decorations, not an error. */
    z.object({ kind: z.literal('unavailable'), reason: z.string() }),
  ]),
})

/** A blocked restore's way forward: at most this many diff lines are returned for one path. */
export const CONFLICT_DIFF_LINES = 400

/**
 * For a path a restore is blocked on (spec 04 "changed-since"): the diff from the bytes the turn
 * left (`expected: after`, what Undo/Revert expect) or found (`before`, what Redo/Reapply expect)
 * to the file as it is on disk now. Needs owner.session_id; the turn must be the session's.
 */
export const historyConflictDiff = defineAction('history.conflict_diff', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      turn_id: z.string().min(1).max(200).optional(),
      /** A multi-turn restore's conflict: the plan names what the path should hold now. */
      plan_hash: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
      path: z.string().min(1).max(4_096),
      expected: z.enum(['after', 'before']).optional(),
    })
    .strict()
    .refine((payload) => payload.turn_id !== undefined || payload.plan_hash !== undefined, {
      message: 'turn_id or plan_hash is required',
    }),
  result: z.object({
    path: z.string(),
    diff_state: z.enum(['available', 'identical', 'binary', 'large', 'timeout']),
    /** What the turn left (or found) and what is there now; `absent` when there was / is no file. */
    expected_kind: z.enum(['file', 'absent', 'directory']),
    current_kind: z.enum(['file', 'absent', 'directory']),
    expected_size: z.number().int().nonnegative().nullable(),
    current_size: z.number().int().nonnegative().nullable(),
    hunks: z.array(
      z.object({
        old_start: z.number().int().nonnegative(),
        new_start: z.number().int().nonnegative(),
        continued: z.boolean(),
        lines: z.array(DiffLineSchema),
      }),
    ),
    /** More lines changed than CONFLICT_DIFF_LINES; the person opens the file to see the rest. */
    truncated: z.boolean(),
  }),
})
