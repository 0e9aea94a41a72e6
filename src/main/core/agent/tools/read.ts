import { z } from 'zod'
import { DOCUMENT_READ_MAX_CHARS } from '../../../../shared/office/document-edits'
import { failureReason } from '../../../../shared/protocol'
import { DEFAULT_READ_LIMITS, openForRead, readFile } from '../../files'
import { mayBeDocument, sniffDocument } from '../../documents'
import { readToEnd } from '../../project-fs'
import { digestOf } from '../../store'
import { boundOutput, defineTool, type ToolContext, type ToolResult } from './define-tool'
import { toolError, toolPath } from './tool-paths'

const DEFAULT_LIMIT = 2_000
const MAX_LINE_CHARS = 2_000

const ReadInput = z.object({
  file_path: z.string().min(1),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
  range: z.string().min(1).max(300).optional(),
})
type ReadInput = z.infer<typeof ReadInput>

/**
 * A DOCX, XLSX, PPTX or PDF: the format's text view with the anchors `office_edit` and
 * `pdf_annotate` take (issue 26). The bytes are read again and must be the very revision recorded
 * as the baseline, so the view the model acts on is the version its edits are checked against.
 */
async function readDocument(
  context: ToolContext,
  path: string,
  revision: string,
  input: ReadInput,
): Promise<ToolResult | null> {
  const documents = context.documents
  if (!documents) return null
  const opened = await openForRead({ root: context.root, dataDir: context.dataDir }, path)
  if (opened.kind === 'error') return toolError(opened)
  const target = opened.result
  let bytes: Buffer | 'too-large'
  try {
    if (target.kind !== 'file') return null
    bytes = await readToEnd(target.fd, target.size, DEFAULT_READ_LIMITS.maxReadBytes)
  } finally {
    target.close()
  }
  if (bytes === 'too-large' || digestOf(bytes) !== revision) {
    return {
      kind: 'error',
      code: 'CONFLICT',
      message: `"${path}" changed while it was read; read it again.`,
    }
  }
  const view = await documents.read(path, bytes, {
    ...(input.offset !== undefined ? { offset: input.offset } : {}),
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
    ...(input.range !== undefined ? { range: input.range } : {}),
  })
  if (view === null) return null
  // No engine to convert an ODF or legacy document with: the caller answers its type and the hint.
  if (view.kind === 'error' && failureReason(view.error) === 'convert-first') return null
  if (view.kind === 'error') return toolError(view)
  return { kind: 'ok', output: boundOutput(view.result, DOCUMENT_READ_MAX_CHARS) }
}

export const readTool = defineTool({
  name: 'read',
  kind: 'read',
  description: [
    'Reads a file of the project. file_path is relative to the project root (or absolute inside it).',
    `Text comes back with 1-based line numbers ("   12\\tline"), at most ${DEFAULT_LIMIT} lines from offset`,
    '(a 1-based line number); lines longer than 2000 characters are cut.',
    'DOCX, PPTX, XLSX and PDF files come back as a text view with anchors: DOCX paragraphs `p12` and table cells',
    '`t2.r3.c1` (headings marked), PPTX shapes `s3.sh5`, XLSX cells by address with values and formulas, PDF',
    'pages with their text and annotation ids. offset/limit then count paragraphs, slides, rows or pages; for XLSX,',
    'range picks a sheet or cells ("Sheet1!A1:F200", "A1:F200" or a sheet name). Change documents with office_edit',
    '(DOCX/PPTX/XLSX) or pdf_annotate (PDF), never with write. ODT/ODS/ODP and DOC/XLS/PPT come back, where',
    "LibreOffice is available, as the view of LibreOffice's DOCX/XLSX/PPTX copy (its anchors are for reading only;",
    'office_edit needs the file converted first). Other binary files answer their detected type and',
    'size. Read a file before you write or edit it: changes are checked against the version you read and refused',
    'if the file changed since.',
  ].join(' '),
  input: ReadInput,
  async execute(input, context) {
    const checked = toolPath(context.root, input.file_path)
    if (checked.kind === 'error') return toolError(checked)
    const path = { path: checked.result }
    const read = await readFile({ root: context.root, dataDir: context.dataDir }, path.path, DEFAULT_READ_LIMITS)
    if (read.kind === 'error') {
      if (read.error.code === 'NOT_FOUND') context.reads.set(path.path, null)
      return { kind: 'error', code: read.error.code, message: read.error.message }
    }
    context.reads.set(path.path, read.result.revision)
    if (read.result.kind === 'binary') {
      const plain = `Binary file ${path.path}: ${read.result.mime}, ${read.result.size} bytes.`
      if (sniffDocument(path.path, new Uint8Array()).kind === 'convert-first') {
        // ODF and legacy documents: LibreOffice's OOXML copy shown as that format's view where an
        // engine is available; without one, the type, size and how to convert.
        const converted = await readDocument(context, path.path, read.result.revision, input)
        if (converted !== null) return converted
        return {
          kind: 'ok',
          output: `${plain} Only DOCX, XLSX, PPTX and PDF are read as documents: convert it to OOXML first (e.g. soffice --headless --convert-to docx) and read the converted file.`,
        }
      }
      if (mayBeDocument(path.path) || read.result.mime === 'application/pdf') {
        const document = await readDocument(context, path.path, read.result.revision, input)
        if (document !== null) return document
      }
      return { kind: 'ok', output: plain }
    }
    const lines = read.result.text.split('\n')
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
    const start = (input.offset ?? 1) - 1
    const end = Math.min(lines.length, start + (input.limit ?? DEFAULT_LIMIT))
    if (read.result.text === '') return { kind: 'ok', output: `${path.path} is empty.` }
    if (start >= lines.length) {
      return { kind: 'error', code: 'INVALID_REQUEST', message: `${path.path} has only ${lines.length} lines.` }
    }
    const width = String(end).length
    const body = lines
      .slice(start, end)
      .map((line, i) => {
        const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut]` : line
        return `${String(start + i + 1).padStart(width, ' ')}\t${cut}`
      })
      .join('\n')
    const more = end < lines.length ? `\n… ${lines.length - end} more lines; read again with offset=${end + 1}.` : ''
    return { kind: 'ok', output: body + more }
  },
})
