import { z } from 'zod'
import { defineAction } from '../define-action'
import { RelPath, Revision } from './files'

/** Office documents (spec 10): engines per machine, inspection, faithful preview, conversion, the optional bundle. */

export const OfficeFormat = z.enum(['docx', 'pptx', 'xlsx', 'doc', 'ppt', 'xls', 'odt', 'ods', 'odp', 'rtf', 'csv'])
export type OfficeFormat = z.infer<typeof OfficeFormat>

/** `libreoffice-wasm`: LibreOffice compiled to WebAssembly (the optional pack), for machines without `soffice`. */
export const OfficeEngineId = z.enum(['builtin', 'libreoffice', 'libreoffice-wasm', 'onlyoffice'])
export type OfficeEngineId = z.infer<typeof OfficeEngineId>

export const OfficeEngine = z.object({
  id: OfficeEngineId,
  available: z.boolean(),
  version: z.string().optional(),
  /** Why it is unavailable (or what limits it), as a stable code; the renderer words it. */
  reason: z.string().optional(),
  /** Formats it previews; `builtin` previews are approximate except where noted by the renderer. */
  preview: z.array(OfficeFormat),
  edit: z.array(OfficeFormat),
  /** Conversions it can write as a new file: source format → target formats. */
  convert: z.array(z.object({ from: OfficeFormat, to: z.array(OfficeFormat) })).optional(),
  /** The ONLYOFFICE bundle's own origin, once installed and served. */
  origin: z.string().optional(),
  /** The bundle's entry page, relative to `origin` (the manifest's `entry`), once installed. */
  entry: z.string().optional(),
})
export type OfficeEngine = z.infer<typeof OfficeEngine>

export const OfficeBundleOffer = z.object({
  /** Whether this build pins a release that can be installed. */
  pinned: z.boolean(),
  version: z.string().optional(),
  size: z.number().int().positive().optional(),
  licence: z.string().optional(),
  source: z.string().optional(),
  /** An install under way (its progress arrives as `office.install.progress`). */
  install_id: z.string().optional(),
})

/**
 * The LibreOffice WebAssembly pack: offered (`offered: true`) only while no native LibreOffice is
 * found and the pack is not installed. Sizes are the pin's, in bytes.
 */
export const OfficePackOffer = z.object({
  pinned: z.boolean(),
  offered: z.boolean(),
  installed: z.boolean(),
  version: z.string().optional(),
  /** The download (the registry tarball). */
  size: z.number().int().positive().optional(),
  /** On disk once extracted. */
  unpacked_size: z.number().int().positive().optional(),
  licence: z.string().optional(),
  source: z.string().optional(),
  /** An install under way (its progress arrives as `office.pack.progress`). */
  install_id: z.string().optional(),
  /** Why it cannot be installed (unpinned build), in words. */
  reason: z.string().optional(),
})

export const officeStatus = defineAction('office.status', {
  scope: 'app',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.object({ engines: z.array(OfficeEngine), bundle: OfficeBundleOffer, pack: OfficePackOffer }),
})

/** Installs the LibreOffice WebAssembly pack (`office.status` `pack`); as `office.install`, project-owned for its progress. */
export const officePackInstall = defineAction('office.pack_install', {
  scope: 'project',
  mutating: true,
  payload: z.object({}).strict(),
  result: z.object({
    install_id: z.string(),
    state: z.enum(['running', 'installed', 'failed']),
    version: z.string(),
    /** Set when the install failed: a stable code (`digest-mismatch`, `unsafe-entry`, `too-large`, …) and words. */
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
})

/** Project-owned so its progress events reach the window that asked (spec 02: events belong to projects). */
export const officeInstall = defineAction('office.install', {
  scope: 'project',
  mutating: true,
  payload: z.object({}).strict(),
  result: z.object({
    install_id: z.string(),
    state: z.enum(['running', 'installed', 'failed']),
    version: z.string(),
    /** Set when the install failed: a stable code (`digest-mismatch`, `unsafe-entry`, …) and words. */
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
})

export const OfficeDocState = z.enum(['ok', 'password-protected', 'corrupt', 'unsupported'])

export const officeInspect = defineAction('office.inspect', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath }).strict(),
  result: z.object({
    path: RelPath,
    revision: Revision,
    size: z.number().int().nonnegative(),
    format: OfficeFormat.nullable(),
    state: OfficeDocState,
    message: z.string().optional(),
    /** For DOCX: what the built-in editor would lose; non-empty means it opens read-only. */
    docx_losses: z.array(z.object({ feature: z.string(), count: z.number().int().positive() })).optional(),
  }),
})

/** Bytes too large for a protocol message travel through a same-origin URL issued per request. */
export const ByteTicket = z.object({
  url: z.string(),
  mime: z.string(),
  size: z.number().int().nonnegative(),
})

export const officePreview = defineAction('office.preview', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath }).strict(),
  result: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('pdf'),
      path: RelPath,
      /** The source revision the PDF was made from. */
      revision: Revision,
      /** Native LibreOffice, or its WebAssembly pack where none is installed. */
      engine: z.enum(['libreoffice', 'libreoffice-wasm']),
      pdf: ByteTicket,
      cached: z.boolean(),
    }),
    z.object({
      kind: z.literal('unavailable'),
      path: RelPath,
      reason: z.enum(['no-engine', 'password-protected', 'corrupt', 'unsupported', 'conversion-failed']),
      message: z.string(),
    }),
  ]),
})

export const officeConvert = defineAction('office.convert', {
  scope: 'project',
  mutating: true,
  resultPath: 'new',
  payload: z.object({ path: RelPath, to: OfficeFormat }).strict(),
  result: z.object({
    /** The new file; the original is never overwritten. */
    path: RelPath,
    from_revision: Revision,
    transaction_id: z.string(),
    revision: Revision,
  }),
})

/** "Open in LibreOffice" as an external editor (the person's own LibreOffice and profile). */
export const officeOpenExternal = defineAction('office.open_external', {
  scope: 'project',
  mutating: false,
  payload: z.object({ path: RelPath }).strict(),
  result: z.object({ opened: z.literal(true), engine: z.literal('libreoffice') }),
})
