import { fail, ok, type Outcome, type PermissionMode, type ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import type { EventBus } from '../events'
import type { FaultHook, JournalModule, MutatorContext, PlannedChange, Receipt } from '../journal'
import { createRestoreService } from './apply-restore'
import { conflictDiff, type ConflictDiffDependencies } from './conflict-diff'
import type { CommandSnapshots } from './plan-commands'
import { restoreOffers } from './plan-restore'
import { applyRetention, type RetentionPolicy } from './retention'
import { createSession, getSession, listSessions, runningTurnId, transcript, updateSession } from './sessions'
import { beginTurn, finalizeTurn, type Turn } from './turns'
import type { Part, SessionRecord, TurnSummary } from './types'

type HistoryActions =
  | 'session.create'
  | 'session.list'
  | 'session.transcript'
  | 'session.update'
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
  })
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
      return ok({
        session: publicSession(session.result),
        ...transcript(db, session.result),
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
      if (payload.operation === 'rewind') {
        return fail('UNSUPPORTED', 'Multi-turn rewind is not available yet; undo or revert single turns.')
      }
      const planned = await restore.plan(journal.workspaceOf(context.project), session.result, {
        operation: payload.operation,
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
        onProgress: (phase, done, total) =>
          events.emit(
            'intent.progress',
            { project_id: context.project.project_id, session_id: session.result.session_id },
            { session_id: session.result.session_id, phase, done, total },
          ),
      })
      if (applied.kind === 'ok') {
        // Which turn actions are executable changed: turn cards refetch on this.
        sessionUpdated(session.result)
        if (applied.result.transaction_id) journal.announceTransaction(workspace, applied.result.transaction_id)
      }
      return applied
    },
    'history.conflict_diff': async (payload, context) => {
      const session = sessionOf(context)
      if (session.kind === 'error') return session
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
      )
    },
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
      return journal.store.journal.mutate(workspace, turn.attribution, () =>
        plan({ workspace, limits: journal.store.journal.limits }),
      )
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
  }
}
