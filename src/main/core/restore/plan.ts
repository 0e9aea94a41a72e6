import { fail, ok, type Outcome, type PayloadOf } from '../../../shared/protocol'
import type { SessionRecord } from '../conversation'
import type { Database } from '../store'
import { lastRestore } from './intents'
import { planRewind, type RewindDependencies, type RewindPlan, type RewindRequest } from './plan-rewind'
import { planTurnRestore, type TurnPlan, type TurnRequest } from './plan-turn'
import type { PlanEvidence } from './preflight'

/**
 * The one restore planner (spec 04 step 1, read-only). Undo, Revert, Reapply and the Redo of an
 * Undo act on one turn (plan-turn.ts): their changes are that turn's receipts folded, checked for
 * later changes of the same files, and their commands are the one-turn case of the multi-turn
 * command plan. Rewind, its /redo, Restore branch code and the Redo of a Rewind move the files
 * between two conversation nodes (plan-rewind.ts, transition.ts) and carry branch effects. Both
 * share the command merge (plan-commands.ts), the preflight (preflight.ts), the folders, the
 * status and the hash (plan-shared.ts). Where they differ on purpose, the difference is named
 * there: a single-turn restore is blocked by a later change that still stands (`later-mutation`),
 * a rewind by what the turns left (`outside_last`) and answers it with keep_current /
 * include_conflicting.
 */
export type PlanRequest = ({ readonly kind: 'turn' } & TurnRequest) | ({ readonly kind: 'rewind' } & RewindRequest)

export type RestorePlan = TurnPlan | RewindPlan
export type PlannedRestore = (TurnPlan | RewindPlan) & { readonly evidence: PlanEvidence }

/** Which planner a `history.plan` payload is for. Redo follows the session's last restore. */
export function planRequestOf(
  db: Database,
  session: SessionRecord,
  payload: PayloadOf<'history.plan'>,
): Outcome<PlanRequest> {
  const operation = payload.operation
  if (operation === 'rewind' || operation === 'unrewind' || operation === 'align') {
    return ok({ kind: 'rewind', ...payload, operation })
  }
  // A Rewind's Redo moves the conversation back too: it is the multi-turn inverse.
  if (operation === 'redo' && lastRestore(db, session.session_id)?.operation === 'rewind') {
    return ok({ kind: 'rewind', ...payload, operation })
  }
  if (
    payload.mode !== undefined ||
    payload.boundary !== undefined ||
    payload.steps !== undefined ||
    payload.keep_current !== undefined
  ) {
    return fail('INVALID_REQUEST', 'mode, boundary, steps and keep_current belong to multi-turn restores.')
  }
  return ok({
    kind: 'turn',
    operation,
    turn_id: payload.turn_id,
    include_commands: payload.include_commands,
    include_conflicting: payload.include_conflicting,
  })
}

export async function planRestore(
  deps: RewindDependencies,
  session: SessionRecord,
  request: PlanRequest,
  onProgress?: (done: number, total: number) => void,
): Promise<Outcome<PlannedRestore>> {
  switch (request.kind) {
    case 'turn':
      return planTurnRestore(deps, session, request, onProgress)
    case 'rewind':
      return planRewind(deps, session, request, onProgress)
  }
}

/** A plan as the protocol shows it: what the engine re-checks at apply stays in the engine. */
export function publicPlan(planned: PlannedRestore) {
  switch (planned.kind) {
    case 'turn': {
      const { session_id: _s, workspace_revision: _r, head_version: _h, evidence: _e, ...shown } = planned
      return shown
    }
    case 'rewind': {
      const {
        session_id: _s,
        workspace_revision: _r,
        head_version: _h,
        evidence: _e,
        effects: _effects,
        ...shown
      } = planned
      return shown
    }
  }
}
