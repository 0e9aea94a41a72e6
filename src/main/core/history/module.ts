import { fail, ok, type Outcome, type PermissionMode, type ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import type { EventBus } from '../events'
import {
  releaseRecoveryBlobs,
  sessionTransactionIds,
  turnTransactions,
  workspaceRevision,
  type FaultHook,
  type JournalModule,
  type MutatorContext,
  type PlannedChange,
  type Receipt,
  type Workspace,
} from '../journal'
import { fingerprintOf, inImmediateTransaction, type IdempotencyHooks } from '../store'
import { createRestoreService, type ApplyResult } from './apply-restore'
import {
  alignmentOf,
  archiveBranch,
  branchFromHere,
  keepFiles,
  publicBranch,
  purge,
  sessionBranches,
  switchBranch,
  type CodeDiffers,
} from './branches'
import { conflictDiff, type ConflictDiffDependencies } from './conflict-diff'
import { forkSession } from './fork'
import type { CommandSnapshots } from './plan-commands'
import { lastRestore } from './plan-redo'
import { restoreOffers } from './plan-restore'
import { activeBranch, type RewindOperation, type RewindPlan } from './plan-rewind'
import { applyRetention, type RetentionPolicy } from './retention'
import {
  createSession,
  getSession,
  listSessions,
  projectOfSession,
  runningTurnId,
  transcript,
  updateSession,
} from './sessions'
import { planTransition } from './transition'
import { beginTurn, finalizeTurn, writerEpochCurrent, type Turn } from './turns'
import type { Part, SessionRecord, TurnSummary } from './types'

type HistoryActions =
  | 'session.create'
  | 'session.list'
  | 'session.transcript'
  | 'session.update'
  | 'session.branch'
  | 'session.switch_branch'
  | 'session.archive_branch'
  | 'session.fork'
  | 'session.align'
  | 'session.purge'
  | 'session.resume'
  | 'history.plan'
  | 'history.apply'
  | 'history.conflict_diff'

/** In-process engine API for the agent runtime (and test drivers): turns and their mutations. */
export interface TurnApi {
  begin(projectId: string, sessionId: string, text: string): Promise<Outcome<Turn>>
  /** A trusted mutation attributed to the turn (its main actor). */
  mutate(
    projectId: string,
    turn: Turn,
    plan: (context: MutatorContext) => Promise<Outcome<PlannedChange[]>>,
  ): Promise<Outcome<Receipt>>
  finalize(
    projectId: string,
    turn: Turn,
    result: { parts: readonly Part[]; status: 'complete' | 'aborted' | 'error' },
  ): Promise<Outcome<{ summary: TurnSummary }>>
}

export interface HistoryModule {
  readonly actions: ModuleActions<HistoryActions>
  readonly turns: TurnApi
  /** The session a request is owned by (`owner.session_id`), in the request's project. */
  sessionOf(context: ProjectRequestContext): Outcome<SessionRecord>
  getSession(projectId: string, sessionId: string): Outcome<SessionRecord>
  /** Settles restore intents a stopped process left applying (after journal recovery). */
  recover(): void
  /** Spec 03 retention over checkpoints; the content store sweeps what it released. */
  applyRetention(): { expired: number }
  projectOfSession(sessionId: string): string | undefined
  /** Rows of other modules that name a session, removed before a purge deletes it. */
  onSessionPurged(cleanup: (sessionId: string) => void): void
}

/** A multi-turn plan as the protocol shows it (its effects and evidence stay in the engine). */
function publicRewindPlan(plan: RewindPlan & { evidence: unknown }) {
  const {
    session_id: _session,
    workspace_revision: _revision,
    head_version: _head,
    evidence: _evidence,
    effects: _effects,
    ...rest
  } = plan
  return rest
}

/**
 * Spec 04: sessions, the conversation DAG, branches, checkpoints, change sets and restore intents
 * (the tables this module alone reads and writes), and the actions over them.
 */
export function createHistoryModule(deps: {
  journal: JournalModule
  events: EventBus
  fault: FaultHook
  projectOf: (projectId: string) => ProjectSummary | undefined
  snapshotsOf: (projectId: string, root: string) => CommandSnapshots
  diff: ConflictDiffDependencies['diff']
  defaultPermissionMode: PermissionMode
  retention?: RetentionPolicy | undefined
  /** Opens a folder as a project (a fork's worktree). */
  openProject: (path: string) => Promise<Outcome<ProjectSummary>>
  /** Resolves once start-up recovery (journal, intents, agent turns) is done. */
  recovered: () => Promise<unknown>
}): HistoryModule {
  const { journal, events } = deps
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
  const purgeCleanups: Array<(sessionId: string) => void> = []
  const publicSession = (session: SessionRecord) => ({
    session_id: session.session_id,
    project_id: session.project_id,
    title: session.title,
    root_node_id: session.root_node_id,
    active_branch_id: session.active_branch_id,
    state: session.state,
    permission_mode: session.permission_mode,
    running_turn_id: runningTurnId(db, session.session_id),
    created_at_ms: session.created_at_ms,
    updated_at_ms: session.updated_at_ms,
    alignment: alignmentOf(db, session),
  })
  const fresh = (session: SessionRecord): SessionRecord => {
    const current = getSession(db, session.project_id, session.session_id)
    if (current.kind === 'error') throw new Error(`session ${session.session_id} disappeared`)
    return current.result
  }
  const ownerOf = (session: SessionRecord) => ({ project_id: session.project_id, session_id: session.session_id })
  /** Whether files holding one node's code differ from another's (for a switch's alignment). */
  const codeDiffers =
    (session: SessionRecord): CodeDiffers =>
    (filesNode, head, leftSequence) => {
      const transition = planTransition(db, {
        workspaceId: session.workspace_id,
        sessionId: session.session_id,
        from: filesNode,
        to: head,
        redoSequence: leftSequence,
      })
      return transition.actions.length > 0 || transition.unavailable.length > 0
    }
  const progress = (session: SessionRecord, phase: 'preflight' | 'apply') => (done: number, total: number) =>
    events.emit('intent.progress', ownerOf(session), { session_id: session.session_id, phase, done, total })
  const sessionUpdated = (session: { project_id: string; session_id: string }) =>
    events.emit(
      'session.updated',
      { project_id: session.project_id, session_id: session.session_id },
      { session_id: session.session_id },
    )
  const sessionOf = (context: ProjectRequestContext): Outcome<SessionRecord> => {
    const sessionId = context.owner.session_id
    if (sessionId === undefined) return fail('INVALID_REQUEST', 'History actions need owner.session_id.')
    return getSession(db, context.project.project_id, sessionId)
  }

  const actions: ModuleActions<HistoryActions> = {
    'session.create': async ({ title, permission_mode }, context) => {
      const session = createSession(db, {
        project_id: context.project.project_id,
        workspace_id: journal.workspaceOf(context.project).workspace_id,
        title,
        permission_mode: permission_mode ?? deps.defaultPermissionMode,
      })
      sessionUpdated(session)
      return ok(publicSession(session))
    },
    'session.list': async ({ include_archived }, context) =>
      ok({ sessions: listSessions(db, context.project.project_id, include_archived).map(publicSession) }),
    'session.transcript': async ({ session_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const { nodes } = transcript(db, session.result)
      return ok({
        session: publicSession(session.result),
        branches: sessionBranches(db, session_id).map((branch) => publicBranch(db, branch)),
        nodes,
        restore: restoreOffers(db, session.result),
      })
    },
    'session.update': async ({ session_id, ...changes }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      if (changes.archived === true && runningTurnId(db, session_id) !== null) {
        return fail('BUSY', 'Stop the running turn before archiving this session.', { session_id })
      }
      const updated = updateSession(db, session.result, changes)
      sessionUpdated(updated)
      return ok(publicSession(updated))
    },
    'history.plan': async (payload, context) => {
      const session = sessionOf(context)
      if (session.kind === 'error') return session
      // Redo follows the last restore: a Rewind's Redo moves the conversation back too.
      const operation = payload.operation
      const multiTurn: RewindOperation | null =
        operation === 'rewind' || operation === 'unrewind' || operation === 'align'
          ? operation
          : operation === 'redo' && lastRestore(db, session.result.session_id)?.operation === 'rewind'
            ? 'redo'
            : null
      if (multiTurn !== null) {
        const planned = await restore.planRewind(
          journal.workspaceOf(context.project),
          session.result,
          {
            operation: multiTurn,
            turn_id: payload.turn_id,
            checkpoint_id: payload.checkpoint_id,
            boundary: payload.boundary,
            mode: payload.mode,
            include_commands: payload.include_commands,
            steps: payload.steps,
            include_conflicting: payload.include_conflicting,
            keep_current: payload.keep_current,
          },
          progress(session.result, 'preflight'),
        )
        if (planned.kind === 'error') return planned
        return ok(publicRewindPlan(planned.result))
      }
      if (
        payload.mode !== undefined ||
        payload.boundary !== undefined ||
        payload.steps !== undefined ||
        payload.keep_current !== undefined
      ) {
        return fail('INVALID_REQUEST', 'mode, boundary, steps and keep_current belong to multi-turn restores.')
      }
      if (operation === 'rewind' || operation === 'unrewind' || operation === 'align') {
        return fail('INVALID_REQUEST', `${operation} is a multi-turn restore.`)
      }
      const planned = await restore.plan(journal.workspaceOf(context.project), session.result, {
        operation,
        turn_id: payload.turn_id,
        include_commands: payload.include_commands,
        include_conflicting: payload.include_conflicting,
      })
      if (planned.kind === 'error') return planned
      const {
        session_id: _session,
        workspace_revision: _revision,
        head_version: _head,
        evidence: _evidence,
        ...plan
      } = planned.result
      return ok(plan)
    },
    'history.apply': async ({ plan_hash }, context) => {
      const session = sessionOf(context)
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
      const session = sessionOf(context)
      if (session.kind === 'error') return session
      let planned: ReturnType<typeof restore.expectedOf>
      if (payload.plan_hash !== undefined) {
        planned = restore.expectedOf(payload.plan_hash, payload.path)
        if (planned === undefined) {
          return fail('STALE_PLAN', 'This restore plan is no longer current; preview it again.', {
            plan_hash: payload.plan_hash,
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
    'session.branch': async ({ session_id, node_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const made = branchFromHere(db, session.result, node_id, codeDiffers(session.result))
      if (made.kind === 'error') return made
      sessionUpdated(session.result)
      return ok({ branch_id: made.result.branch_id, session: publicSession(fresh(session.result)) })
    },
    'session.switch_branch': async ({ session_id, branch_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const switched = switchBranch(db, session.result, branch_id, codeDiffers(session.result))
      if (switched.kind === 'error') return switched
      sessionUpdated(session.result)
      return ok(publicSession(fresh(session.result)))
    },
    'session.archive_branch': async ({ session_id, branch_id, archived }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const done = archiveBranch(db, session.result, branch_id, archived)
      if (done.kind === 'error') return done
      sessionUpdated(session.result)
      return ok({ branches: sessionBranches(db, session_id).map((branch) => publicBranch(db, branch)) })
    },
    'session.fork': async ({ session_id, node_id, with_files }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const forked = await forkSession(
        {
          db,
          blobs,
          openProject: deps.openProject,
          workspaceIdOf: (project) => journal.workspaceOf(project).workspace_id,
        },
        session.result,
        context.project,
        { node_id, with_files },
      )
      if (forked.kind === 'error') return forked
      sessionUpdated(forked.result.session)
      return ok({ session: publicSession(forked.result.session), worktree: forked.result.worktree })
    },
    'session.align': async (payload, context) => {
      const session = getSession(db, context.project.project_id, payload.session_id)
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
      type Aligned = { status: 'aligned' | 'committed' | 'rolled_back' | 'recovery_required'; intent_id: string | null }
      const outcome = await journal.mutations.run<Aligned>(claim, (hooks) =>
        payload.decision === 'keep'
          ? Promise.resolve(keep(session.result, payload, hooks))
          : restoreBranchCode(workspace, session.result, payload, hooks),
      )
      if (outcome.kind === 'error') return outcome
      sessionUpdated(session.result)
      return ok({ ...outcome.result, session: publicSession(fresh(session.result)) })
    },
    'session.purge': async ({ session_id, branch_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const purged = purge(
        db,
        session.result,
        branch_id,
        {
          release: (ids) => releaseRecoveryBlobs(db, ids),
          sessionTransactions: (id) => sessionTransactionIds(db, id),
          turnTransactions: (turnIds) =>
            turnTransactions(db, session.result.workspace_id, turnIds).map((t) => t.transaction_id),
        },
        (id) => {
          for (const cleanup of purgeCleanups) cleanup(id)
        },
      )
      if (purged.kind === 'ok') sessionUpdated(session.result)
      return purged
    },
    'session.resume': async ({ session_id }, context) => {
      await deps.recovered().catch(() => undefined)
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const active = activeBranch(db, session.result)
      return ok({
        session: publicSession(session.result),
        branches: sessionBranches(db, session_id).map((branch) => publicBranch(db, branch)),
        head_node_id: active.head_node_id,
        head_version: active.head_version,
        workspace_revision: workspaceRevision(db, session.result.workspace_id),
      })
    },
  }

  function afterApply(workspace: Workspace, session: SessionRecord, applied: Outcome<ApplyResult>): void {
    if (applied.kind !== 'ok') return
    // Which turn actions are executable changed: turn cards refetch on this.
    sessionUpdated(session)
    if (applied.result.transaction_id) journal.announceTransaction(workspace, applied.result.transaction_id)
  }

  type AlignResult = { status: 'aligned' | 'committed' | 'rolled_back' | 'recovery_required'; intent_id: string | null }
  function keep(
    session: SessionRecord,
    payload: { expected_source: string; expected_target: string },
    hooks: IdempotencyHooks<AlignResult>,
  ): Outcome<AlignResult> {
    return inImmediateTransaction(db, () => {
      const kept = keepFiles(db, fresh(session), {
        source: payload.expected_source,
        target: payload.expected_target,
      })
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

  const turns: TurnApi = {
    async begin(projectId, sessionId, text) {
      const session = getSession(db, projectId, sessionId)
      return session.kind === 'error' ? session : beginTurn(db, session.result, text)
    },
    async mutate(projectId, turn, plan) {
      const project = deps.projectOf(projectId)
      if (!project) return fail('NOT_FOUND', `No project with id "${projectId}" is open.`)
      const workspace = journal.workspaceOf(project)
      return journal.store.journal.mutate(workspace, turn.attribution, async () => {
        // Checked under the workspace lock: a restore or switch since the turn began bumped it.
        const current = writerEpochCurrent(db, turn)
        return current.kind === 'error' ? current : plan({ workspace, limits: journal.store.journal.limits })
      })
    },
    async finalize(projectId, turn, result) {
      const session = getSession(db, projectId, turn.session_id)
      if (session.kind === 'error') return session
      return finalizeTurn(db, blobs, session.result, {
        turn_id: turn.turn_id,
        ...result,
        statsBudgetBytes: limits.statsBudgetBytes,
      })
    },
  }

  return {
    actions,
    turns,
    sessionOf,
    getSession: (projectId, sessionId) => getSession(db, projectId, sessionId),
    recover: () => restore.recover(),
    applyRetention: () => applyRetention(db, deps.retention),
    onSessionPurged: (cleanup) => void purgeCleanups.push(cleanup),
    projectOfSession: (sessionId) => projectOfSession(db, sessionId),
  }
}
