import { z } from 'zod'
import { defineAction } from '../define-action'

/** Root-relative path; `''` is the root. Semantic checks (escapes, containment) are the core's. */
export const RelPath = z.string().max(4096)

export const Revision = z.string().regex(/^sha256:[0-9a-f]{64}$/)

export const DirEntry = z.object({
  name: z.string(),
  path: z.string(),
  kind: z.enum(['file', 'dir', 'symlink']),
  size: z.number().int().nonnegative(),
  mtime_ms: z.number(),
})
export type DirEntry = z.infer<typeof DirEntry>

export const DIRECTORY_PAGE_SIZE = 100

export const filesList = defineAction('files.list', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath, cursor: z.string().max(4096).optional() }).strict(),
  result: z.object({
    path: RelPath,
    entries: z.array(DirEntry),
    next_cursor: z.string().nullable(),
    total: z.number().int().nonnegative(),
    page_size: z.number().int().positive(),
  }),
})

export const TextRead = z.object({
  kind: z.literal('text'),
  path: RelPath,
  text: z.string(),
  revision: Revision,
  size: z.number().int().nonnegative(),
})
export const BinaryRead = z.object({
  kind: z.literal('binary'),
  path: RelPath,
  mime: z.string(),
  revision: Revision,
  size: z.number().int().nonnegative(),
})
export type FileRead = z.infer<typeof TextRead> | z.infer<typeof BinaryRead>

export const filesRead = defineAction('files.read', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath }).strict(),
  result: z.discriminatedUnion('kind', [TextRead, BinaryRead]),
})

const MutationResult = z.object({ transaction_id: z.string(), revision: Revision.nullable() })

/** Human saves and explorer operations: trusted mutations with `kind: human` (spec 08). */
export const filesWrite = defineAction('files.write', {
  scope: 'project',
  mutating: true,
  payload: z
    .object({
      path: RelPath,
      content: z.string().optional(),
      content_base64: z.string().optional(),
      /** The revision the editor started from; `null` means "the file must not exist yet". */
      expected_revision: Revision.nullable(),
      /**
       * The editor's editing session (a new one after a document switch, a close or a restore):
       * File History merges a session's saves into one version. Not part of the fingerprint.
       */
      edit_session_id: z.string().min(1).max(100).optional(),
    })
    .strict(),
  result: MutationResult,
})

export const filesCreate = defineAction('files.create', {
  scope: 'project',
  mutating: true,
  payload: z.object({ path: RelPath, kind: z.enum(['file', 'dir']), content: z.string().optional() }).strict(),
  result: MutationResult,
})

export const filesRename = defineAction('files.rename', {
  scope: 'project',
  mutating: true,
  payload: z.object({ from: RelPath, to: RelPath, expected_revision: Revision }).strict(),
  result: MutationResult,
})

export const filesCopy = defineAction('files.copy', {
  scope: 'project',
  mutating: true,
  payload: z.object({ from: RelPath, to: RelPath }).strict(),
  result: MutationResult,
})

export const filesDelete = defineAction('files.delete', {
  scope: 'project',
  mutating: true,
  /** `null` deletes an empty folder (folders have no content revision). */
  payload: z.object({ path: RelPath, expected_revision: Revision.nullable() }).strict(),
  result: MutationResult,
})

/**
 * The bytes of a project file for an adapter (PDF, image, media, Office): not in a JSON frame but
 * at `url`, a short-lived same-origin path that serves exactly `revision` (HTTP 409 once the file
 * changed) and honours `Range`.
 */
export const filesReadBytes = defineAction('files.read_bytes', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath }).strict(),
  result: z.object({
    path: RelPath,
    url: z.string(),
    revision: Revision,
    size: z.number().int().nonnegative(),
    mime: z.string(),
  }),
})
