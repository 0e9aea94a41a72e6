import { failureReason, type ErrorCode, type FailureReasonOf, type ProtocolError } from '../../../shared/protocol'
import { formatBytes, isMessageKey, messageParameters, type Translate } from '../i18n'
// The module itself, not the transport's index: engine-side tests check real failures through this
// file, and the index reaches for `window`.
import type { RequestOutcome } from '../transport/request-client'

export type FailedOutcome = Exclude<RequestOutcome<unknown>, { kind: 'ok' }>

/** The sentence a person sees for a failed request, in the person's language where the catalogue can say it. */
export function failureMessage(outcome: FailedOutcome, t: Translate): string {
  switch (outcome.kind) {
    case 'error':
      return protocolErrorMessage(outcome.error, t)
    case 'timeout':
      return t('explorer.timeout')
    case 'disconnected':
      return t('error.disconnected')
    case 'cancelled':
      return ''
  }
}

/**
 * An engine failure in the catalogue's words, keyed by its code and declared reason, with the
 * failure's details as parameters. The engine's own (English) sentence is the fallback when the
 * catalogue has no such key, or when the details lack a parameter the message names: a sentence
 * with a hole in it would say less than the engine's.
 */
export function protocolErrorMessage(error: ProtocolError, t: Translate): string {
  const reason = failureReason(error)
  if (reason === undefined) return error.message
  const key = `failure.${error.code}.${reason}`
  if (!isMessageKey(key)) return error.message
  const params: Record<string, string | number> = {}
  for (const name of messageParameters(key)) {
    const value = parameterValue(error.details, name)
    if (value === undefined) return error.message
    params[name] = value
  }
  return t(key, params)
}

/**
 * A sentence parameter from the failure's details. The engine sends sizes as byte counts (`limit`,
 * `size`); a parameter named `<detail>Bytes` is that detail in the person's units ("64 MiB"), so
 * the engine's details stay numbers a script can compare.
 */
function parameterValue(details: ProtocolError['details'], name: string): string | number | undefined {
  const bytesOf = name.endsWith('Bytes') ? name.slice(0, -'Bytes'.length) : null
  const value = details?.[bytesOf ?? name]
  if (bytesOf !== null)
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? formatBytes(value) : undefined
  return typeof value === 'string' || typeof value === 'number' ? value : undefined
}

/** Whether an outcome is the engine's failure with this code (and, if given, this declared reason). */
export function isFailure<C extends ErrorCode>(
  outcome: RequestOutcome<unknown>,
  code: C,
  reason?: FailureReasonOf<C>,
): outcome is { kind: 'error'; error: ProtocolError & { code: C } } {
  if (outcome.kind !== 'error' || outcome.error.code !== code) return false
  return reason === undefined || failureReason(outcome.error) === reason
}
