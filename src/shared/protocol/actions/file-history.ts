import { z } from 'zod'
import { defineAction } from '../define-action'
import { BinaryRead, RelPath, Revision, TextRead } from './files'

/** Versions per page of `files.history`. */
export const HISTORY_PAGE_SIZE = 100

/** How long a pause in saving ends a human editing session (spec 08: "about five minutes"). */
export const EDIT_SESSION_GAP_MS = 5 * 60 * 1000

export const FileVersion = z.object({
  /** Opaque; names one recorded state of the file (a receipt's after, or the original before). */
  version_id: z.string(),
  actor: z.enum(['user', 'agent']),
  /** The conversation an agent version (or an Undo/Revert) was made in; absent for human edits. */
  session_id: z.string().optional(),
  session_title: z.string().optional(),
  session_archived: z.boolean().optional(),
  /** The turn whose receipt this is (agent versions). */
  turn_id: z.string().optional(),
  /** That turn's 1-based position in its conversation ("Agent · turn 4"), counted along its branch. */
  turn_number: z.number().int().positive().optional(),
  transaction_id: z.string(),
  revision: Revision,
  size: z.number().int().nonnegative(),
  created_at_ms: z.number(),
  /**
   * `original`: the content before the first recorded change (the way "back to the original");
   * `edit`: a human editing session (several autosaves) or one agent receipt; `restore`: a version
   * restored from History; `undo`: an Undo/Redo/Revert/Reapply of a turn; `operation`: created,
   * copied or renamed from the explorer; `outside`: what a recorded change found on disk when it
   * differed from the previous version (an edit made outside Retrace).
   */
  source: z.enum(['original', 'edit', 'restore', 'undo', 'operation', 'outside']),
  /** Where the file was at that version (a rename keeps the file's history). */
  path: RelPath,
  /** Saves merged into this version (human editing sessions); 1 otherwise. */
  edits: z.number().int().positive(),
  /** Its bytes are still stored (retention may release an old agent version's bytes). */
  available: z.boolean(),
})
export type FileVersion = z.infer<typeof FileVersion>

/**
 * Spec 08 File History: one file's recorded versions, human and agent, newest first, the original
 * last. Read from the journal's durable records only — never invented from the current file.
 */
export const filesHistory = defineAction('files.history', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath, cursor: z.string().max(4096).optional() }).strict(),
  result: z.object({
    path: RelPath,
    versions: z.array(FileVersion),
    total: z.number().int().nonnegative(),
    next_cursor: z.string().nullable(),
    page_size: z.number().int().positive(),
  }),
})

/** A binary version's bytes come through the byte transfer, like `files.read_bytes`. */
export const BinaryVersionRead = BinaryRead.extend({ url: z.string() })

export const filesReadVersion = defineAction('files.read_version', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath, version_id: z.string().min(1).max(300) }).strict(),
  result: z.discriminatedUnion('kind', [TextRead, BinaryVersionRead]),
})

/**
 * Puts a version back as a new recorded human operation: refused (`CONFLICT`, nothing written)
 * unless the file is still at `expected_revision` (`null`: it must not exist); the content it
 * replaces stays in History, so the restore can itself be undone from there.
 */
export const filesRestoreVersion = defineAction('files.restore_version', {
  scope: 'project',
  mutating: true,
  payload: z
    .object({ path: RelPath, version_id: z.string().min(1).max(300), expected_revision: Revision.nullable() })
    .strict(),
  result: z.object({ transaction_id: z.string(), revision: Revision.nullable() }),
})
