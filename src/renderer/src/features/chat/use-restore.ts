import { useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import type { RestoreOperation, RestorePlan } from './types'

/** Issue 16: what the person asked to restore besides the journal's exact changes. */
export interface RestoreOptions {
  readonly includeCommands: boolean
  /** Command-changed files edited since, which the person chose to include anyway. */
  readonly includeConflicting: readonly string[]
}

const NO_COMMANDS: RestoreOptions = { includeCommands: false, includeConflicting: [] }
import type { Failure } from '../session'

type ApplyStatus = ResultOf<'history.apply'>['status']

export type RestoreState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'planning'; readonly operation: RestoreOperation }
  /** The server's preview; a `ready` one carries the key its one apply uses. */
  | {
      readonly kind: 'planned'
      readonly plan: RestorePlan
      readonly idempotencyKey: string
      readonly options: RestoreOptions
    }
  | {
      readonly kind: 'applying'
      readonly plan: RestorePlan
      readonly idempotencyKey: string
      readonly progress: { done: number; total: number } | null
    }
  | {
      readonly kind: 'failed'
      readonly operation: RestoreOperation
      readonly failure: Failure
      readonly plan?: RestorePlan
      readonly idempotencyKey?: string
    }
  /** Applied but not committed (rolled back, needs recovery, or still applying elsewhere). */
  | { readonly kind: 'ended'; readonly operation: RestoreOperation; readonly status: Exclude<ApplyStatus, 'committed'> }

/**
 * The turn card's operation a plan answers. A multi-turn plan on a turn card is the Redo of a
 * Rewind (Redo follows the session's last restore, whichever kind it was).
 */
function cardOperation(plan: RestorePlan): RestoreOperation {
  switch (plan.kind) {
    case 'turn':
      return plan.operation
    case 'rewind':
      return 'redo'
  }
}

/**
 * One turn card's restore (spec 04 "Restore transaction"): preview with `history.plan`, confirm
 * with `history.apply` carrying the plan hash. History actions name the session in the owner.
 */
export function useRestore(props: { projectId: string; sessionId: string; turnId: string; onApplied: () => void }) {
  const client = useClient()
  const [state, setState] = useState<RestoreState>({ kind: 'idle' })
  const owner = { project_id: props.projectId, session_id: props.sessionId }
  const applying = state.kind === 'applying'

  useEffect(() => {
    if (!applying) return
    return client.on('intent.progress', (event) => {
      if (event.session_id !== props.sessionId || event.phase !== 'apply') return
      const progress = { done: event.done, total: event.total }
      setState((s) => (s.kind === 'applying' ? { ...s, progress } : s))
    })
  }, [client, applying, props.sessionId])

  async function preview(operation: RestoreOperation, options: RestoreOptions = NO_COMMANDS) {
    setState({ kind: 'planning', operation })
    const outcome = await client.request(
      'history.plan',
      {
        operation,
        turn_id: props.turnId,
        ...(options.includeCommands ? { include_commands: true } : {}),
        ...(options.includeConflicting.length > 0 ? { include_conflicting: [...options.includeConflicting] } : {}),
      },
      { owner },
    )
    if (outcome.kind === 'cancelled') return
    setState(
      outcome.kind === 'ok'
        ? { kind: 'planned', plan: outcome.result, idempotencyKey: crypto.randomUUID(), options }
        : { kind: 'failed', operation, failure: outcome },
    )
  }

  /** A retry after a timeout reuses the plan's key, so the restore can never run twice. */
  async function apply(plan: RestorePlan, idempotencyKey: string) {
    setState({ kind: 'applying', plan, idempotencyKey, progress: null })
    const outcome = await client.request(
      'history.apply',
      { plan_hash: plan.plan_hash },
      { owner, idempotencyKey, timeoutMs: 120_000 },
    )
    if (outcome.kind === 'cancelled') return
    if (outcome.kind !== 'ok') {
      setState({
        kind: 'failed',
        operation: cardOperation(plan),
        failure: outcome,
        plan,
        idempotencyKey,
      })
    } else if (outcome.result.status === 'committed') {
      setState({ kind: 'idle' })
    } else {
      setState({ kind: 'ended', operation: cardOperation(plan), status: outcome.result.status })
    }
    props.onApplied()
  }

  return { state, preview, apply, close: () => setState({ kind: 'idle' }) }
}
