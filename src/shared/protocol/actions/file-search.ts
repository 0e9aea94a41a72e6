import { z } from 'zod'
import { defineAction } from '../define-action'
import { RelPath } from './files'

/** Results per page of `files.search` (spec 08: paged like directories). */
export const SEARCH_PAGE_SIZE = 100

export const SearchEntry = z.object({
  path: RelPath,
  name: z.string(),
  kind: z.enum(['file', 'dir', 'symlink']),
})
export type SearchEntry = z.infer<typeof SearchEntry>

/**
 * Project search (spec 08): the whole root walked on the server with the explorer's access rules
 * plus `.gitignore`, names and root-relative paths ranked fuzzily (quick open's order), pages of
 * 100 from one server snapshot. `mode: files` (quick open) lists files only, `all` (default, the
 * explorer's search box) folders too. A cursor holds only for the same project, query and mode
 * while the tree's entries are unchanged; otherwise `STALE_SNAPSHOT`.
 */
export const filesSearch = defineAction('files.search', {
  scope: 'project',
  mutating: false,
  payload: z
    .object({
      query: z.string().max(1000),
      mode: z.enum(['files', 'all']).optional(),
      cursor: z.string().max(4096).optional(),
    })
    .strict(),
  result: z.object({
    snapshot_id: z.string(),
    entries: z.array(SearchEntry),
    total: z.number().int().nonnegative(),
    next_cursor: z.string().nullable(),
    page_size: z.number().int().positive(),
    /** The walk stopped at its entry or time bound: results cover part of the project. */
    truncated: z.boolean(),
  }),
})
