import { z } from 'zod'
import { defineAction } from '../define-action'
import { RelPath, Revision } from './files'

const FileState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('directory') }),
  z.object({
    kind: z.literal('regular'),
    digest: Revision,
    size: z.number().int().nonnegative(),
    mode: z.string(),
    blob_ref: Revision.nullable(),
  }),
])

const LineStats = z.union([
  z.object({
    added: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
    binary: z.literal(false),
  }),
  z.object({ binary: z.literal(true) }),
  z.object({ unknown: z.literal(true), reason: z.string() }),
])

export const ReceiptFile = z.object({
  file_lineage_id: z.string(),
  path: RelPath,
  operation: z.enum(['create', 'modify', 'delete', 'rename']),
  old_path: RelPath.nullable(),
  before: FileState,
  after: FileState,
  stats: LineStats,
  diff_state: z.enum(['available', 'large', 'binary', 'timeout']),
  recoverability: z.enum(['exact', 'unavailable']),
  unavailable_reason: z.string().nullable(),
  publish_state: z.enum(['pending', 'applied', 'verified', 'rolled_back']).optional(),
})

export const ReceiptSchema = z.object({
  transaction_id: z.string(),
  workspace_id: z.string(),
  workspace_sequence: z.number().int().positive(),
  session_id: z.string().nullable(),
  branch_id: z.string().nullable(),
  producer_turn_id: z.string().nullable(),
  origin_turn_id: z.string().nullable(),
  actor_id: z.string().nullable(),
  job_id: z.string().nullable(),
  worktree_id: z.string().nullable(),
  kind: z.enum(['edit', 'revert', 'reapply', 'rewind', 'restore', 'human']),
  status: z.enum(['prepared', 'committed', 'aborted', 'rolled_back', 'recovery_required']),
  created_at_ms: z.number(),
  settled_at_ms: z.number().nullable(),
  recovery_detail: z.string().nullable(),
  files: z.array(ReceiptFile),
})
export type ReceiptView = z.infer<typeof ReceiptSchema>

export const journalTransactions = defineAction('journal.transactions', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      since_sequence: z.number().int().nonnegative().optional(),
      origin_turn_id: z.string().max(200).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    })
    .strict(),
  result: z.object({ transactions: z.array(ReceiptSchema), revision: z.number().int().nonnegative() }),
})
