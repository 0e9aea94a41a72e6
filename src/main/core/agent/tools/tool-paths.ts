import { isAbsolute, relative, sep } from 'node:path'
import { checkRelPath, isForbiddenSegment } from '../../../../shared/paths'
import { fail, ok, type Outcome, type ProtocolError } from '../../../../shared/protocol'
import type { ToolResult } from './define-tool'

/**
 * Models send root-relative or absolute paths; both name a file inside the project. Anything
 * outside the root is refused: the agent writes only inside the project it was opened on.
 */
export function toolPath(root: string, input: string): Outcome<string> {
  let candidate = input.trim()
  if (isAbsolute(candidate)) {
    const rel = relative(root, candidate)
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      return fail(
        'PERMISSION_DENIED',
        `"${input}" is outside the project root ${root}; use a path inside the project.`,
        {
          reason: 'outside-root',
        },
      )
    }
    candidate = rel.split(sep).join('/')
  }
  candidate = candidate.replace(/^(\.\/)+/, '').replace(/\/+$/, '')
  const checked = checkRelPath(candidate)
  if (checked.kind !== 'ok' || candidate === '') {
    return fail(
      'PERMISSION_DENIED',
      `"${input}" is not a file path inside the project (${checked.kind === 'ok' ? 'empty' : checked.reason}).`,
      { reason: 'bad-path' },
    )
  }
  if (checked.segments.some(isForbiddenSegment)) {
    return fail('PERMISSION_DENIED', `"${input}" is inside .git, which tools never touch.`, { reason: 'git-internal' })
  }
  return ok(candidate)
}

export function toolError(outcome: { error: ProtocolError }): ToolResult {
  return { kind: 'error', code: outcome.error.code, message: outcome.error.message }
}
