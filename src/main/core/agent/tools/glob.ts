import picomatch from 'picomatch'
import { z } from 'zod'
import { defineTool } from './define-tool'
import { folderArg } from './folder-arg'
import { toolError } from './tool-paths'
import { STOPPED, walk } from './walk'

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
    const start = await folderArg(context.root, context.dataDir, input.path)
    if (start.kind === 'error') return toolError(start)
    const matches = picomatch(input.pattern, { dot: true })
    const prefix = start.result === '' ? '' : `${start.result}/`
    const { entries, truncated } = await walk({
      root: context.root,
      dataDir: context.dataDir,
      start: start.result,
      signal: context.signal,
      maxEntries: MAX_SCANNED,
    })
    if (context.signal.aborted) return STOPPED
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
