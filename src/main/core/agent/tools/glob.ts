import picomatch from 'picomatch'
import { z } from 'zod'
import { defineTool } from './define-tool'
import { walkFromArg } from './walk'

const MAX_RESULTS = 100
const MAX_SCANNED = 50_000

export const globTool = defineTool({
  name: 'glob',
  kind: 'read',
  description: [
    'Finds files by glob pattern (e.g. "**/*.ts", "src/**/test-*.js"), relative to path (default: the',
    `project root), honouring .gitignore. Returns at most ${MAX_RESULTS} paths, most recently modified first.`,
  ].join(' '),
  input: z.object({ pattern: z.string().min(1), path: z.string().optional() }),
  async execute(input, context) {
    const walked = await walkFromArg(context, input.path, { maxEntries: MAX_SCANNED })
    if (walked.kind === 'answer') return walked.result
    const { start, entries, truncated } = walked
    const matches = picomatch(input.pattern, { dot: true })
    const prefix = start === '' ? '' : `${start}/`
    const found = entries
      .filter((e) => e.kind === 'file' && matches(e.path.slice(prefix.length)))
      .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1))
    if (found.length === 0) return { kind: 'ok', output: `No files match ${input.pattern}.` }
    const shown = found.slice(0, MAX_RESULTS).map((e) => e.path)
    const notes = [
      found.length > MAX_RESULTS ? `… ${found.length - MAX_RESULTS} more; narrow the pattern.` : '',
      truncated ? `(stopped scanning after ${MAX_SCANNED} entries)` : '',
    ].filter(Boolean)
    return { kind: 'ok', output: [...shown, ...notes].join('\n') }
  },
})
