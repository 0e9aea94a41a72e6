import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import { alignmentOf, keepFiles, type CodePort, type ConversationModule, type SessionRecord } from '../conversation'
import type { DocumentsModule } from '../documents'
import type { EventBus } from '../events'
import type { FaultHook, JournalModule, Workspace } from '../journal'
import { fingerprintOf, inImmediateTransaction, type IdempotencyHooks } from '../store'
import { createRestoreService, type ApplyResult } from './apply-restore'
import { codeDiffers } from './code'
import { conflictDiff, type ConflictDiffDependencies } from './conflict-diff'
import { deleteSessionIntents, restoreApplying } from './intents'
import { planRequestOf, publicPlan } from './plan'
import type { CommandSnapshots } from './plan-commands'
import { createRestoreDocumentDiffs, RESTORE_DOCUMENT_BUDGET_MS } from './plan-documents'
import { restoreOffers } from './plan-turn'
import { materializeWorktree } from './worktree'

type RestoreActions = 'history.plan' | 'history.apply' | 'history.conflict_diff' | 'session.align'

export interface RestoreModule {
  readonly actions: ModuleActions<RestoreActions>
  /** Settles restore intents a stopped process left applying (after journal recovery). */
  recover(): void
  /** A purged session's intents go with it. */
  forgetSession(sessionId: string): void
}

/**
 * What the conversation asks of restore/ (conversation/module.ts `CodePort`): built from the
 * journal's store alone, so the composition root can hand it to the conversation module before
 * this one exists.
 */
export function createCodePort(deps: { journal: JournalModule }): CodePort {
  const { db, blobs } = deps.journal.store
  return {
    restoreApplying: (sessionId) => restoreApplying(db, sessionId),
    restoreOffers: (session) => restoreOffers(db, session),
    codeDiffers: (session) => codeDiffers(db, session),
    materializeWorktree: (session, project, nodeId) =>
      materializeWorktree(
        { db, blobs, workspaceIdOf: (p) => deps.journal.workspaceOf(p).workspace_id },
        session,
        project,
        nodeId,
      ),
  }
}

/**
 * Spec 04's restores: single-turn Undo / Redo / Revert / Reapply and multi-turn Rewind, planned
 * read-only and applied as one journal transaction behind a durable intent (the restore_intents
 * table is this module's alone), the blocked-restore diff, and the alignment choice (keep the
 * files, or restore the branch's code).
 */
export function createRestoreModule(deps: {
  journal: JournalModule
  conversation: ConversationModule
  events: EventBus
  fault: FaultHook
  snapshotsOf: (projectId: string, root: string) => CommandSnapshots
  diff: ConflictDiffDependencies['diff']
  /** Issue 26: with it, a preview shows what changes inside each DOCX, XLSX, PPTX or PDF it writes. */
  documents?: DocumentsModule | undefined
  /** The time one preview may spend on its document diffs together (tests on a loaded machine raise it). */
  documentBudgetMs?: number | undefined
}): RestoreModule {
  const { journal, events, conversation } = deps
  const { db, blobs } = journal.store
  const limits = journal.store.journal.limits
  const restore = createRestoreService({
    db,
    blobs,
    journal: journal.store.journal,
    mutations: journal.mutations,
    fault: deps.fault,
    snapshots: (session, workspace) => deps.snapshotsOf(session.project_id, workspace.root),
  })
  const documentDiffs = deps.documents && createRestoreDocumentDiffs(deps.documents)
  const fresh = (session: SessionRecord): SessionRecord => {
    const current = conversation.getSession(session.project_id, session.session_id)
    if (current.kind === 'error') throw new Error(`session ${session.session_id} disappeared`)
    return current.result
  }
  const ownerOf = (session: SessionRecord) => ({ project_id: session.project_id, session_id: session.session_id })
  const progress = (session: SessionRecord, phase: 'preflight' | 'apply') => (done: number, total: number) =>
    events.emit('intent.progress', ownerOf(session), { session_id: session.session_id, phase, done, total })

  const actions: ModuleActions<RestoreActions> = {
    'history.plan': async (payload, context) => {
      const session = conversation.sessionOf(context)
      if (session.kind === 'error') return session
      const request = planRequestOf(db, session.result, payload)
      if (request.kind === 'error') return request
      const planned = await restore.plan(
        journal.workspaceOf(context.project),
        session.result,
        request.result,
        // A turn card's preview shows no progress; the rewind sheet's does.
        request.result.kind === 'rewind' ? progress(session.result, 'preflight') : undefined,
      )
      if (planned.kind === 'error') return planned
      // Every plan kind passes here once, after its hash is fixed: what is shown inside documents
      // is never part of what an apply re-checks.
      const documents = await documentDiffs?.of(planned.result, deps.documentBudgetMs ?? RESTORE_DOCUMENT_BUDGET_MS)
      return ok({ ...publicPlan(planned.result), ...(documents && documents.length > 0 ? { documents } : {}) })
    },
    'history.apply': async ({ plan_hash }, context) => {
      const session = conversation.sessionOf(context)
      if (session.kind === 'error') return session
      const workspace = journal.workspaceOf(context.project)
      const applied = await restore.apply(workspace, session.result, {
        plan_hash,
        idempotency_key: context.idempotencyKey,
        owner_key: `${context.project.project_id}/${session.result.session_id}`,
        onProgress: (phase, done, total) => progress(session.result, phase)(done, total),
      })
      afterApply(workspace, session.result, applied)
      return applied
    },
    'history.conflict_diff': async (payload, context) => {
      const session = conversation.sessionOf(context)
      if (session.kind === 'error') return session
      let planned: ReturnType<typeof restore.expectedOf>
      if (payload.plan_hash !== undefined) {
        planned = restore.expectedOf(payload.plan_hash, payload.path)
        if (planned === undefined) {
          return fail('STALE_PLAN', 'This restore plan is no longer current; preview it again.', {
            plan_hash: payload.plan_hash,
            reason: 'plan-changed',
          })
        }
      }
      return conflictDiff(
        {
          db,
          blobs,
          workspace: journal.workspaceOf(context.project),
          maxFileBytes: limits.maxFileBytes,
          diff: deps.diff,
        },
        session.result,
        payload,
        planned,
      )
    },
    'session.align': async (payload, context) => {
      const session = conversation.getSession(context.project.project_id, payload.session_id)
      if (session.kind === 'error') return session
      if (context.idempotencyKey === undefined)
        return fail('INVALID_REQUEST', 'session.align needs an idempotency_key.')
      const ownerKey = `${context.project.project_id}/${payload.session_id}`
      const claim = {
        ownerKey,
        action: 'session.align',
        key: context.idempotencyKey,
        fingerprint: fingerprintOf('session.align', ownerKey, payload, null),
      }
      const workspace = journal.workspaceOf(context.project)
      const outcome = await journal.mutations.run<AlignResult>(claim, (hooks) =>
        payload.decision === 'keep'
          ? Promise.resolve(keep(session.result, payload, hooks))
          : restoreBranchCode(workspace, session.result, payload, hooks),
      )
      if (outcome.kind === 'error') return outcome
      conversation.announce(session.result)
      return ok({ ...outcome.result, session: conversation.publicSession(fresh(session.result)) })
    },
  }

  function afterApply(workspace: Workspace, session: SessionRecord, applied: Outcome<ApplyResult>): void {
    if (applied.kind !== 'ok') return
    // Which turn actions are executable changed: turn cards refetch on this.
    conversation.announce(session)
    if (applied.result.transaction_id) journal.announceTransaction(workspace, applied.result.transaction_id)
  }

  type AlignResult = { status: 'aligned' | 'committed' | 'rolled_back' | 'recovery_required'; intent_id: string | null }
  function keep(
    session: SessionRecord,
    payload: { expected_source: string; expected_target: string },
    hooks: IdempotencyHooks<AlignResult>,
  ): Outcome<AlignResult> {
    return inImmediateTransaction(db, () => {
      const kept = keepFiles(
        db,
        fresh(session),
        { source: payload.expected_source, target: payload.expected_target },
        (sessionId) => restoreApplying(db, sessionId),
      )
      if (kept.kind === 'error') return kept
      const result: AlignResult = { status: 'aligned', intent_id: null }
      hooks.prepared(`align_${session.session_id}_${Date.now()}`, result)
      hooks.settled('committed', result)
      return ok(result)
    })
  }

  async function restoreBranchCode(
    workspace: Workspace,
    session: SessionRecord,
    payload: { expected_source: string; expected_target: string; plan_hash?: string | undefined },
    hooks: IdempotencyHooks<AlignResult>,
  ): Promise<Outcome<AlignResult>> {
    const alignment = alignmentOf(db, session)
    if (
      session.alignment === 'aligned' ||
      alignment.files_node_id !== payload.expected_source ||
      alignment.head_node_id !== payload.expected_target
    ) {
      return fail('STALE_PLAN', 'The files or the branch changed since this choice was shown; look again.', {
        files_node_id: alignment.files_node_id,
        head_node_id: alignment.head_node_id,
        reason: 'alignment-changed',
      })
    }
    // Issue 23 item 13: like every restore, Restore branch code writes only a plan the person saw.
    if (payload.plan_hash === undefined) {
      return fail('INVALID_REQUEST', 'Preview Restore branch code first (history.plan with operation "align").', {
        reason: 'preview-required',
      })
    }
    if (restore.operationOf(payload.plan_hash) !== 'align') {
      return fail('STALE_PLAN', 'This preview is not a current Restore branch code plan; preview it again.', {
        plan_hash: payload.plan_hash,
        reason: 'plan-changed',
      })
    }
    const wrapped: IdempotencyHooks<ApplyResult> = {
      prepared: (operationId, result) =>
        hooks.prepared(operationId, { status: 'committed', intent_id: result.intent_id }),
      settled: (status, result) => hooks.settled(status, { status: 'committed', intent_id: result.intent_id }),
    }
    const applied = await restore.applyPlan(
      workspace,
      session,
      {
        plan_hash: payload.plan_hash,
        idempotency_key: undefined,
        owner_key: `${session.project_id}/${session.session_id}`,
        onProgress: (phase, done, total) => progress(session, phase)(done, total),
      },
      wrapped,
    )
    afterApply(workspace, session, applied)
    if (applied.kind === 'error') return applied
    const status = applied.result.status === 'applying' ? 'committed' : applied.result.status
    return ok({ status, intent_id: applied.result.intent_id })
  }

  return {
    actions,
    recover: () => restore.recover(),
    forgetSession: (sessionId) => deleteSessionIntents(db, sessionId),
  }
}
