import { fail } from '../../../shared/protocol'

/**
 * The refusal for a project path the kernel would not open for a reason of its own (no descriptors
 * left, a failing disk): never taken for a race or a changed folder (issue 23 item 6). Out of
 * descriptors is named as such, with what the person can do about it.
 */
export function unreachablePath(path: string, code: string, doing: 'read' | 'write' | 'reach' = 'reach') {
  if (code === 'EMFILE' || code === 'ENFILE') {
    return fail(
      'UNAVAILABLE',
      `Retrace could not ${doing} "${path}": the system has run out of open files (${code}).${doing === 'write' ? ' Nothing was written.' : ''} Close other programs or raise the open-file limit, then try again.`,
      { path, reason: 'too-many-open-files', errno: code },
    )
  }
  return fail('UNAVAILABLE', `"${path}" cannot be reached right now (${code}).`, { path, reason: 'io-error', errno: code })
}
