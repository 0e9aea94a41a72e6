import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import {
  transactionStatus,
  type FaultHook,
  type Journal,
  type PlannedChange,
  type Receipt,
  type Workspace,
} from '../journal'
import {
  fingerprintOf,
  inImmediateTransaction,
  statement,
  type BlobStore,
  type Database,
  type IdempotencyClaim,
  type IdempotencyHooks,
  type IdempotentMutations,
} from '../store'
import type { CommandSnapshots } from './plan-commands'
import { planRestore, type PlanEvidence, type RestorePlan, type RestoreRequest } from './plan-restore'
import type { SessionRecord } from './types'

export type IntentStatus = 'applying' | 'committed' | 'rolled_back' | 'recovery_required'

export interface RestoreService {
  plan(
    workspace: Workspace,
    session: SessionRecord,
    request: RestoreRequest,
  ): Promise<Outcome<RestorePlan & { evidence: PlanEvidence }>>
  apply(workspace: Workspace, session: SessionRecord, request: ApplyRequest): Promise<Outcome<ApplyResult>>
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
  const plans = new LRUCache<string, RestoreRequest & { turn_id: string }>({
    max: 500,
    ttl: 30 * 60 * 1000,
  })

  const planFor = (
    workspace: Workspace,
    session: SessionRecord,
    request: RestoreRequest,
    onProgress?: (done: number, total: number) => void,
  ) =>
    planRestore(
      {
        db,
        blobs,
        workspace,
        maxFileBytes: journal.limits.maxFileBytes,
        snapshots: deps.snapshots?.(session, workspace) ?? null,
      },
      session,
      request,
      onProgress,
    )

  function settleIntent(intentId: string, status: IntentStatus, transactionId: string | null): void {
    statement(
      db,
      'UPDATE restore_intents SET status = ?, transaction_id = coalesce(?, transaction_id), settled_at_ms = ? WHERE intent_id = ?',
    ).run(status, transactionId, Date.now(), intentId)
  }

  return {
    async plan(workspace, session, request) {
      const planned = await planFor(workspace, session, request)
      if (planned.kind === 'ok')
        plans.set(planned.result.plan_hash, {
          ...request,
          operation: planned.result.operation,
          turn_id: planned.result.turn_id,
        })
      return planned
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
      return mutations.run<ApplyResult>(claim, (hooks) => applyConfirmed(workspace, session, request, hooks))
    },

    recover: recoverIntents,
  }

  async function applyConfirmed(
    workspace: Workspace,
    session: SessionRecord,
    request: ApplyRequest,
    hooks: IdempotencyHooks<ApplyResult>,
  ): Promise<Outcome<ApplyResult>> {
    const confirmed = plans.get(request.plan_hash)
    if (!confirmed)
      return fail('STALE_PLAN', 'This restore plan is no longer current; preview it again.', {
        plan_hash: request.plan_hash,
      })
    const backwards = confirmed.operation === 'undo' || confirmed.operation === 'revert'

    const intentId = `int_${randomUUID()}`
    // Durable before any file is touched (spec 04 step 2).
    inImmediateTransaction(db, () => {
      statement(db, "INSERT INTO restore_intents VALUES (?, ?, ?, ?, ?, NULL, 'applying', ?, NULL)").run(
        intentId,
        session.session_id,
        confirmed.turn_id,
        confirmed.operation,
        request.plan_hash,
        Date.now(),
      )
    })
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
          })
        }
        const plan = fresh.result
        if (plan.status === 'unavailable') {
          return fail('UNAVAILABLE', 'Some files of this turn cannot be restored exactly.', {
            unavailable: plan.unavailable,
          })
        }
        if (plan.status === 'blocked')
          return fail('BLOCKED', 'This restore is blocked; nothing was written.', { conflicts: plan.conflicts })
        if (plan.actions.length === 0) {
          return fail(
            'UNAVAILABLE',
            'Nothing to restore: only commands changed files in this turn, and they were not included.',
            { reason: 'nothing-to-restore', command_files: plan.impact.command_files },
          )
        }
        const changes: PlannedChange[] = []
        for (const action of plan.actions) {
          const disk = plan.evidence.disks.get(action.path)
          if (!disk)
            return fail('STALE_PLAN', `"${action.path}" was not checked; preview the restore again.`, {
              path: action.path,
            })
          if (action.target.kind === 'absent') {
            changes.push({
              operation: 'delete',
              path: action.path,
              old_path: null,
              before: disk,
              after: { kind: 'absent' },
            })
            continue
          }
          const bytes = plan.evidence.targets.get(action.path)
          if (!bytes) return fail('UNAVAILABLE', `No stored version of "${action.path}".`, { path: action.path })
          changes.push({
            operation: disk.kind === 'absent' ? 'create' : 'modify',
            path: action.path,
            old_path: null,
            before: disk,
            after: { kind: 'regular', bytes, mode: Number.parseInt(action.target.mode, 8) },
          })
        }
        return ok(changes)
      },
      {
        onPublished: (done, total) => request.onProgress?.('apply', done, total),
        onPrepared: (receipt: Receipt) => {
          transactionId = receipt.transaction_id
          statement(db, 'UPDATE restore_intents SET transaction_id = ? WHERE intent_id = ?').run(
            receipt.transaction_id,
            intentId,
          )
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
            statement(db, 'UPDATE branches SET writer_epoch = writer_epoch + 1 WHERE branch_id = ?').run(
              session.active_branch_id,
            )
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

  /** Settles every intent a stopped process left `applying`, from its transaction's status. */
  function recoverIntents(): void {
    const open = statement(
      db,
      "SELECT intent_id, transaction_id FROM restore_intents WHERE status = 'applying'",
    ).all() as Array<{
      intent_id: string
      transaction_id: string | null
    }>
    for (const intent of open) {
      if (intent.transaction_id === null) {
        settleIntent(intent.intent_id, 'rolled_back', null)
        continue
      }
      const settled = transactionStatus(db, intent.transaction_id)
      if (settled === undefined || settled === 'prepared') continue
      const status: IntentStatus =
        settled === 'committed' ? 'committed' : settled === 'recovery_required' ? 'recovery_required' : 'rolled_back'
      settleIntent(intent.intent_id, status, intent.transaction_id)
    }
  }
}
