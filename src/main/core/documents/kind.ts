/** The documents the agent's trusted tools read and edit, and how a file is recognised as one (issue 26). */
export type DocumentKind = 'docx' | 'xlsx' | 'pptx' | 'pdf'
export type OoxmlKind = Exclude<DocumentKind, 'pdf'>

/**
 * What a file is to the document tools: a document of a kind, an OOXML document locked with a
 * password (an OLE container under an OOXML name), a format the tools only name (ODF and the
 * legacy binary formats: convert first), or none of these.
 */
export type DocumentSniff =
  | { kind: 'document'; format: DocumentKind }
  | { kind: 'encrypted'; format: OoxmlKind }
  | { kind: 'convert-first'; extension: string; target: OoxmlKind }
  | { kind: 'none' }

const OOXML_EXTENSIONS: Readonly<Record<string, OoxmlKind>> = {
  docx: 'docx',
  docm: 'docx',
  dotx: 'docx',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  xltx: 'xlsx',
  pptx: 'pptx',
  pptm: 'pptx',
  potx: 'pptx',
}

/**
 * ODF and legacy formats, and the OOXML format of their family (what LibreOffice converts them to
 * for `read`). Decision: RTF is not among them — it is text, so `read` shows its source with line
 * numbers and `edit` changes it exactly (a line diff in Review, byte-exact undo); a converted
 * DOCX view would hide the very text those edits are checked against.
 */
const CONVERT_FIRST: Readonly<Record<string, OoxmlKind>> = {
  odt: 'docx',
  ott: 'docx',
  doc: 'docx',
  dot: 'docx',
  ods: 'xlsx',
  ots: 'xlsx',
  xls: 'xlsx',
  xlt: 'xlsx',
  odp: 'pptx',
  otp: 'pptx',
  ppt: 'pptx',
  pot: 'pptx',
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]

const startsWith = (bytes: Uint8Array, magic: readonly number[]) => magic.every((byte, i) => bytes[i] === byte)

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase()
}

/**
 * Whether a path names a document by its extension alone: used where the bytes are not at hand yet
 * (Review rows), the content deciding afterwards.
 */
export function mayBeDocument(path: string): boolean {
  const extension = extensionOf(path)
  return extension === 'pdf' || extension in OOXML_EXTENSIONS
}

/**
 * The content decides and the name breaks ties: `%PDF-` is a PDF whatever its name; a ZIP is an
 * OOXML document of the kind its extension names (the format patchers then check the package's
 * main part and refuse a ZIP that is not one as `wrong-format`); an OLE compound file under an
 * OOXML name is how Office stores a password-protected package. Cheap and synchronous: only the
 * first bytes are looked at, so it runs on the engine's thread.
 */
export function sniffDocument(path: string, bytes: Uint8Array): DocumentSniff {
  const extension = extensionOf(path)
  if (startsWith(bytes, PDF_MAGIC)) return { kind: 'document', format: 'pdf' }
  const ooxml = OOXML_EXTENSIONS[extension]
  if (ooxml !== undefined && startsWith(bytes, ZIP_MAGIC)) return { kind: 'document', format: ooxml }
  if (ooxml !== undefined && startsWith(bytes, OLE_MAGIC)) return { kind: 'encrypted', format: ooxml }
  const target = CONVERT_FIRST[extension]
  if (target !== undefined) return { kind: 'convert-first', extension, target }
  return { kind: 'none' }
}

/** The document kind of a file, or null: encrypted packages and formats to convert first are not kinds. */
export function documentKindOf(path: string, bytes: Uint8Array): DocumentKind | null {
  const sniffed = sniffDocument(path, bytes)
  return sniffed.kind === 'document' ? sniffed.format : null
}
