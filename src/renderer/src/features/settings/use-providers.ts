import { useCallback, useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import type { RequestOutcome } from '../../transport'

export type ProviderListing = ResultOf<'settings.providers'>
type Failure = Exclude<RequestOutcome<unknown>, { kind: 'ok' }>

/** The configured model providers, the active one, first-run suggestions (app-wide, no owner). */
export function useProviders() {
  const client = useClient()
  const [state, setState] = useState<{ listing: ProviderListing | null; failure: Failure | null }>({
    listing: null,
    failure: null,
  })

  const load = useCallback(
    (signal?: AbortSignal) =>
      client.request('settings.providers', {}, { signal }).then((outcome) => {
        if (outcome.kind === 'cancelled') return
        setState((s) =>
          outcome.kind === 'ok' ? { listing: outcome.result, failure: null } : { listing: s.listing, failure: outcome },
        )
      }),
    [client],
  )

  useEffect(() => {
    const controller = new AbortController()
    void load(controller.signal)
    return () => controller.abort()
  }, [load])

  const listing = state.listing
  return {
    listing,
    failure: state.failure,
    /** null until known (or when the listing failed): the composer then does not block sending. */
    hasActiveProvider: listing === null ? null : listing.active_provider_id !== null,
    reload: load,
  }
}
