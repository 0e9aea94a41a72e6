import { useCallback, useEffect, useRef, useState } from 'react'
import { useI18n, type MessageKey } from '../i18n'
import type { RequestOutcome } from '../transport'
import { failureMessage, type FailedOutcome } from './outcome-message'

type ActionError =
  /** A request failed; kept as the outcome so the line follows a language switch. */
  | { readonly kind: 'outcome'; readonly outcome: FailedOutcome; readonly frame?: MessageKey }
  /** A check on this side refused before anything was sent. */
  | { readonly kind: 'message'; readonly text: string }

export interface RunOptions {
  /** A catalogue sentence around the failure, given the failure as `{message}` (e.g. "Could not open: {message}"). */
  readonly frame?: MessageKey
}

export interface Action {
  /** A request of this action is in flight. */
  readonly busy: boolean
  /** The last failure in the person's words, or null; a new run clears it. */
  readonly error: string | null
  /**
   * Sends one request and settles `busy` and `error` from its outcome. The signal is aborted when
   * the view unmounts (its answer is then dropped). While one run is in flight another is refused
   * as `cancelled`, so a double click never sends a mutation twice.
   */
  run<R>(send: (signal: AbortSignal) => Promise<RequestOutcome<R>>, options?: RunOptions): Promise<RequestOutcome<R>>
  /** Shows a refusal decided here (a local check) on the action's line; nothing is sent. */
  refuse(text: string): void
  /** Clears the line (the person started over). */
  clear(): void
}

/** busy / error / run for one user action: the one place a view turns a request's failure into a line. */
export function useAction(): Action {
  const { t } = useI18n()
  const [busy, setBusy] = useState(false)
  const [error, setActionError] = useState<ActionError | null>(null)
  const inFlight = useRef(false)
  const unmounted = useRef(new AbortController())

  useEffect(() => {
    const controller = new AbortController()
    unmounted.current = controller
    return () => controller.abort()
  }, [])

  const run = useCallback(
    async <R>(send: (signal: AbortSignal) => Promise<RequestOutcome<R>>, options: RunOptions = {}) => {
      if (inFlight.current) return { kind: 'cancelled' } as const
      const signal = unmounted.current.signal
      inFlight.current = true
      setBusy(true)
      setActionError(null)
      try {
        const outcome = await send(signal)
        if (!signal.aborted && outcome.kind !== 'ok' && outcome.kind !== 'cancelled') {
          setActionError({ kind: 'outcome', outcome, ...(options.frame ? { frame: options.frame } : {}) })
        }
        return outcome
      } finally {
        inFlight.current = false
        if (!signal.aborted) setBusy(false)
      }
    },
    [],
  )

  const refuse = useCallback((text: string) => setActionError({ kind: 'message', text }), [])
  const clear = useCallback(() => setActionError(null), [])

  let message: string | null = null
  if (error?.kind === 'message') message = error.text
  else if (error?.kind === 'outcome') {
    const sentence = failureMessage(error.outcome, t)
    message = error.frame ? t(error.frame, { message: sentence }) : sentence
  }
  return { busy, error: message, run, refuse, clear }
}
