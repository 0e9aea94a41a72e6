import { z } from 'zod'
import { defineAction } from '../define-action'
import { RelPath } from './files'

/** Files (each with its matches) per page of `files.search_content`. */
export const CONTENT_SEARCH_PAGE_SIZE = 50

/** Bounds of one query, checked before anything runs (hostile input). */
export const CONTENT_SEARCH_LIMITS = {
  queryChars: 1000,
  globs: 32,
  globChars: 500,
} as const

/** One matching line: where it is, and a preview with the matches to highlight. */
export const ContentMatch = z.object({
  /** 1-based line number. */
  line: z.number().int().positive(),
  /** 1-based column of the line's first match, in UTF-16 code units of the whole line. */
  column: z.number().int().positive(),
  /** The line, cut to a bounded window that starts a little before the first match. */
  preview: z.string(),
  /** True when the preview does not start at the line's first character. */
  preview_cut: z.boolean(),
  /** The matches within `preview`: [start, end) in UTF-16 code units. */
  ranges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
})
export type ContentMatch = z.infer<typeof ContentMatch>

export const ContentFileMatches = z.object({
  path: RelPath,
  matches: z.array(ContentMatch),
  /** The file has more matching lines than are listed (the per-file bound). */
  more: z.boolean(),
})
export type ContentFileMatches = z.infer<typeof ContentFileMatches>

/**
 * Why a search ended before it had looked at every file, or null when it did.
 * `superseded`: a newer query of the same project replaced it; `limit`: the result bound;
 * `time`: the total time bound.
 */
export const ContentSearchStop = z.enum(['superseded', 'limit', 'time']).nullable()
export type ContentSearchStop = z.infer<typeof ContentSearchStop>

/**
 * Content search (issue 25): the text of the project's files, as VS Code's search view finds it —
 * literal (default), `regex` (JavaScript syntax), `whole_word`, `match_case`; `include` / `exclude`
 * globs; `.gitignore`, `info/exclude` and the global excludes file respected; binary files and files
 * over 2 MiB skipped. Results are files with their matching lines, in pages of 50 files from one
 * server-side search: the first page answers as soon as 50 files matched (or the search ended) and
 * the rest keeps streaming into the same snapshot, which later pages read through their cursor.
 * A new first-page query of the same project stops the one still running (`stopped: superseded`).
 */
export const filesSearchContent = defineAction('files.search_content', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      query: z.string().min(1).max(CONTENT_SEARCH_LIMITS.queryChars),
      regex: z.boolean().optional(),
      whole_word: z.boolean().optional(),
      match_case: z.boolean().optional(),
      include: z
        .array(z.string().min(1).max(CONTENT_SEARCH_LIMITS.globChars))
        .max(CONTENT_SEARCH_LIMITS.globs)
        .optional(),
      exclude: z
        .array(z.string().min(1).max(CONTENT_SEARCH_LIMITS.globChars))
        .max(CONTENT_SEARCH_LIMITS.globs)
        .optional(),
      cursor: z.string().max(4096).optional(),
    })
    .strict(),
  result: z.object({
    snapshot_id: z.string(),
    files: z.array(ContentFileMatches),
    next_cursor: z.string().nullable(),
    page_size: z.number().int().positive(),
    /** The search has ended: no file will be added to this snapshot any more. */
    done: z.boolean(),
    stopped: ContentSearchStop,
    /** What searched: the ripgrep binary, or the built-in walk (when no ripgrep runs here). */
    engine: z.enum(['ripgrep', 'walk']),
  }),
})
