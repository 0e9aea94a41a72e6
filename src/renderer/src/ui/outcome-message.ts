import type { Translate } from '../i18n'
import type { RequestOutcome } from '../transport'

/** The sentence a person sees for a failed request; server messages are already human sentences. */
export function failureMessage(outcome: Exclude<RequestOutcome<unknown>, { kind: 'ok' }>, t: Translate): string {
  switch (outcome.kind) {
    case 'error':
      return outcome.error.message
    case 'timeout':
      return t('explorer.timeout')
    case 'disconnected':
      return t('error.disconnected')
    case 'cancelled':
      return ''
  }
}
