import { MAX_PATTERN_CHARS, type MatchStep } from '../../files'
import type { ToolResult } from './define-tool'
import { STOPPED } from './walk'

// The matcher itself (a worker with a time budget) lives in files/, where the project's content
// search uses it too; the tools' answers for its outcomes stay here.
export {
  DEFAULT_PATTERN_BUDGET_MS,
  MAX_PATTERN_CHARS,
  withPatternMatcher,
  type LineMatch,
  type MatchStep,
  type PatternMatcher,
} from '../../files'

/**
 * The model-facing answer of a step that did not succeed. A timeout says what to change: the usual
 * cause is nested or adjacent unbounded quantifiers, which a backtracking engine explores exponentially.
 */
export function matchFailure(
  step: Exclude<MatchStep<unknown>, { kind: 'ok' }>,
  call: { tool: 'grep' | 'glob'; pattern: string; kind: 'regex' | 'glob'; at?: string },
): ToolResult {
  const shown = call.pattern.length > 200 ? `${call.pattern.slice(0, 200)}…` : call.pattern
  switch (step.kind) {
    case 'invalid':
      return {
        kind: 'error',
        code: 'INVALID_REQUEST',
        message:
          step.what === 'regex'
            ? `Not a valid regular expression: ${step.message}`
            : `Not a valid glob pattern: ${step.message}`,
      }
    case 'timeout':
      return {
        kind: 'error',
        code: 'TIMEOUT',
        message: [
          `${call.tool} stopped: matching ${call.kind === 'regex' ? `/${shown}/` : `"${shown}"`} took longer than`,
          `${step.budgetMs / 1000} s${call.at !== undefined ? ` (while matching ${call.at})` : ''}, so nothing is`,
          'reported. The pattern most likely backtracks catastrophically — nested or repeated unbounded quantifiers such',
          'as (a+)+, (.*)* or *a*a*a*b; simplify it, or narrow path/include.',
        ].join(' '),
      }
    case 'stopped':
      return STOPPED
    case 'failed':
      return { kind: 'error', code: 'INTERNAL', message: `${call.tool} failed: ${step.message}` }
  }
}

/** The characters a pattern argument may have (bounded before anything runs). */
export function checkPatternLength(name: string, pattern: string): ToolResult | undefined {
  if (pattern.length <= MAX_PATTERN_CHARS) return undefined
  return {
    kind: 'error',
    code: 'TOO_LARGE',
    message: `${name} is ${pattern.length} characters long; at most ${MAX_PATTERN_CHARS} are accepted.`,
  }
}
