import type { ResultOf } from '../../../shared/protocol'
import type { Inspection } from './inspect'
import type { ConversionFailure } from './libreoffice/types'

/** How a refused inspection or a failed conversion reads as an `office.preview` "unavailable" answer. */
export function unavailable(
  path: string,
  inspection: Exclude<Inspection, { state: 'ok' }>,
): ResultOf<'office.preview'> {
  return {
    kind: 'unavailable',
    path,
    reason: inspection.state === 'password-protected' ? 'password-protected' : inspection.state,
    message: inspection.message,
  }
}

export function conversionUnavailable(
  path: string,
  reason: ConversionFailure,
  message: string,
): Extract<ResultOf<'office.preview'>, { kind: 'unavailable' }> {
  switch (reason) {
    case 'password':
      return {
        kind: 'unavailable',
        path,
        reason: 'password-protected',
        message: 'This document is protected with a password.',
      }
    case 'load-failed':
      return {
        kind: 'unavailable',
        path,
        reason: 'corrupt',
        message: 'LibreOffice could not open this document; it may be damaged.',
      }
    case 'wrong-family':
      return { kind: 'unavailable', path, reason: 'unsupported', message }
    default:
      return { kind: 'unavailable', path, reason: 'conversion-failed', message }
  }
}

export function noEngine(path: string): ResultOf<'office.preview'> {
  return {
    kind: 'unavailable',
    path,
    reason: 'no-engine',
    message: 'A page-faithful preview needs LibreOffice, which is not installed on this machine.',
  }
}
