import { fail, ok, type Outcome, type PermissionMode, type ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import type { EventBus } from '../events'
import {
  releaseRecoveryBlobs,
  sessionTransactionIds,
  turnTransactions,
  workspaceRevision,
  type JournalModule,
  type MutatorContext,
  type PlannedChange,
  type Receipt,
} from '../journal'
import { sessionBranches } from './branches'
import {
  activeBranch,
  alignmentOf,
  archiveBranch,
  branchFromHere,
  publicBranch,
  switchBranch,
  type CodeDiffers,
} from './branching'
import { forkSession } from './fork'
import { runningTurnId } from './nodes'
import { purge } from './purge'
import { applyRetention, type RetentionPolicy } from './retention'
import { createSession } from './session-create'
import { getSession, listSessions, projectOfSession, updateSession } from './sessions'
import { transcript } from './transcript'
import { beginTurn, finalizeTurn, writerEpochCurrent, type Turn } from './turns'
import type { Part, SessionRecord, TurnSummary } from './types'

type ConversationActions =
  | 'session.create'
  | 'session.list'
  | 'session.transcript'
  | 'session.update'
  | 'session.branch'
  | 'session.switch_branch'
  | 'session.archive_branch'
  | 'session.fork'
  | 'session.purge'
  | 'session.resume'

/** Which single-turn restores a turn card offers now (session.transcript's `restore`). */
export interface RestoreOffers {
  readonly undo_turn_id: string | null
  readonly redo_turn_id: string | null
  readonly undone_turn_ids: string[]
}

/**
 * What the conversation asks of the files' side. restore/ owns restore intents and knows the code
 * a node holds; it sits above this module, so the composition root hands its answers in here.
 */
export interface CodePort {
  /** Whether a restore of the session is being applied: no turn, switch or purge starts then. */
  restoreApplying(sessionId: string): boolean
  restoreOffers(session: SessionRecord): RestoreOffers
  /** Whether files holding one node's code differ from another node's code (a switch's alignment). */
  codeDiffers(session: SessionRecord): CodeDiffers
  /** A git worktree of the project holding a node's code ("Fork to new task" with files). */
  materializeWorktree(session: SessionRecord, project: ProjectSummary, nodeId: string): Promise<Outcome<string>>
}

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

export interface ConversationModule {
  readonly actions: ModuleActions<ConversationActions>
  readonly turns: TurnApi
  /** The session a request is owned by (`owner.session_id`), in the request's project. */
  sessionOf(context: ProjectRequestContext): Outcome<SessionRecord>
  getSession(projectId: string, sessionId: string): Outcome<SessionRecord>
  /** Begins a turn on the session's active branch (the agent runtime's prompt). */
  beginTurn(session: SessionRecord, text: string): Outcome<Turn>
  /** The session as the protocol shows it, read now. */
  publicSession(session: SessionRecord): ReturnType<typeof publicSessionOf>
  /** Announces that the session changed (turn cards and the branch menu refetch). */
  announce(session: { project_id: string; session_id: string }): void
  /** Spec 03 retention over checkpoints; the content store sweeps what it released. */
  applyRetention(): { expired: number }
  projectOfSession(sessionId: string): string | undefined
  /** Rows of other modules that name a session, removed before a purge deletes it. */
  onSessionPurged(cleanup: (sessionId: string) => void): void
}

function publicSessionOf(db: JournalModule['store']['db'], session: SessionRecord) {
  return {
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
  }
}

/**
 * Spec 04's conversation: sessions, the DAG of nodes, branches, checkpoints, change sets and the
 * parts of running turns (the tables this module alone reads and writes), the session.* actions
 * over them and the in-process turn API.
 */
export function createConversationModule(deps: {
  journal: JournalModule
  events: EventBus
  code: CodePort
  projectOf: (projectId: string) => ProjectSummary | undefined
  defaultPermissionMode: PermissionMode
  retention?: RetentionPolicy | undefined
  /** Opens a folder as a project (a fork's worktree). */
  openProject: (path: string) => Promise<Outcome<ProjectSummary>>
  /** Resolves once start-up recovery (journal, intents, agent turns) is done. */
  recovered: () => Promise<unknown>
}): ConversationModule {
  const { journal, events, code } = deps
  const { db, blobs } = journal.store
  const limits = journal.store.journal.limits
  const purgeCleanups: Array<(sessionId: string) => void> = []
  const publicSession = (session: SessionRecord) => publicSessionOf(db, session)
  const fresh = (session: SessionRecord): SessionRecord => {
    const current = getSession(db, session.project_id, session.session_id)
    if (current.kind === 'error') throw new Error(`session ${session.session_id} disappeared`)
    return current.result
  }
  const announce = (session: { project_id: string; session_id: string }) =>
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
  const branching = (session: SessionRecord) => ({
    differs: code.codeDiffers(session),
    restoreApplying: code.restoreApplying,
  })

  const actions: ModuleActions<ConversationActions> = {
    'session.create': async ({ title, permission_mode }, context) => {
      const session = createSession(db, {
        project_id: context.project.project_id,
        workspace_id: journal.workspaceOf(context.project).workspace_id,
        title,
        permission_mode: permission_mode ?? deps.defaultPermissionMode,
      })
      announce(session)
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
        restore: code.restoreOffers(session.result),
      })
    },
    'session.update': async ({ session_id, ...changes }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      if (changes.archived === true && runningTurnId(db, session_id) !== null) {
        return fail('BUSY', 'Stop the running turn before archiving this session.', {
          session_id,
          reason: 'turn-running',
        })
      }
      const updated = updateSession(db, session.result, changes)
      announce(updated)
      return ok(publicSession(updated))
    },
    'session.branch': async ({ session_id, node_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const made = branchFromHere(db, session.result, node_id, branching(session.result))
      if (made.kind === 'error') return made
      announce(session.result)
      return ok({ branch_id: made.result.branch_id, session: publicSession(fresh(session.result)) })
    },
    'session.switch_branch': async ({ session_id, branch_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const switched = switchBranch(db, session.result, branch_id, branching(session.result))
      if (switched.kind === 'error') return switched
      announce(session.result)
      return ok(publicSession(fresh(session.result)))
    },
    'session.archive_branch': async ({ session_id, branch_id, archived }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const done = archiveBranch(db, session.result, branch_id, archived)
      if (done.kind === 'error') return done
      announce(session.result)
      return ok({ branches: sessionBranches(db, session_id).map((branch) => publicBranch(db, branch)) })
    },
    'session.fork': async ({ session_id, node_id, with_files }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const forked = await forkSession(
        {
          db,
          openProject: deps.openProject,
          workspaceIdOf: (project) => journal.workspaceOf(project).workspace_id,
          materializeWorktree: code.materializeWorktree,
        },
        session.result,
        context.project,
        { node_id, with_files },
      )
      if (forked.kind === 'error') return forked
      announce(forked.result.session)
      return ok({ session: publicSession(forked.result.session), worktree: forked.result.worktree })
    },
    'session.purge': async ({ session_id, branch_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      const purged = purge(db, session.result, branch_id, {
        release: (ids) => releaseRecoveryBlobs(db, ids),
        sessionTransactions: (id) => sessionTransactionIds(db, id),
        turnTransactions: (turnIds) =>
          turnTransactions(db, session.result.workspace_id, turnIds).map((t) => t.transaction_id),
        restoreApplying: code.restoreApplying,
        beforeSessionDeleted: (id) => {
          for (const cleanup of purgeCleanups) cleanup(id)
        },
      })
      if (purged.kind === 'ok') announce(session.result)
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

  const turns: TurnApi = {
    async begin(projectId, sessionId, text) {
      const session = getSession(db, projectId, sessionId)
      return session.kind === 'error' ? session : beginTurn(db, session.result, text, code.restoreApplying)
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
    beginTurn: (session, text) => beginTurn(db, session, text, code.restoreApplying),
    publicSession,
    announce,
    applyRetention: () => applyRetention(db, deps.retention),
    onSessionPurged: (cleanup) => void purgeCleanups.push(cleanup),
    projectOfSession: (sessionId) => projectOfSession(db, sessionId),
  }
}
