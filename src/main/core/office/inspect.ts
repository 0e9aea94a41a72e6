import CFB from 'cfb'
import type { OfficeFormat } from '../../../shared/protocol'
import { openPackage, PackageError, scanDocx, type DocxLoss } from '../../../shared/office'
import { formatFromName } from './formats'

/**
 * What an Office file is, before any engine touches it: its real format (by content, the name
 * only breaking ties), whether it is password-protected (OOXML in an encrypted CFB container,
 * legacy Word/Excel/PowerPoint encryption flags, ODF encrypted manifest entries) or damaged, and
 * for DOCX what the built-in editor would lose. Pure over the bytes; nothing is executed.
 */

export type Inspection =
  | { state: 'ok'; format: OfficeFormat; docxLosses?: DocxLoss[] }
  | { state: 'password-protected'; format: OfficeFormat | null; message: string }
  | { state: 'corrupt'; format: OfficeFormat | null; message: string }
  | { state: 'unsupported'; format: OfficeFormat | null; message: string }

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])

export async function inspectOffice(name: string, bytes: Buffer): Promise<Inspection> {
  const byName = formatFromName(name)
  if (bytes.subarray(0, 8).equals(CFB_MAGIC)) return inspectCompound(bytes, byName)
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return inspectZip(bytes, byName)
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

async function inspectZip(bytes: Buffer, byName: OfficeFormat | null): Promise<Inspection> {
  let pkg
  try {
    pkg = await openPackage(bytes)
  } catch (error) {
    if (error instanceof PackageError && error.reason === 'encrypted') {
      return { state: 'password-protected', format: byName, message: 'This document is protected with a password.' }
    }
    return { state: 'corrupt', format: byName, message: damaged(error) }
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
    if (format === 'docx') return { state: 'ok', format, docxLosses: (await scanDocx(bytes)).losses }
    return { state: 'ok', format }
  } catch (error) {
    return { state: 'corrupt', format: byName, message: damaged(error) }
  }
}

function damaged(error: unknown): string {
  return error instanceof PackageError && error.reason === 'too-large'
    ? 'The document expands beyond the size Retrace opens.'
    : 'The document is damaged or incomplete and cannot be opened.'
}

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
