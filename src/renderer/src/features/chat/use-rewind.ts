import { useCallback, useEffect, useRef, useState } from 'react'
import type { PayloadOf, ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import type { RequestClient, RequestOutcome } from '../../transport'
import type { RestorePlan } from './types'
import type { Failure } from '../session'

/** history.plan's multi-turn answer: a rewind, Restore branch code, or the Redo of a Rewind. */
export type RewindPlan = Extract<RestorePlan, { kind: 'rewind' }>
export type RewindMode = RewindPlan['mode']
export type ApplyResult = ResultOf<'history.apply'>

/** Where a rewind goes: before a prompt (its turn's `before_turn`) or after a reply. */
export interface RewindTarget {
  readonly turnId: string
  readonly boundary: 'before_turn' | 'after_turn'
  /** The prompt the checkpoint is named by, for the sheet's heading. */
  readonly prompt: string
  /** "Restore branch code" (issue 23 item 13): the active head's code over the files, previewed here too. */
  readonly branchCode?: boolean
}

/** The person's answers to conflicts (issue 23 item 11): paths kept as they are, paths included anyway. */
export interface ConflictChoices {
  readonly keep: readonly string[]
  readonly include: readonly string[]
}

const NO_CHOICES: ConflictChoices = { keep: [], include: [] }

export type RewindState =
  | { readonly kind: 'planning'; readonly progress: { done: number; total: number } | null }
  | { readonly kind: 'planned'; readonly plan: RewindPlan; readonly key: string }
  | {
      readonly kind: 'applying'
      readonly plan: RewindPlan
      readonly key: string
      readonly progress: { done: number; total: number } | null
    }
  | { readonly kind: 'failed'; readonly failure: Failure; readonly plan?: RewindPlan; readonly key?: string }
  | { readonly kind: 'ended'; readonly status: Exclude<ApplyResult['status'], 'committed'> }

const APPLY_TIMEOUT_MS = 180_000

const UNEXPECTED_PLAN = {
  code: 'INTERNAL',
  message: 'The engine answered with a single-turn plan where a rewind was asked for.',
} as const

/** The sheet's state once the engine answered a preview. */
function previewState(outcome: Exclude<RequestOutcome<RestorePlan>, { kind: 'cancelled' }>): RewindState {
  if (outcome.kind !== 'ok') return { kind: 'failed', failure: outcome }
  switch (outcome.result.kind) {
    case 'rewind':
      return { kind: 'planned', plan: outcome.result, key: crypto.randomUUID() }
    case 'turn':
      // A rewind or Restore branch code is always planned as a multi-turn restore.
      return { kind: 'failed', failure: { kind: 'error', error: UNEXPECTED_PLAN } }
  }
}

/** `history.plan` then `history.apply` with one key; the caller decides what a plan that is not ready means. */
export async function planRestore(
  client: RequestClient,
  owner: { project_id: string; session_id: string },
  payload: PayloadOf<'history.plan'>,
): Promise<RequestOutcome<RestorePlan>> {
  return client.request('history.plan', payload, { owner, timeoutMs: APPLY_TIMEOUT_MS })
}

export function applyRestore(
  client: RequestClient,
  owner: { project_id: string; session_id: string },
  plan: RestorePlan,
  key: string,
): Promise<RequestOutcome<ApplyResult>> {
  return client.request(
    'history.apply',
    { plan_hash: plan.plan_hash },
    { owner, idempotencyKey: key, timeoutMs: APPLY_TIMEOUT_MS },
  )
}

/**
 * The impact sheet's state (spec 04 "Multi-turn Rewind"): the server's plan for the chosen mode,
 * re-planned when the mode or the commands box changes, then one apply with the plan's key (a
 * retry after a timeout reuses it, so the restore never runs twice). Progress of a large plan
 * (preflight) and of its apply arrive as `intent.progress` events.
 */
export function useRewind(props: {
  projectId: string
  sessionId: string
  target: RewindTarget
  onApplied: (result: ApplyResult, plan: RewindPlan) => void
}) {
  const client = useClient()
  const [state, setState] = useState<RewindState>({ kind: 'planning', progress: null })
  const [mode, setMode] = useState<RewindMode>('code_and_conversation')
  const [includeCommands, setIncludeCommands] = useState(false)
  const [choices, setChoices] = useState<ConflictChoices>(NO_CHOICES)
  const owner = { project_id: props.projectId, session_id: props.sessionId }
  const current = useRef(0)
  const { turnId, boundary, branchCode } = props.target

  /** Asks for the plan; the answer replaces the state unless a newer preview was asked meanwhile. */
  const fetchPlan = useCallback(
    async (nextMode: RewindMode, commands: boolean, answers: ConflictChoices) => {
      const ticket = ++current.current
      const resolved = {
        ...(answers.keep.length > 0 ? { keep_current: [...answers.keep] } : {}),
        ...(answers.include.length > 0 ? { include_conflicting: [...answers.include] } : {}),
      }
      const outcome = await planRestore(
        client,
        { project_id: props.projectId, session_id: props.sessionId },
        branchCode
          ? { operation: 'align', ...resolved }
          : {
              operation: 'rewind',
              turn_id: turnId,
              boundary,
              mode: nextMode,
              ...(commands && nextMode !== 'conversation' ? { include_commands: true } : {}),
              ...(nextMode !== 'conversation' ? resolved : {}),
            },
      )
      if (ticket !== current.current || outcome.kind === 'cancelled') return
      setState(previewState(outcome))
    },
    [client, props.projectId, props.sessionId, turnId, boundary, branchCode],
  )

  useEffect(() => {
    void fetchPlan('code_and_conversation', false, NO_CHOICES)
  }, [fetchPlan])

  /** A new mode or commands box starts the conflict answers over: they belong to one plan's conflicts. */
  function preview(nextMode: RewindMode, commands: boolean, answers: ConflictChoices = NO_CHOICES) {
    setMode(nextMode)
    setIncludeCommands(commands)
    setChoices(answers)
    setState({ kind: 'planning', progress: null })
    return fetchPlan(nextMode, commands, answers)
  }

  const busy = state.kind === 'planning' || state.kind === 'applying'
  useEffect(() => {
    if (!busy) return
    return client.on('intent.progress', (event) => {
      if (event.session_id !== props.sessionId) return
      const progress = { done: event.done, total: event.total }
      setState((s) =>
        s.kind === 'applying' && event.phase === 'apply'
          ? { ...s, progress }
          : s.kind === 'planning' && event.phase === 'preflight'
            ? { ...s, progress }
            : s,
      )
    })
  }, [client, busy, props.sessionId])

  async function apply(plan: RewindPlan, key: string) {
    setState({ kind: 'applying', plan, key, progress: null })
    const outcome = await applyRestore(client, owner, plan, key)
    if (outcome.kind === 'cancelled') return
    if (outcome.kind !== 'ok') setState({ kind: 'failed', failure: outcome, plan, key })
    else if (outcome.result.status !== 'committed') setState({ kind: 'ended', status: outcome.result.status })
    else props.onApplied(outcome.result, plan)
  }

  return { state, mode, includeCommands, choices, preview, apply }
}
