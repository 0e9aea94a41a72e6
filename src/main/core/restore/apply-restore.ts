import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { FaultHook, Journal, Receipt, Workspace } from '../journal'
import { applyEffects, bumpWriterEpoch, StaleEffects, withBranchId, type SessionRecord } from '../conversation'
import {
  fingerprintOf,
  inImmediateTransaction,
  type BlobStore,
  type Database,
  type IdempotencyClaim,
  type IdempotencyHooks,
  type IdempotentMutations,
} from '../store'
import {
  insertRewindIntent,
  insertTurnIntent,
  markEffectsApplied,
  restoreApplying,
  setIntentTransaction,
  settleIntent as settleIntentRow,
  type IntentStatus,
} from './intents'
import type { CommandSnapshots } from './plan-commands'
import { changesOf } from './changes-of'
import { planRestore, type PlannedRestore, type PlanRequest } from './plan'
import { planTurnRestore, type TurnRequest } from './plan-turn'
import { planRewind, type RewindDependencies, type RewindPlan, type RewindRequest } from './plan-rewind'
import type { RestoreAction } from './preflight'
import { recoverIntents } from './recover'

export type { IntentStatus } from './intents'

export interface RestoreService {
  /** A restore's preview (plan.ts), remembered by its hash so an apply knows what was confirmed. */
  plan(
    workspace: Workspace,
    session: SessionRecord,
    request: PlanRequest,
    onProgress?: (done: number, total: number) => void,
  ): Promise<Outcome<PlannedRestore>>
  apply(workspace: Workspace, session: SessionRecord, request: ApplyRequest): Promise<Outcome<ApplyResult>>
  /** The operation of a plan previewed and still current (undefined: unknown or expired plan). */
  operationOf(planHash: string): string | undefined
  /** A previewed multi-turn plan's expected state of a path (undefined: unknown plan or path). */
  expectedOf(planHash: string, path: string): RestoreAction['expected'] | undefined
  /** `apply` under a caller's own idempotency claim (session.align's). */
  applyPlan(
    workspace: Workspace,
    session: SessionRecord,
    request: ApplyRequest,
    hooks: IdempotencyHooks<ApplyResult>,
  ): Promise<Outcome<ApplyResult>>
  /** Settles intents a stopped process left `applying`, from their journal transactions. */
  recover(): void
}

export interface ApplyRequest {
  readonly plan_hash: string
  readonly idempotency_key: string | undefined
  readonly owner_key: string
  readonly onProgress?: (phase: 'preflight' | 'apply', done: number, total: number) => void
}

export interface ApplyResult {
  readonly intent_id: string
  readonly status: IntentStatus
  readonly transaction_id: string | null
  /** Multi-turn restores: the branch active afterwards. */
  readonly branch_id?: string | null
  /** A rewind to before a prompt in a conversation mode: the prompt, for the composer. */
  readonly prompt_text?: string | null
}

type Confirmed = (
  | { readonly kind: 'single'; readonly request: TurnRequest & { turn_id: string } }
  | { readonly kind: 'rewind'; readonly request: RewindRequest }
) & {
  /**
   * What each path of the plan must hold now: a blocked restore's diff compares against it, for a
   * command-made file too (it has no receipt of the turn's to diff against).
   */
  readonly expected: ReadonlyMap<string, RestoreAction['expected']>
}

/**
 * Spec 04 steps 2–6. A confirmed plan is re-planned under nothing but the same inputs: a different
 * hash means something moved (`STALE_PLAN`). The intent is persisted before any file is touched,
 * and the files change as one journal transaction (kind revert/reapply) whose per-file expected
 * and target digests are re-verified at publish, rolled back only where our bytes still are, and
 * settled from those digests after a crash.
 */
export function createRestoreService(deps: {
  db: Database
  blobs: BlobStore
  journal: Journal
  mutations: IdempotentMutations
  fault: FaultHook
  /** The project's step snapshots (issue 16), for restores that include command changes. */
  snapshots?: (session: SessionRecord, workspace: Workspace) => CommandSnapshots | null
}): RestoreService {
  const { db, blobs, journal, mutations, fault } = deps
  // Plans shown to the user, by hash, so apply knows what was confirmed.
  const plans = new LRUCache<string, Confirmed>({
    max: 500,
    ttl: 30 * 60 * 1000,
  })

  /** What every planner reads: the same for a preview, an apply's re-plan and any kind. */
  const depsOf = (workspace: Workspace, session: SessionRecord): RewindDependencies => ({
    db,
    blobs,
    workspace,
    maxFileBytes: journal.limits.maxFileBytes,
    snapshots: deps.snapshots?.(session, workspace) ?? null,
  })
  type Progress = ((done: number, total: number) => void) | undefined
  // An apply re-plans with the planner of the kind it confirmed.
  const planFor = (workspace: Workspace, session: SessionRecord, request: TurnRequest, onProgress?: Progress) =>
    planTurnRestore(depsOf(workspace, session), session, request, onProgress)
  const rewindFor = (workspace: Workspace, session: SessionRecord, request: RewindRequest, onProgress?: Progress) =>
    planRewind(depsOf(workspace, session), session, request, onProgress)

  const settleIntent = (intentId: string, status: IntentStatus, transactionId: string | null) =>
    settleIntentRow(db, intentId, status, transactionId)

  return {
    async plan(workspace, session, request, onProgress) {
      const planned = await planRestore(depsOf(workspace, session), session, request, onProgress)
      if (planned.kind === 'error') return planned
      const shown = planned.result
      switch (shown.kind) {
        case 'turn':
          plans.set(shown.plan_hash, {
            kind: 'single',
            request: { ...request, operation: shown.operation, turn_id: shown.turn_id },
            expected: new Map(shown.actions.map((action) => [action.path, action.expected])),
          })
          break
        case 'rewind':
          plans.set(shown.plan_hash, {
            kind: 'rewind',
            request: request as RewindRequest,
            expected: new Map(shown.actions.map((action) => [action.path, action.expected])),
          })
          break
      }
      return planned
    },

    operationOf(planHash) {
      const confirmed = plans.get(planHash)
      return confirmed?.request.operation
    },

    expectedOf(planHash, path) {
      return plans.get(planHash)?.expected.get(path)
    },

    async apply(workspace, session, request) {
      if (request.idempotency_key === undefined)
        return fail('INVALID_REQUEST', 'history.apply needs an idempotency_key.')
      const claim: IdempotencyClaim = {
        ownerKey: request.owner_key,
        action: 'history.apply',
        key: request.idempotency_key,
        fingerprint: fingerprintOf('history.apply', request.owner_key, { plan_hash: request.plan_hash }, null),
      }
      return mutations.run<ApplyResult>(claim, (hooks) => applyPlan(workspace, session, request, hooks))
    },

    applyPlan,

    recover: () => recoverIntents(db),
  }

  function applyPlan(
    workspace: Workspace,
    session: SessionRecord,
    request: ApplyRequest,
    hooks: IdempotencyHooks<ApplyResult>,
  ): Promise<Outcome<ApplyResult>> {
    const confirmed = plans.get(request.plan_hash)
    if (!confirmed)
      return Promise.resolve(
        fail('STALE_PLAN', 'This restore plan is no longer current; preview it again.', {
          plan_hash: request.plan_hash,
          reason: 'plan-changed',
        }),
      )
    return confirmed.kind === 'single'
      ? applyConfirmed(workspace, session, confirmed.request, request, hooks)
      : applyRewind(workspace, session, confirmed.request, request, hooks)
  }

  async function applyConfirmed(
    workspace: Workspace,
    session: SessionRecord,
    confirmed: TurnRequest & { turn_id: string },
    request: ApplyRequest,
    hooks: IdempotencyHooks<ApplyResult>,
  ): Promise<Outcome<ApplyResult>> {
    const backwards = confirmed.operation === 'undo' || confirmed.operation === 'revert'

    const intentId = `int_${randomUUID()}`
    // Durable before any file is touched (spec 04 step 2).
    inImmediateTransaction(db, () =>
      insertTurnIntent(db, {
        intent_id: intentId,
        session_id: session.session_id,
        turn_id: confirmed.turn_id,
        operation: confirmed.operation,
        plan_hash: request.plan_hash,
      }),
    )
    fault('after-intent')
    let transactionId: string | null = null
    const outcome = await journal.mutate(
      workspace,
      { kind: backwards ? 'revert' : 'reapply', session_id: session.session_id, branch_id: session.active_branch_id },
      // Re-planned under the workspace lock: the preflight that authorises the writes is the one
      // nothing can change before they happen, and its reads feed the writes directly.
      async () => {
        const fresh = await planFor(workspace, session, confirmed, (done, total) =>
          request.onProgress?.('preflight', done, total),
        )
        if (fresh.kind === 'error') return fresh
        if (fresh.result.plan_hash !== request.plan_hash) {
          return fail('STALE_PLAN', 'Something changed since this restore was previewed; preview it again.', {
            plan_hash: request.plan_hash,
            reason: 'plan-changed',
          })
        }
        const plan = fresh.result
        if (plan.status === 'unavailable') {
          return fail('UNAVAILABLE', 'Some files of this turn cannot be restored exactly.', {
            unavailable: plan.unavailable,
            reason: 'not-exact',
          })
        }
        if (plan.status === 'blocked')
          return fail('BLOCKED', 'This restore is blocked; nothing was written.', {
            conflicts: plan.conflicts,
            reason: 'conflicts',
          })
        if (plan.actions.length === 0) {
          return fail(
            'UNAVAILABLE',
            'Nothing to restore: only commands changed files in this turn, and they were not included.',
            { reason: 'nothing-to-restore', command_files: plan.impact.command_files },
          )
        }
        return changesOf(plan.actions, plan.evidence, plan.folders)
      },
      {
        onPublished: (done, total) => request.onProgress?.('apply', done, total),
        onPrepared: (receipt: Receipt) => {
          transactionId = receipt.transaction_id
          setIntentTransaction(db, intentId, receipt.transaction_id)
          hooks.prepared(receipt.transaction_id, {
            intent_id: intentId,
            status: 'committed',
            transaction_id: receipt.transaction_id,
          })
        },
        onSettled: (receipt: Receipt) => {
          if (receipt.status === 'prepared') return
          const result = { intent_id: intentId, status: 'committed' as const, transaction_id: receipt.transaction_id }
          if (receipt.status === 'committed') {
            settleIntent(intentId, 'committed', receipt.transaction_id)
            // Stale asynchronous work on this branch must not write after a restore (spec 04 step 4).
            bumpWriterEpoch(db, session.active_branch_id)
          }
          hooks.settled(receipt.status, result)
        },
      },
    )
    if (outcome.kind === 'ok')
      return ok({ intent_id: intentId, status: 'committed', transaction_id: outcome.result.transaction_id })
    const status: IntentStatus = outcome.error.code === 'RECOVERY_REQUIRED' ? 'recovery_required' : 'rolled_back'
    settleIntent(intentId, status, transactionId)
    return outcome
  }

  /**
   * A multi-turn restore: the same intent → one journal transaction (kind `rewind`) → verify /
   * rollback / recovery as a single-turn one, and the branch effects applied in the SQLite
   * transaction that commits the files — so the conversation moves exactly when the files do.
   * A plan without file actions (conversation only, or code already there) moves the
   * conversation alone, in one SQLite transaction with its idempotency record.
   */
  async function applyRewind(
    workspace: Workspace,
    session: SessionRecord,
    confirmed: RewindRequest,
    request: ApplyRequest,
    hooks: IdempotencyHooks<ApplyResult>,
  ): Promise<Outcome<ApplyResult>> {
    const stale = () =>
      fail('STALE_PLAN', 'Something changed since this restore was previewed; preview it again.', {
        plan_hash: request.plan_hash,
        reason: 'plan-changed',
      })
    const check = (plan: RewindPlan): Outcome<RewindPlan> => {
      if (plan.plan_hash !== request.plan_hash) return stale()
      if (plan.status === 'unavailable')
        return fail('UNAVAILABLE', 'Some files cannot be restored exactly; only the conversation can go back.', {
          unavailable: plan.unavailable,
          reason: 'code-not-exact',
        })
      if (plan.status === 'blocked')
        return fail('BLOCKED', 'This restore is blocked; nothing was written.', {
          conflicts: plan.conflicts,
          reason: 'conflicts',
        })
      return ok(plan)
    }
    const first = await rewindFor(workspace, session, confirmed)
    if (first.kind === 'error') return first
    const checked = check(first.result)
    if (checked.kind === 'error') return checked
    const intentId = `int_${randomUUID()}`
    const effects = withBranchId(first.result.effects)
    const resultOf = (transactionId: string | null): ApplyResult => ({
      intent_id: intentId,
      status: 'committed',
      transaction_id: transactionId,
      branch_id: effects.activate ?? effects.source_branch_id,
      prompt_text: first.result.prompt_text,
    })
    const insertIntent = (status: 'applying' | 'committed') =>
      insertRewindIntent(db, {
        intent_id: intentId,
        session_id: session.session_id,
        turn_id: first.result.turn_id,
        operation: first.result.operation,
        plan_hash: request.plan_hash,
        status,
        mode: first.result.mode,
        effects,
      })

    const folders = first.result.folders
    if (first.result.actions.length === 0 && folders.removed.length === 0 && folders.created.length === 0) {
      // Restore branch code whose every path the person kept still settles the alignment: that
      // choice is the answer the banner asked for (issue 23 walkthrough), not "nothing to do".
      const keptAll = first.result.operation === 'align' && first.result.kept.length > 0
      if (first.result.mode !== 'conversation' && first.result.impact.branch.outcome === 'unchanged' && !keptAll) {
        return fail('UNAVAILABLE', 'Nothing to restore: the files already hold that code.', {
          reason: 'nothing-to-restore',
          command_files: first.result.impact.command_files,
        })
      }
      try {
        return inImmediateTransaction(db, () => {
          if (applyingIntent(session.session_id)) return busy()
          applyEffects(db, session.session_id, effects)
          insertIntent('committed')
          hooks.prepared(intentId, resultOf(null))
          hooks.settled('committed', resultOf(null))
          return ok(resultOf(null))
        })
      } catch (error) {
        if (error instanceof StaleEffects) return stale()
        throw error
      }
    }

    // Durable before any file is touched (spec 04 step 2); a second restore of the session waits.
    const inserted = inImmediateTransaction(db, () => {
      if (applyingIntent(session.session_id)) return busy()
      insertIntent('applying')
      return ok(null)
    })
    if (inserted.kind === 'error') return inserted
    fault('after-intent')
    let transactionId: string | null = null
    let staleEffects = false
    const outcome = await journal.mutate(
      workspace,
      { kind: 'rewind', session_id: session.session_id, branch_id: effects.source_branch_id },
      async () => {
        // Re-planned under the workspace lock: what authorises the writes is what nothing can
        // change before they happen.
        const fresh = await rewindFor(workspace, session, confirmed, (done, total) =>
          request.onProgress?.('preflight', done, total),
        )
        if (fresh.kind === 'error') return fresh
        const again = check(fresh.result)
        if (again.kind === 'error') return again
        return changesOf(fresh.result.actions, fresh.result.evidence, fresh.result.folders)
      },
      {
        onPublished: (done, total) => request.onProgress?.('apply', done, total),
        onPrepared: (receipt: Receipt) => {
          transactionId = receipt.transaction_id
          setIntentTransaction(db, intentId, receipt.transaction_id)
          hooks.prepared(receipt.transaction_id, resultOf(receipt.transaction_id))
        },
        onSettled: (receipt: Receipt) => {
          if (receipt.status === 'prepared') return
          if (receipt.status === 'committed') {
            try {
              applyEffects(db, session.session_id, effects)
            } catch (error) {
              // The conversation moved although nothing should have (turns and restores wait for
              // an applying intent): the files go back (the engine rolls back on this throw).
              if (error instanceof StaleEffects) staleEffects = true
              throw error
            }
            settleIntent(intentId, 'committed', receipt.transaction_id)
            markEffectsApplied(db, intentId)
          }
          hooks.settled(receipt.status, resultOf(receipt.transaction_id))
        },
      },
    )
    if (outcome.kind === 'ok') return ok(resultOf(outcome.result.transaction_id))
    const status: IntentStatus = outcome.error.code === 'RECOVERY_REQUIRED' ? 'recovery_required' : 'rolled_back'
    settleIntent(intentId, status, transactionId)
    if (staleEffects && status === 'rolled_back') return stale()
    return outcome
  }

  function applyingIntent(sessionId: string): boolean {
    return restoreApplying(db, sessionId)
  }
}

const busy = () =>
  fail('BUSY', 'Another restore of this session is being applied; wait for it to finish.', {
    reason: 'restore-applying',
  })
