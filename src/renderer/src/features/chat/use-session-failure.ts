import { useCallback, useState } from 'react'
import { useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { failureMessage, type FailedOutcome } from '../../ui/outcome-message'

type Line =
  /** Kept as the outcome so the line follows a language switch. */
  { readonly kind: 'outcome'; readonly outcome: FailedOutcome } | { readonly kind: 'text'; readonly text: string }

/**
 * The chat pane's one failure line. It belongs to the session it was said about (null: before a
 * session existed), so switching sessions hides it instead of showing one session's failure on
 * another; several commands (send, stop, /undo, /redo, branches) share it, which is why this is not
 * one `useAction` per command.
 */
export function useSessionFailure() {
  const { t } = useI18n()
  const [shown, show] = useState<{ sessionId: string | null; line: Line } | null>(null)
  const fail = useCallback((sessionId: string | null, outcome: RequestOutcome<unknown>) => {
    if (outcome.kind !== 'ok' && outcome.kind !== 'cancelled') show({ sessionId, line: { kind: 'outcome', outcome } })
  }, [])
  const say = useCallback(
    (sessionId: string | null, text: string) => show({ sessionId, line: { kind: 'text', text } }),
    [],
  )
  const clear = useCallback(() => show(null), [])
  function messageFor(sessionId: string | null): string | null {
    if (shown === null || shown.sessionId !== sessionId) return null
    return shown.line.kind === 'text' ? shown.line.text : failureMessage(shown.line.outcome, t)
  }
  return { fail, say, clear, messageFor }
}
