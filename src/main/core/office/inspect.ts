import CFB from 'cfb'
import type { OfficeFormat } from '../../../shared/protocol'
import {
  openPackage,
  PackageError,
  PACKAGE_LIMITS,
  scanDocxPackage,
  type DocxLoss,
  type PackageLimit,
  type PackageLimits,
} from '../../../shared/office'
import { formatFromName } from './formats'

/**
 * What an Office file is, before any engine touches it: its real format (by content, the name
 * only breaking ties), whether it is password-protected (OOXML in an encrypted CFB container,
 * legacy Word/Excel/PowerPoint encryption flags, ODF encrypted manifest entries) or damaged, and
 * for DOCX what the built-in editor would lose. Pure over the bytes; nothing is executed. The
 * engine runs it in a worker (`inspect-runner.ts`) under `INSPECT_LIMITS`.
 */

export type Inspection =
  | { state: 'ok'; format: OfficeFormat; docxLosses?: DocxLoss[] }
  | { state: 'password-protected'; format: OfficeFormat | null; message: string }
  | { state: 'corrupt'; format: OfficeFormat | null; message: string }
  | { state: 'unsupported'; format: OfficeFormat | null; message: string }

/** Which bound stopped an inspection: a package bound, the time budget, or the worker's heap. */
export type InspectionLimit = PackageLimit | 'time' | 'memory'

export type InspectionOutcome =
  | { kind: 'inspected'; inspection: Inspection }
  | { kind: 'refused'; limit: InspectionLimit; value: number; part?: string; message: string }

export interface InspectLimits extends PackageLimits {
  /** Wall time of one inspection, from the moment the worker is handed the bytes. */
  readonly timeMs: number
  /** The worker's V8 heap (decoded XML text lives there). */
  readonly heapMb: number
}

/**
 * Decision: tighter than the patchers' defaults. Inspection reads only small parts (content types,
 * relationships, the ODF manifest) and, for DOCX, the story parts (document, headers, footers,
 * notes, comments) to list what the editor would lose. 64 MiB of WordprocessingML is a document of
 * many thousands of pages; 160 MiB over all story parts leaves room for several such parts. A
 * crafted package past these bounds is refused within about a second, instead of costing minutes
 * and gigabytes.
 */
export const INSPECT_LIMITS: InspectLimits = {
  ...PACKAGE_LIMITS,
  maxPartBytes: 64 * 1024 * 1024,
  maxTotalBytes: 160 * 1024 * 1024,
  timeMs: 20_000,
  heapMb: 512,
}

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])

/** The inspection, or which bound refused it (the worker's entry point). */
export async function inspectWithinLimits(
  name: string,
  bytes: Buffer,
  limits: PackageLimits = INSPECT_LIMITS,
): Promise<InspectionOutcome> {
  try {
    return { kind: 'inspected', inspection: await inspectOffice(name, bytes, limits) }
  } catch (error) {
    if (error instanceof PackageError && error.reason === 'too-large' && error.limit) {
      return {
        kind: 'refused',
        limit: error.limit.kind,
        value: error.limit.value,
        ...(error.limit.part !== undefined ? { part: error.limit.part } : {}),
        message: error.message,
      }
    }
    throw error
  }
}

/** Throws the package's `too-large` PackageError when a bound is crossed. */
export async function inspectOffice(
  name: string,
  bytes: Buffer,
  limits: PackageLimits = INSPECT_LIMITS,
): Promise<Inspection> {
  const byName = formatFromName(name)
  if (bytes.subarray(0, 8).equals(CFB_MAGIC)) return inspectCompound(bytes, byName)
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return inspectZip(bytes, byName, limits)
  if (bytes.subarray(0, 5).toString('latin1') === '{\\rtf') return { state: 'ok', format: 'rtf' }
  if (byName === 'csv') return { state: 'ok', format: 'csv' }
  if (byName !== null) {
    return {
      state: 'corrupt',
      format: byName,
      message: `The file is named like ${byName.toUpperCase()} but its content is not an Office document.`,
    }
  }
  return { state: 'unsupported', format: null, message: 'This is not an Office document.' }
}

function inspectCompound(bytes: Buffer, byName: OfficeFormat | null): Inspection {
  let container: CFB.CFB$Container
  try {
    container = CFB.read(bytes, { type: 'buffer' })
  } catch (error) {
    return { state: 'corrupt', format: byName, message: `The compound file cannot be read (${String(error)}).` }
  }
  const stream = (name: string) => {
    const entry = CFB.find(container, name)
    return entry?.content ? Buffer.from(entry.content as Uint8Array) : undefined
  }
  const locked = (format: OfficeFormat | null): Inspection => ({
    state: 'password-protected',
    format,
    message: 'This document is protected with a password.',
  })
  if (stream('EncryptionInfo') && stream('EncryptedPackage')) {
    // An encrypted OOXML package: the real format is only known from the name.
    return locked(byName === 'docx' || byName === 'xlsx' || byName === 'pptx' ? byName : null)
  }
  const word = stream('WordDocument')
  if (word) {
    // FIB: wIdent 0xA5EC, then flags at 0x0A; fEncrypted is bit 8.
    if (word.length < 12 || word.readUInt16LE(0) !== 0xa5ec) {
      return { state: 'corrupt', format: 'doc', message: 'The Word document header is damaged.' }
    }
    return word.readUInt16LE(0x0a) & 0x0100 ? locked('doc') : { state: 'ok', format: 'doc' }
  }
  const book = stream('Workbook') ?? stream('Book')
  if (book) return hasFilePass(book) ? locked('xls') : { state: 'ok', format: 'xls' }
  if (stream('PowerPoint Document')) {
    const user = stream('Current User')
    // CurrentUserAtom.headerToken: 0xF3D1C4DF marks an encrypted presentation.
    const encrypted =
      (user !== undefined && user.length >= 16 && user.readUInt32LE(12) === 0xf3d1c4df) || !!stream('EncryptedSummary')
    return encrypted ? locked('ppt') : { state: 'ok', format: 'ppt' }
  }
  return {
    state: 'unsupported',
    format: byName,
    message: 'This compound file is not a Word, Excel or PowerPoint document.',
  }
}

/** BIFF8: a FILEPASS record (0x002F) in the workbook globals, before the first sheet's BOF. */
function hasFilePass(book: Buffer): boolean {
  let at = 0
  let bofs = 0
  while (at + 4 <= book.length) {
    const type = book.readUInt16LE(at)
    const length = book.readUInt16LE(at + 2)
    if (type === 0x002f) return true
    if (type === 0x0809 && ++bofs > 1) return false
    at += 4 + length
  }
  return false
}

/** A package past a bound throws its `too-large` PackageError up to `inspectOffice`, which refuses. */
async function inspectZip(bytes: Buffer, byName: OfficeFormat | null, limits: PackageLimits): Promise<Inspection> {
  let pkg
  try {
    pkg = await openPackage(bytes, limits)
  } catch (error) {
    if (error instanceof PackageError && error.reason === 'too-large') throw error
    if (error instanceof PackageError && error.reason === 'encrypted') {
      return { state: 'password-protected', format: byName, message: 'This document is protected with a password.' }
    }
    return { state: 'corrupt', format: byName, message: DAMAGED }
  }
  try {
    if (pkg.has('mimetype')) {
      const mimetype = (await pkg.text('mimetype')).trim()
      const format = ODF_TYPES[mimetype.replace(/-template$/, '')]
      if (!format) return { state: 'unsupported', format: byName, message: `Unknown ODF document type ${mimetype}.` }
      const manifest = await pkg.textOrNull('META-INF/manifest.xml')
      if (manifest?.includes('encryption-data')) {
        return { state: 'password-protected', format, message: 'This document is protected with a password.' }
      }
      return { state: 'ok', format }
    }
    const types = await pkg.textOrNull('[Content_Types].xml')
    if (types === null)
      return { state: 'unsupported', format: byName, message: 'This ZIP file is not an Office document.' }
    const format = OOXML_TYPES.find(([pattern]) => pattern.test(types))?.[1]
    if (!format)
      return {
        state: 'unsupported',
        format: byName,
        message: 'This package is not a Word, Excel or PowerPoint document.',
      }
    if (format === 'docx') return { state: 'ok', format, docxLosses: (await scanDocxPackage(pkg)).losses }
    return { state: 'ok', format }
  } catch (error) {
    if (error instanceof PackageError && error.reason === 'too-large') throw error
    return { state: 'corrupt', format: byName, message: DAMAGED }
  }
}

const DAMAGED = 'The document is damaged or incomplete and cannot be opened.'

const ODF_TYPES: Record<string, OfficeFormat> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
}

const OOXML_TYPES: Array<[RegExp, OfficeFormat]> = [
  [
    /wordprocessingml\.document\.main\+xml|ms-word\.document\.macroEnabled\.main\+xml|wordprocessingml\.template\.main\+xml/,
    'docx',
  ],
  [
    /spreadsheetml\.sheet\.main\+xml|ms-excel\.sheet\.macroEnabled\.main\+xml|spreadsheetml\.template\.main\+xml/,
    'xlsx',
  ],
  [
    /presentationml\.(presentation|slideshow|template)\.main\+xml|ms-powerpoint\.presentation\.macroEnabled\.main\+xml/,
    'pptx',
  ],
]
