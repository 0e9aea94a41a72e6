import { fail, ok, type ProjectSummary, type ProviderKind } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import type { DocumentsModule } from '../documents'
import type { EventBus } from '../events'
import type { ConversationModule } from '../conversation'
import { workspaceCounters, type JournalModule } from '../journal'
import { statement } from '../store'
import {
  attributeStep,
  closeAbandonedWindows,
  closeCommandWindow,
  openCommandWindow,
  type ProjectSnapshots,
} from '../snapshot'
import { DEFAULT_LOOP_SETTINGS, type LoopSettings } from './loop'
import { createProviderSettings, testConnection, type SecretStore } from './providers'
import { createAgentRuntime } from './runtime'

type AgentActions =
  | 'session.prompt'
  | 'session.abort'
  | 'session.approve'
  | 'settings.providers'
  | 'settings.save_provider'
  | 'settings.remove_provider'
  | 'settings.activate_provider'
  | 'settings.test_provider'

export interface AgentModule {
  readonly actions: ModuleActions<AgentActions>
  /** Closes turns a stopped process left running (after journal recovery). */
  recover(): Promise<number>
  /** Stops running turns; resolves when they have settled (null: nothing was running). */
  dispose(): Promise<void> | null
}

/** The agent runtime (spec 05), its tables (agent reads, allowed commands, providers) and actions. */
export function createAgentModule(deps: {
  journal: JournalModule
  history: Pick<ConversationModule, 'getSession' | 'onSessionPurged' | 'beginTurn'>
  events: EventBus
  projectOf: (projectId: string) => ProjectSummary | undefined
  snapshotsOf: (projectId: string, root: string) => ProjectSnapshots
  secrets?: SecretStore | undefined
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
  env?: Readonly<Record<string, string | undefined>> | undefined
  cliProvider?: { kind: ProviderKind; base_url: string; model: string } | undefined
  ollamaUrl?: string | null | undefined
  loop?: Partial<LoopSettings> | undefined
  /** The documents module (issue 26): the document tools and approval cards use it. */
  documents?: DocumentsModule | undefined
  /** Prompts wait for start-up recovery (of the journal, then of earlier turns). */
  ready: () => Promise<unknown>
}): AgentModule {
  const { journal } = deps
  const { db, blobs } = journal.store
  const providers = createProviderSettings({
    db,
    secrets: deps.secrets,
    env: deps.env ?? process.env,
    cli: deps.cliProvider,
    ollamaUrl: deps.ollamaUrl === undefined ? 'http://127.0.0.1:11434' : deps.ollamaUrl,
  })
  // The agent's rows that name a session go with it when it is purged.
  deps.history.onSessionPurged((sessionId) => {
    statement(db, 'DELETE FROM agent_reads WHERE session_id = ?').run(sessionId)
    statement(db, 'DELETE FROM session_allowed_commands WHERE session_id = ?').run(sessionId)
  })
  const runtime = createAgentRuntime({
    db,
    blobs,
    journal: journal.store.journal,
    dataDir: journal.dataDir,
    events: deps.events,
    providers,
    settings: { ...DEFAULT_LOOP_SETTINGS, ...deps.loop },
    onCommitted: journal.announceReceipt,
    log: deps.log,
    beginTurn: deps.history.beginTurn,
    documents: deps.documents,
    snapshots: (scope) => {
      const project = deps.snapshotsOf(scope.projectId, scope.root)
      const treeOf = (capture: { kind: string; hash?: string }) =>
        capture.kind === 'snapshot' ? (capture.hash ?? null) : null
      return {
        capture: project.track,
        changedPaths: project.changedPaths,
        windows: {
          sequence: () => workspaceCounters(db, scope.workspaceId).sequence,
          open: (step, from, fromSequence, startedAtMs) =>
            openCommandWindow(db, {
              turnId: scope.turnId,
              step,
              gitDir: project.gitDir,
              sessionId: scope.sessionId,
              fromHash: treeOf(from),
              fromSequence,
              startedAtMs,
            }),
          close: (step, after, endedAtMs) => closeCommandWindow(db, scope.turnId, step, treeOf(after), endedAtMs),
          attribute: (input) =>
            attributeStep({
              ...input,
              db,
              root: scope.root,
              workspaceId: scope.workspaceId,
              turnId: scope.turnId,
              changedPaths: async (from, to) => {
                const listed = await project.changedPaths(from, to)
                return listed.kind === 'ok' ? listed.result : null
              },
            }),
        },
      }
    },
    closeAbandonedWindows: (turnIds) => closeAbandonedWindows(db, turnIds, Date.now()),
    patchFiles: async (session, patch) => {
      const project = deps.projectOf(session.project_id)
      if (!project) return null
      const listed = await deps.snapshotsOf(project.project_id, project.root).changedPaths(patch.hash, patch.after)
      return listed.kind === 'ok' ? listed.result : null
    },
  })
  return {
    recover: () => runtime.recover(),
    dispose: () => runtime.dispose(),
    actions: {
      'session.prompt': async ({ session_id, text }, context) => {
        await deps.ready().catch(() => undefined)
        const session = deps.history.getSession(context.project.project_id, session_id)
        if (session.kind === 'error') return session
        if (session.result.state === 'archived') {
          return fail('UNAVAILABLE', 'This session is archived; restore it to continue.', { reason: 'archived' })
        }
        return runtime.prompt(journal.workspaceOf(context.project), session.result, text)
      },
      'session.abort': async ({ session_id }, context) => {
        const session = deps.history.getSession(context.project.project_id, session_id)
        return session.kind === 'error' ? session : runtime.abort(session.result)
      },
      'session.approve': async ({ session_id, tool_call_id, decision }, context) => {
        const session = deps.history.getSession(context.project.project_id, session_id)
        return session.kind === 'error' ? session : runtime.approve(session.result, tool_call_id, decision)
      },
      'settings.providers': async () => ok(await providers.list()),
      'settings.save_provider': async (payload) => providers.save(payload),
      'settings.remove_provider': async ({ provider_id }) => providers.remove(provider_id),
      'settings.activate_provider': async ({ provider_id }) => providers.activate(provider_id),
      'settings.test_provider': async ({ provider_id }) => {
        const config = providers.get(provider_id)
        if (!config)
          return fail('NOT_FOUND', `There is no provider "${provider_id}".`, { provider_id, reason: 'no-provider' })
        return ok(await testConnection(config, providers.resolveKey(config)))
      },
    },
  }
}
