import { z } from 'zod'
import { DEFAULT_READ_LIMITS, readFile } from '../../files'
import { defineTool } from './define-tool'
import { toolError, toolPath } from './tool-paths'

const DEFAULT_LIMIT = 2_000
const MAX_LINE_CHARS = 2_000

export const readTool = defineTool({
  name: 'read',
  kind: 'read',
  description: [
    'Reads a file of the project. file_path is relative to the project root (or absolute inside it).',
    `Text comes back with 1-based line numbers ("   12\\tline"), at most ${DEFAULT_LIMIT} lines from offset`,
    '(a 1-based line number); lines longer than 2000 characters are cut. Binary files answer their',
    'detected type and size instead. Read a file before you write or edit it: changes are checked',
    'against the version you read and refused if the file changed since.',
  ].join(' '),
  input: z.object({
    file_path: z.string().min(1),
    offset: z.number().int().min(1).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
  }),
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
      return { kind: 'ok', output: `Binary file ${path.path}: ${read.result.mime}, ${read.result.size} bytes.` }
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
