import { z } from 'zod'
import { defineTool } from './define-tool'
import { checkPatternLength, DEFAULT_PATTERN_BUDGET_MS, matchFailure, withPatternMatcher } from './pattern-matcher'
import { walkFromArg, type WalkEntry } from './walk'

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
    const tooLong = checkPatternLength('pattern', input.pattern)
    if (tooLong) return tooLong
    const walked = await walkFromArg(context, input.path, { maxEntries: MAX_SCANNED })
    if (walked.kind === 'answer') return walked.result
    const { start, entries, truncated } = walked
    const prefix = start === '' ? '' : `${start}/`
    const files = entries.filter((entry) => entry.kind === 'file')
    const budgetMs = context.patternBudgetMs ?? DEFAULT_PATTERN_BUDGET_MS
    // picomatch compiles to a backtracking RegExp ("*a*a*a*b" over long names is polynomial with a
    // large exponent), so the matching runs where the call's budget can stop it.
    const matched = await withPatternMatcher({ budgetMs, signal: context.signal }, async (matcher) => {
      const compiled = await matcher.compile({ glob: { pattern: input.pattern, basename: false } })
      if (compiled.kind !== 'ok') return compiled
      return matcher.filter(files.map((entry) => entry.path.slice(prefix.length)))
    })
    if (matched.kind !== 'ok') return matchFailure(matched, { tool: 'glob', pattern: input.pattern, kind: 'glob' })
    const found = matched.result
      .map((index) => files[index] as WalkEntry)
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
