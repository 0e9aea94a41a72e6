import { z } from 'zod'
import { defineAction } from '../define-action'
import { DocumentCountsSchema, DocumentDiffSchema } from '../documents'
import { HeldReasonSchema, SnapshotNoteSchema } from '../parts'

export const ReviewCategory = z.enum(['code', 'tests', 'docs', 'large', 'other'])
export type ReviewCategory = z.infer<typeof ReviewCategory>

export const ReviewFilter = z
  .object({
    category: ReviewCategory.optional(),
    /** Case-insensitive substring of the path (old or new). */
    query: z.string().max(500).optional(),
    operation: z.enum(['create', 'modify', 'delete', 'rename']).optional(),
    diff_state: z.enum(['available', 'large', 'binary', 'timeout']).optional(),
    /** `command`: only the files changed by commands (This turn, from step snapshots). */
    source: z.enum(['turn', 'revert', 'reapply', 'restore', 'human', 'rewind', 'git', 'command']).optional(),
  })
  .strict()

export const ReviewFileSchema = z.object({
  path: z.string(),
  old_path: z.string().nullable(),
  operation: z.enum(['create', 'modify', 'delete', 'rename']),
  category: ReviewCategory,
  /** Exact net line counts, or null when not exact (binary, over the stats budget). */
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
  size: z.number().int().nonnegative(),
  diff_state: z.enum(['available', 'large', 'binary', 'timeout']),
  /**
   * Attribution: where the change came from and who made it. `command`: changed by a command the
   * agent ran (issue 16), seen in the step snapshots; Undo restores them only when the person includes them.
   */
  source: z.enum(['turn', 'revert', 'reapply', 'restore', 'human', 'rewind', 'git', 'command']),
  actor_id: z.string().nullable(),
  producer_turn_id: z.string().nullable(),
  /**
   * How many times the file's recorded chain breaks inside the scope: something outside Retrace
   * (a shell, an editor) wrote it between two recorded changes. The counts and the diff are the net
   * change and include those writes; the attribution above covers only the recorded ones. 0 for
   * workspace (git) rows, where nothing is attributed.
   */
  outside_changes: z.number().int().nonnegative(),
  transaction_ids: z.array(z.string()),
  /** The conversation change sets (per turn and actor) these transactions belong to. */
  change_set_ids: z.array(z.string()),
  /** This turn: the turn's latest restore undid it (Undo or Revert); the row is no longer on disk. */
  undone: z.boolean().optional(),
  /**
   * A DOCX/XLSX/PPTX/PDF row (issue 26): what changed inside it, counted in its own unit
   * (paragraphs, cells, slides, annotations); null when it could not be computed in the list's
   * budget or the file is not readable (the row then shows its sizes).
   */
  document_counts: DocumentCountsSchema.nullable().optional(),
})

export const reviewFiles = defineAction('review.files', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      scope: z.enum(['turn', 'branch', 'workspace']),
      turn_id: z.string().max(200).optional(),
      sub_scope: z.enum(['unstaged', 'staged', 'branch', 'commit']).optional(),
      filter: ReviewFilter.optional(),
      sort: z.enum(['path', 'churn', 'size']).optional(),
      cursor: z.string().max(4_000).optional(),
    })
    .strict(),
  result: z.object({
    snapshot_id: z.string(),
    files: z.array(ReviewFileSchema),
    totals: z.object({
      files: z.number().int().nonnegative(),
      added: z.number().int().nonnegative().nullable(),
      removed: z.number().int().nonnegative().nullable(),
      by_category: z.record(ReviewCategory, z.number().int().nonnegative()),
    }),
    next_cursor: z.string().nullable(),
    page_size: z.number().int().positive(),
    /**
     * This turn, page one (issue 23 "what was not recorded is said"): what the turn's commands
     * changed that is not among the rows. `held`: files changed during a command step that are not
     * the commands' own, never restored unless the person names them — one entry per file, or per
     * folder (`folder: true`, `files` beneath it) for dependency folders and nested repositories;
     * at most REVIEW_HELD_LISTED entries, `held_files` counts them all. `excluded`: files left out of
     * the snapshots; `unrecorded`: why a command step has no snapshot.
     */
    command_notes: z
      .object({
        held: z.array(
          z.object({
            path: z.string(),
            reason: HeldReasonSchema,
            folder: z.boolean(),
            files: z.number().int().positive(),
          }),
        ),
        held_files: z.number().int().nonnegative(),
        excluded: z.array(
          z.object({
            reason: z.enum(['large', 'nested-repository', 'not-unicode']),
            files: z.number().int().positive(),
          }),
        ),
        unrecorded: SnapshotNoteSchema.optional(),
      })
      .optional(),
  }),
})

/** Entries of `command_notes.held` a page carries at most. */
export const REVIEW_HELD_LISTED = 200

/** The largest context a diff may ask for: enough for a whole file at the 64 MiB limit. */
export const REVIEW_CONTEXT_MAX = 10_000_000

export const DiffLineSchema = z.object({
  kind: z.enum(['context', 'add', 'del']),
  text: z.string(),
  /** 1-based line numbers on each side; null on the side the line does not exist. */
  old_line: z.number().int().positive().nullable(),
  new_line: z.number().int().positive().nullable(),
})

export const reviewDiff = defineAction('review.diff', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      snapshot_id: z.string().min(1).max(200),
      path: z.string().min(1).max(4_096),
      cursor: z.string().max(4_000).optional(),
      /** Unchanged lines shown around each change (default 3); Review's "more context". */
      context: z.number().int().min(0).max(REVIEW_CONTEXT_MAX).optional(),
    })
    .strict(),
  result: z.object({
    path: z.string(),
    diff_state: z.enum(['available', 'large', 'binary', 'timeout']),
    /** Hunks of this page; a hunk longer than a page continues on the next one. */
    hunks: z.array(
      z.object({
        old_start: z.number().int().nonnegative(),
        new_start: z.number().int().nonnegative(),
        /** Whether this page continues a hunk begun on an earlier page. */
        continued: z.boolean(),
        lines: z.array(DiffLineSchema),
      }),
    ),
    next_cursor: z.string().nullable(),
    before_size: z.number().int().nonnegative().nullable(),
    after_size: z.number().int().nonnegative().nullable(),
  }),
})

/**
 * One side of a reviewed image, from the blob the snapshot pinned, for a before/after preview of a
 * binary file (spec 07 "a visual preview of before and after").
 */
export const reviewPreview = defineAction('review.preview', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      snapshot_id: z.string().min(1).max(200),
      path: z.string().min(1).max(4_096),
      side: z.enum(['before', 'after']),
      /**
       * Office rows: also the LibreOffice pages of this version (a conversion, seconds on a cold
       * engine); without it the answer never waits for one.
       */
      pages: z.boolean().optional(),
    })
    .strict(),
  result: z.discriminatedUnion('kind', [
    /** `url`: the recorded bytes through the byte transfer (never base64 inside the frame). */
    z.object({ kind: z.literal('image'), mime: z.string(), url: z.string(), size: z.number().int() }),
    /** The renderer draws the first page with its PDF decoder (scripting disabled). */
    z.object({ kind: z.literal('pdf'), url: z.string(), size: z.number().int() }),
    /** Audio or video, played by the browser's own player from the recorded bytes. */
    z.object({ kind: z.literal('media'), mime: z.string(), url: z.string(), size: z.number().int() }),
    /**
     * A DOCX/XLSX/PPTX/ODF version: its bytes for the built-in renderers and, when `pages` was
     * asked, the PDF a LibreOffice engine made of it (page N = slide N of a deck) or why there is none.
     */
    z.object({
      kind: z.literal('office'),
      format: z.enum(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp']),
      mime: z.string(),
      url: z.string(),
      size: z.number().int(),
      pages: z
        .discriminatedUnion('kind', [
          z.object({
            kind: z.literal('pdf'),
            url: z.string(),
            size: z.number().int(),
            engine: z.enum(['libreoffice', 'libreoffice-wasm']),
          }),
          z.object({
            kind: z.literal('unavailable'),
            reason: z.enum([
              'no-engine',
              'password-protected',
              'corrupt',
              'unsupported',
              'conversion-failed',
              'too-large',
            ]),
            message: z.string(),
          }),
        ])
        .optional(),
    }),
    z.object({ kind: z.literal('absent') }),
    z.object({ kind: z.literal('unsupported'), mime: z.string(), size: z.number().int() }),
  ]),
})

/**
 * What changed inside a document row of the same snapshot (issue 26): paragraphs, cells, slides or
 * annotations, computed from the pinned blob pair. `unreadable`: one side is encrypted, damaged or
 * over the limits (the row still has its binary preview).
 */
export const reviewDocument = defineAction('review.document', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      snapshot_id: z.string().min(1).max(200),
      path: z.string().min(1).max(4_096),
    })
    .strict(),
  result: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('diff'), diff: DocumentDiffSchema }),
    z.object({
      kind: z.literal('unreadable'),
      reason: z.enum(['encrypted', 'damaged', 'too-large', 'timeout', 'not-a-document']),
      message: z.string(),
    }),
  ]),
})
