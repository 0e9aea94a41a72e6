import { readPath } from '../../project-fs'
import picomatch from 'picomatch'
import { z } from 'zod'
import { boundOutput, defineTool } from './define-tool'
import { STOPPED, walkFromArg } from './walk'

const MAX_MATCHES = 100
const MAX_FILE_BYTES = 2 * 1024 * 1024
const MAX_LINE_CHARS = 500
const MAX_SCANNED = 50_000

/** A file's text for searching, or null (binary, too large, or not a regular file any more). */
async function readText(root: string, path: string): Promise<string | null> {
  const read = await readPath(root, path, MAX_FILE_BYTES)
  if (read.kind !== 'regular') return null
  if (read.bytes.subarray(0, 8192).includes(0)) return null
  return read.bytes.toString('utf8')
}

export const grepTool = defineTool({
  name: 'grep',
  kind: 'read',
  description: [
    'Searches file contents with a JavaScript regular expression under path (default: the project root),',
    'honouring .gitignore; include is an optional glob on file paths (e.g. "*.ts" or "src/**/*.py").',
    `Answers "path:line: text" grouped by file, at most ${MAX_MATCHES} matches, lines cut at ${MAX_LINE_CHARS}`,
    'characters; binary files and files over 2 MiB are skipped.',
  ].join(' '),
  input: z.object({ pattern: z.string().min(1), path: z.string().optional(), include: z.string().optional() }),
  async execute(input, context) {
    let regex: RegExp
    try {
      regex = new RegExp(input.pattern)
    } catch (error) {
      return {
        kind: 'error',
        code: 'INVALID_REQUEST',
        message: `Not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`,
      }
    }
    const walked = await walkFromArg(context, input.path, { maxEntries: MAX_SCANNED })
    if (walked.kind === 'answer') return walked.result
    const { entries } = walked
    const include = input.include
      ? picomatch(input.include, { dot: true, basename: !input.include.includes('/') })
      : undefined
    // Path order, not walk order: the same search answers the same way.
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    const lines: string[] = []
    let matches = 0
    let more = false
    for (const entry of entries) {
      if (entry.kind !== 'file' || (include && !include(entry.path))) continue
      if (context.signal.aborted) break
      let text: string | null
      try {
        text = await readText(context.root, entry.path)
      } catch {
        continue
      }
      if (text === null) continue
      const fileLines = text.split('\n')
      let header = false
      for (let i = 0; i < fileLines.length; i++) {
        const line = fileLines[i] ?? ''
        if (!regex.test(line)) continue
        if (matches >= MAX_MATCHES) {
          more = true
          break
        }
        if (!header) {
          if (lines.length > 0) lines.push('')
          header = true
        }
        const cut = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line
        lines.push(`${entry.path}:${i + 1}: ${cut}`)
        matches++
      }
      if (more) break
    }
    if (context.signal.aborted) return STOPPED
    if (matches === 0) return { kind: 'ok', output: `No matches for /${input.pattern}/.` }
    const note = more ? `\n… more than ${MAX_MATCHES} matches; narrow the pattern or the path.` : ''
    return { kind: 'ok', output: boundOutput(`${lines.join('\n')}${note}`) }
  },
})
