import { z } from 'zod'
import { defineAction } from '../define-action'

const PathState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('regular'), digest: z.string(), mode: z.string(), blob_ref: z.string().nullable() }),
])

export const historyPlan = defineAction('history.plan', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      operation: z.enum(['undo', 'redo', 'revert', 'reapply', 'rewind']),
      turn_id: z.string().max(200).optional(),
      checkpoint_id: z.string().max(200).optional(),
      mode: z.enum(['code_and_conversation', 'conversation', 'code']).optional(),
      /** Also restore the files the turn's commands changed, from its step snapshots (undo, revert). */
      include_commands: z.boolean().optional(),
      /** Command-changed files edited since the step, explicitly included anyway (their bytes are replaced). */
      include_conflicting: z.array(z.string().max(4_096)).max(10_000).optional(),
    })
    .strict(),
  result: z.object({
    status: z.enum(['ready', 'blocked', 'unavailable']),
    plan_hash: z.string(),
    operation: z.enum(['undo', 'redo', 'revert', 'reapply']),
    turn_id: z.string(),
    actions: z.array(
      z.object({
        path: z.string(),
        file_lineage_id: z.string(),
        expected: PathState,
        target: PathState,
        /** `command`: restored from a step snapshot rather than a journal receipt. */
        source: z.enum(['journal', 'command']).optional(),
      }),
    ),
    conflicts: z.array(
      z.object({
        path: z.string(),
        reason: z.string(),
        message: z.string(),
        expected: z.string().optional(),
        actual: z.string().optional(),
        /** `command`: a file changed by commands, which the person may include anyway. */
        source: z.literal('command').optional(),
      }),
    ),
    unavailable: z.array(z.object({ path: z.string(), reason: z.string() })),
    impact: z.object({
      files: z.number().int().nonnegative(),
      turns: z.number().int().nonnegative(),
      /** Files the turn's commands changed; restored only with include_commands. */
      command_files: z.number().int().nonnegative(),
    }),
  }),
})

export const historyApply = defineAction('history.apply', {
  scope: 'project',
  mutating: true,
  payload: z.object({ plan_hash: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
  result: z.object({
    intent_id: z.string(),
    status: z.enum(['applying', 'committed', 'rolled_back', 'recovery_required']),
    transaction_id: z.string().nullable(),
  }),
})
