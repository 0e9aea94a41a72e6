import { mkdirSync, realpathSync } from 'node:fs'
import {
  fail,
  ok,
  type DirEntry,
  type EventFrame,
  type FileVersion,
  type Outcome,
  type ResponseEnvelope,
  type SearchEntry,
} from '../../shared/protocol'
import type { Disposable } from '../../shared/disposable'
import { createDispatcher, type ActionHandlers } from './dispatcher'
import { createEventBus } from './events'
import {
  DEFAULT_READ_LIMITS,
  createByteBudget,
  createDirectoryListing,
  listDirectory,
  readFile,
  createByteTransfers,
  createSearchRunner,
  fileHistory,
  readVersion,
  searchProject,
  versionBytes,
  type ByteResponse,
  type FileHistoryDeps,
  type ProjectSearch,
  type ProjectRoots,
  type ReadLimits,
} from './files'
import { createCursorSigner, createSnapshotStore } from './paging'
import { createHumanOperations, type OperationContext } from './files'
import {
  openJournalStore,
  ensureWorkspace,
  faultHookFromEnv,
  projectOfWorkspace,
  workspaceRevision,
  type FaultHook,
  type JournalLimits,
  type MutatorContext,
  type PlannedChange,
  type Receipt,
  type RecoveryReport,
  type Workspace,
} from './journal'
import { createProjectRegistry, type Project } from './projects'
import {
  applyRetention,
  beginTurn,
  restoreOffers,
  runningTurnId,
  updateSession,
  createRestoreService,
  createSession,
  finalizeTurn,
  getSession,
  listSessions,
  transcript,
  turnCommandChanges,
  turnParts,
  type Part,
  type RetentionPolicy,
  type SessionRecord,
  type Turn,
  type TurnSummary,
} from './history'
import type { Host } from './host'
import type { ProjectRequestContext } from './dispatcher'
import {
  createAgentRuntime,
  createProviderSettings,
  DEFAULT_LOOP_SETTINGS,
  testConnection,
  type LoopSettings,
} from './agent'
import type { PermissionMode, ProviderKind } from '../../shared/protocol'
import {
  branchReceipts,
  changeSetIndex,
  createDiffRunner,
  pageReviewDiff,
  pageReviewFiles,
  reviewPreview,
  rowsFromReceipts,
  turnReceipts,
  workspaceBasis,
  workspaceRows,
  workspaceSubScope,
  commandRows,
  type ReviewRow,
} from './review'
import { commandChanges, createSnapshotService } from './snapshot'
import { statement } from './store'
// Workbench (issue 12): file watcher, git decorations, blocked-restore diff.
import { createWatchService, gitDecorations } from './watch'
import { conflictDiff } from './history'

export type { Host } from './host'
export { BYTES_ROUTE, type ByteResponse } from './files'

/** File bytes that large reads may hold in memory at once, across all clients. */
const LARGE_READ_BUDGET_BYTES = 128 * 1024 * 1024

export interface CoreOptions {
  /** Retrace's private data directory (created 0700 if missing). */
  readonly dataDir: string
  readonly host: Host
  readonly readLimits?: Partial<ReadLimits>
  readonly journalLimits?: Partial<JournalLimits>
  /** Crash-test hook; defaults to `RETRACE_FAULT` from the environment. */
  readonly fault?: FaultHook
  readonly retention?: RetentionPolicy
  readonly agent?: AgentOptions
  /** Time budget of one review diff (tests shorten it); over it the diff is `timeout`. */
  readonly reviewDiffBudgetMs?: number
  /** Bytes of workspace content one review snapshot may pin (default 256 MiB). */
  readonly reviewPinQuotaBytes?: number
  /** Rows kept across all review snapshots before the least recently used is evicted. */
  readonly reviewSnapshotRows?: number
  /**
   * Spec 06 step snapshots (a shadow git repository per project). `false` turns them off, as does
   * the app setting `snapshot` = `false`. Default on.
   */
  readonly snapshots?: boolean
  /**
   * Index a project for `files.search` in the background as soon as its root is listed, so the
   * first quick open answers from a warm index (the shells turn it on; tests leave it off).
   */
  readonly prewarmSearch?: boolean
  /** Spec 06 maintenance schedule of the shadow repositories (`false`: none, for short-lived engines). */
  readonly snapshotMaintenance?: { firstAfterMs: number; everyMs: number } | false
}

export interface AgentOptions {
  /** Where provider keys are read from; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Browser mode's `--provider --base-url --model` (key from RETRACE_API_KEY). */
  readonly cliProvider?: { kind: ProviderKind; base_url: string; model: string }
  /** Browser mode's `--permission-mode`: the mode of sessions created without one. */
  readonly defaultPermissionMode?: PermissionMode
  readonly loop?: Partial<LoopSettings>
  /** First-run probe for a local Ollama; null disables it. Default http://127.0.0.1:11434. */
  readonly ollamaUrl?: string | null
}

export interface Core extends Disposable {
  readonly dataDir: string
  /** One response for any input; never throws across the boundary. */
  handle(raw: unknown): Promise<ResponseEnvelope>
  onEvent(listener: (frame: EventFrame) => void): Disposable
  /** Start-up recovery of interrupted transactions; requests wait for it. */
  readonly ready: Promise<RecoveryReport>
  /** In-process engine API for the agent runtime (and test drivers): turns and their mutations. */
  readonly turns: TurnApi
  /**
   * Spec 03 retention, then mark-and-sweep of unreferenced blobs older than the grace period.
   * Runs once in the background after start-up recovery; callable for maintenance and tests.
   */
  collectGarbage(options?: { graceMs?: number }): Promise<{ expired: number; removed: number }>
  /**
   * Answers a byte-transfer URL issued by `files.read_bytes` (or a stored version); each shell
   * serves it on the app's origin at `/api/bytes/<ticket>` after its own access checks.
   */
  serveBytes(ticketId: string, options: { range?: string | undefined; head?: boolean }): Promise<ByteResponse>
}

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

export function createCore(options: CoreOptions): Core {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
  const dataDir = realpathSync(options.dataDir)
  const fault = options.fault ?? faultHookFromEnv(process.env.RETRACE_FAULT)
  const store = openJournalStore(dataDir, { fault, limits: options.journalLimits })
  const { db, blobs, idempotency, journal } = store
  const host = options.host
  const events = createEventBus((error) => host.log('error', 'An event listener failed', { error: String(error) }))
  const projects = createProjectRegistry(db, dataDir)
  // Bounded by entries across all listings (~150 B each): a 100 000-entry folder fits four times.
  const listing = createDirectoryListing(
    createCursorSigner(),
    createSnapshotStore<DirEntry>({ maxItems: 400_000, ttlMs: 10 * 60 * 1000 }),
  )
  // File bytes of large reads held at once; past it reads queue (spec 12's memory bound).
  const readBudget = createByteBudget(LARGE_READ_BUDGET_BYTES)
  const review = {
    signer: createCursorSigner(),
    // Bounded by rows across all review snapshots; a 10 000-file turn fits many times over.
    snapshots: createSnapshotStore<ReviewRow>({
      maxItems: options.reviewSnapshotRows ?? 500_000,
      ttlMs: 10 * 60 * 1000,
    }),
  }
  const diffRunner = createDiffRunner()
  const readLimits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...options.readLimits }
  const byteTransfers = createByteTransfers({ blobs, limits: readLimits, budget: readBudget })
  const rootsOf = (root: string): ProjectRoots => ({ root, dataDir })
  const workspaceOf = (project: Project): Workspace => ({
    workspace_id: ensureWorkspace(db, project.project_id, project.root),
    root: project.root,
    dataDir,
  })
  const operations = createHumanOperations({
    db,
    journal,
    idempotency,
    onCommitted: (workspace, receipt) => emitCommitted(workspace, receipt),
  })
  const search: ProjectSearch = {
    signer: createCursorSigner(),
    // Bounded by entries across all search snapshots (~100 B each).
    snapshots: createSnapshotStore<SearchEntry>({ maxItems: 500_000, ttlMs: 10 * 60 * 1000 }),
    runner: createSearchRunner(),
  }
  const fileHistoryDeps = (projectId: string): FileHistoryDeps => ({
    db,
    blobs,
    transfers: byteTransfers,
    signer: historyPaging.signer,
    snapshots: historyPaging.snapshots,
    sessions: () =>
      new Map(
        listSessions(db, projectId, true).map((session) => [
          session.session_id,
          { title: session.title, archived: session.state === 'archived' },
        ]),
      ),
    maxReadBytes: readLimits.maxReadBytes,
  })
  const historyPaging = {
    signer: createCursorSigner(),
    snapshots: createSnapshotStore<FileVersion>({ maxItems: 100_000, ttlMs: 10 * 60 * 1000 }),
  }
  const operationContext = (context: ProjectRequestContext): OperationContext => ({
    projectId: context.project.project_id,
    sessionId: context.owner.session_id,
    idempotencyKey: context.idempotencyKey,
    workspace: workspaceOf(context.project),
  })
  const roots = db.prepare('SELECT workspace_id, root FROM workspaces').all() as Array<{
    workspace_id: string
    root: string
  }>
  const snapshotSetting = statement(db, "SELECT value FROM app_settings WHERE key = 'snapshot'")
  const snapshots = createSnapshotService({
    dataDir,
    enabled: () =>
      options.snapshots !== false && (snapshotSetting.get() as { value: string } | undefined)?.value !== 'false',
    maxFileBytes: journal.limits.maxFileBytes,
    ...(options.snapshotMaintenance !== undefined ? { maintenance: options.snapshotMaintenance } : {}),
    log: host.log,
  })
  const snapshotsOf = (projectId: string, root: string) => snapshots.project({ project_id: projectId, root })
  const restore = createRestoreService({
    db,
    blobs,
    journal,
    idempotency,
    fault,
    snapshots: (session, workspace) => snapshotsOf(session.project_id, workspace.root),
  })
  const ready = journal
    .recover((workspaceId) => roots.find((r) => r.workspace_id === workspaceId)?.root)
    .then((report) => {
      restore.recover()
      return report
    })
  ready.catch((error: unknown) => host.log('error', 'Start-up recovery failed', { error: String(error) }))
  const providers = createProviderSettings({
    db,
    secrets: host.secrets,
    env: options.agent?.env ?? process.env,
    cli: options.agent?.cliProvider,
    ollamaUrl: options.agent?.ollamaUrl === undefined ? 'http://127.0.0.1:11434' : options.agent.ollamaUrl,
  })
  const emitCommitted = (workspace: Workspace, receipt: Receipt) =>
    events.emit(
      'workspace.changed',
      { project_id: projectOfWorkspace(db, workspace.workspace_id) },
      {
        workspace_id: workspace.workspace_id,
        revision: workspaceRevision(db, workspace.workspace_id),
        paths: receipt.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path])),
      },
    )
  const agent = createAgentRuntime({
    db,
    blobs,
    journal,
    dataDir,
    events,
    providers,
    settings: { ...DEFAULT_LOOP_SETTINGS, ...options.agent?.loop },
    onCommitted: emitCommitted,
    log: host.log,
    snapshots: (projectId, root) => {
      const project = snapshotsOf(projectId, root)
      return { capture: project.track, changedPaths: project.changedPaths }
    },
    patchFiles: async (session, patch) => {
      const project = projects.get(session.project_id)
      if (!project) return null
      const listed = await snapshotsOf(project.project_id, project.root).changedPaths(patch.hash, patch.after)
      return listed.kind === 'ok' ? listed.result : null
    },
  })
  const agentReady = ready.then(() => agent.recover())
  agentReady.catch((error: unknown) => host.log('error', 'Recovering agent turns failed', { error: String(error) }))
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
  const sessionOf = (context: ProjectRequestContext) => {
    const sessionId = context.owner.session_id
    if (sessionId === undefined) return fail('INVALID_REQUEST', 'History actions need owner.session_id.')
    return getSession(db, context.project.project_id, sessionId)
  }

  // Workbench: one watcher per project a window shows (bounded); a UI hint, never journaled.
  const watchers = createWatchService({
    dataDir,
    onChange: (projectId, batch) => events.emit('files.changed', { project_id: projectId }, batch),
    onError: (projectId, error) =>
      host.log('warn', 'File watcher error', { project_id: projectId, error: String(error) }),
  })

  async function openProject(path: string) {
    const opened = await projects.open(path)
    if (opened.kind === 'ok') {
      events.emit(
        'project.opened',
        { project_id: opened.result.project_id },
        { project_id: opened.result.project_id, root: opened.result.root },
      )
    }
    return opened
  }

  const handlers: ActionHandlers = {
    'app.info': async () =>
      ok({ shell: host.shell, version: host.appVersion, can_pick_folder: host.pickFolder !== undefined }),
    'project.open': async ({ path }) => openProject(path),
    'project.list': async () => ok({ projects: projects.list() }),
    'project.pick': async () => {
      if (!host.pickFolder) {
        return fail('UNSUPPORTED', 'This shell has no folder picker; open a folder by its path instead.')
      }
      const chosen = await host.pickFolder()
      if (chosen === null) return ok({ kind: 'cancelled' as const })
      const opened = await openProject(chosen)
      return opened.kind === 'ok' ? ok({ kind: 'opened' as const, project: opened.result }) : opened
    },
    'files.list': async (payload, { project }) => {
      if (options.prewarmSearch && payload.path === '' && payload.cursor === undefined) {
        search.runner.generation(project.root, dataDir).catch(() => undefined)
      }
      watchers.ensure(project) // Workbench: the explorer lists a project it shows, so watch it.
      return listDirectory(listing, project.project_id, rootsOf(project.root), payload)
    },
    'files.read': async ({ path }, { project }) => readFile(rootsOf(project.root), path, readLimits, readBudget),
    'files.read_bytes': async ({ path }, { project }) => byteTransfers.issueFile(rootsOf(project.root), path),
    'files.write': async (payload, context) => operations.write(operationContext(context), payload),
    'files.create': async (payload, context) => operations.create(operationContext(context), payload),
    'files.rename': async (payload, context) => operations.rename(operationContext(context), payload),
    'files.copy': async (payload, context) => operations.copy(operationContext(context), payload),
    'files.delete': async (payload, context) => operations.delete(operationContext(context), payload),
    'files.search': async (payload, { project }) =>
      searchProject(search, project.project_id, rootsOf(project.root), payload),
    'files.history': async (payload, { project }) =>
      fileHistory(
        fileHistoryDeps(project.project_id),
        { projectId: project.project_id, workspaceId: workspaceOf(project).workspace_id },
        payload,
      ),
    'files.read_version': async (payload, { project }) =>
      readVersion(fileHistoryDeps(project.project_id), workspaceOf(project).workspace_id, payload),
    'files.restore_version': async (payload, context) => {
      const operation = operationContext(context)
      const version = await versionBytes(
        fileHistoryDeps(context.project.project_id),
        operation.workspace.workspace_id,
        payload.path,
        payload.version_id,
      )
      if (version.kind === 'error') return version
      return operations.restoreVersion(operation, { ...payload, content: version.result.bytes })
    },
    'session.create': async ({ title, permission_mode }, context) => {
      const session = createSession(db, {
        project_id: context.project.project_id,
        workspace_id: workspaceOf(context.project).workspace_id,
        title,
        permission_mode: permission_mode ?? options.agent?.defaultPermissionMode ?? 'ask',
      })
      events.emit(
        'session.updated',
        { project_id: session.project_id, session_id: session.session_id },
        { session_id: session.session_id },
      )
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
      events.emit('session.updated', { project_id: updated.project_id, session_id }, { session_id })
      return ok(publicSession(updated))
    },
    'session.prompt': async ({ session_id, text }, context) => {
      await agentReady.catch(() => undefined)
      const session = getSession(db, context.project.project_id, session_id)
      if (session.kind === 'error') return session
      if (session.result.state === 'archived') {
        return fail('UNAVAILABLE', 'This session is archived; restore it to continue.', { reason: 'archived' })
      }
      return agent.prompt(workspaceOf(context.project), session.result, text)
    },
    'session.abort': async ({ session_id }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      return session.kind === 'error' ? session : agent.abort(session.result)
    },
    'session.approve': async ({ session_id, tool_call_id, decision }, context) => {
      const session = getSession(db, context.project.project_id, session_id)
      return session.kind === 'error' ? session : agent.approve(session.result, tool_call_id, decision)
    },
    'settings.providers': async () => ok(await providers.list()),
    'settings.save_provider': async (payload) => providers.save(payload),
    'settings.remove_provider': async ({ provider_id }) => providers.remove(provider_id),
    'settings.activate_provider': async ({ provider_id }) => providers.activate(provider_id),
    'settings.test_provider': async ({ provider_id }) => {
      const config = providers.get(provider_id)
      if (!config) return fail('NOT_FOUND', `There is no provider "${provider_id}".`, { provider_id })
      return ok(await testConnection(config, providers.resolveKey(config)))
    },
    'settings.snapshots': async ({ enabled }) => {
      if (enabled !== undefined) {
        statement(db, "INSERT OR REPLACE INTO app_settings VALUES ('snapshot', ?)").run(enabled ? 'true' : 'false')
      }
      const stored = (snapshotSetting.get() as { value: string } | undefined)?.value
      return ok({ enabled: options.snapshots !== false && stored !== 'false', available: options.snapshots !== false })
    },
    'history.plan': async (payload, context) => {
      const session = sessionOf(context)
      if (session.kind === 'error') return session
      if (payload.operation === 'rewind') {
        return fail('UNSUPPORTED', 'Multi-turn rewind is not available yet; undo or revert single turns.')
      }
      const planned = await restore.plan(workspaceOf(context.project), session.result, {
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
      const applied = await restore.apply(workspaceOf(context.project), session.result, {
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
      // Which turn actions are executable changed: turn cards refetch on this.
      if (applied.kind === 'ok') {
        events.emit(
          'session.updated',
          { project_id: context.project.project_id, session_id: session.result.session_id },
          { session_id: session.result.session_id },
        )
      }
      if (applied.kind === 'ok' && applied.result.transaction_id) {
        const workspace = workspaceOf(context.project)
        const paths = (
          db
            .prepare('SELECT path FROM transaction_files WHERE transaction_id = ?')
            .all(applied.result.transaction_id) as Array<{ path: string }>
        ).map((row) => row.path)
        events.emit(
          'workspace.changed',
          { project_id: context.project.project_id },
          { workspace_id: workspace.workspace_id, revision: workspaceRevision(db, workspace.workspace_id), paths },
        )
      }
      return applied
    },
    'review.files': async (payload, context) => {
      const workspace = workspaceOf(context.project)
      // The git workspace belongs to the project, not to a conversation: it needs no session.
      if (payload.scope === 'workspace') {
        if (!context.project.is_git) {
          return fail('UNAVAILABLE', 'This folder is not a git repository, so there is no git workspace to review.', {
            reason: 'not-git',
          })
        }
        const subScope = workspaceSubScope(payload.sub_scope)
        const current = await workspaceBasis(context.project.root)
        if (current.kind === 'error') return current
        const owner = { project_id: context.project.project_id, session_id: context.owner.session_id ?? '' }
        let failure: Outcome<never> | undefined
        const paged = await pageReviewFiles(
          review,
          owner,
          payload,
          `${context.project.project_id}|workspace:${subScope}:${current.result.basis}`,
          async () => {
            const rows = await workspaceRows(context.project.root, current.result.entries, subScope, blobs, {
              ...journal.limits,
              ...(options.reviewPinQuotaBytes !== undefined ? { pinQuotaBytes: options.reviewPinQuotaBytes } : {}),
            })
            if (rows.kind === 'error') {
              failure = rows
              return []
            }
            return rows.result
          },
        )
        return failure ?? paged
      }
      const session = sessionOf(context)
      if (session.kind === 'error') return session
      let receipts: () => Receipt[]
      let basisWhere: string
      let basisKey: string
      if (payload.scope === 'turn') {
        const turnId = payload.turn_id
        if (turnId === undefined) return fail('INVALID_REQUEST', 'Reviewing a turn needs its turn_id.')
        const node = statement(
          db,
          "SELECT 1 FROM nodes WHERE node_id = ? AND session_id = ? AND kind = 'assistant'",
        ).get(turnId, session.result.session_id)
        if (!node) return fail('NOT_FOUND', `There is no turn "${turnId}" in this session.`, { turn_id: turnId })
        receipts = () => turnReceipts(db, workspace.workspace_id, turnId)
        basisWhere = 'origin_turn_id = ?'
        basisKey = turnId
      } else {
        const branchId = session.result.active_branch_id
        receipts = () => branchReceipts(db, workspace.workspace_id, branchId)
        basisWhere = 'branch_id = ?'
        basisKey = branchId
      }
      // Issue 16: This turn also lists the files its commands changed, from the step snapshots.
      let commandChangesOfTurn: ReturnType<typeof commandChanges> = []
      if (payload.scope === 'turn' && payload.turn_id !== undefined) {
        const project = snapshotsOf(context.project.project_id, context.project.root)
        commandChangesOfTurn = commandChanges(
          await turnCommandChanges(turnParts(db, payload.turn_id), receipts, project),
        )
      }
      // The scope's own committed transactions: page two is stale only if the scope itself changed.
      const counted = statement(
        db,
        `SELECT COUNT(*) AS n, MAX(workspace_sequence) AS last FROM transactions WHERE workspace_id = ? AND ${basisWhere} AND status = 'committed'`,
      ).get(workspace.workspace_id, basisKey) as { n: number; last: number | null }
      const basis = `${context.project.project_id}|${payload.scope}:${basisKey}:${counted.n}:${counted.last ?? 0}:${commandChangesOfTurn.length}`
      return pageReviewFiles(
        review,
        { project_id: context.project.project_id, session_id: session.result.session_id },
        payload,
        basis,
        async () => {
          const rows = await rowsFromReceipts(
            receipts(),
            blobs,
            journal.limits.statsBudgetBytes,
            changeSetIndex(db, session.result.session_id),
          )
          if (commandChangesOfTurn.length === 0) return rows
          // A file the journal also changed in this turn keeps its exact row only.
          const journaled = new Set(rows.flatMap((row) => (row.old_path ? [row.path, row.old_path] : [row.path])))
          const fromCommands = await commandRows({
            changes: commandChangesOfTurn.filter((change) => !journaled.has(change.path)),
            snapshots: snapshotsOf(context.project.project_id, context.project.root),
            blobs,
            turnId: payload.turn_id ?? '',
            limits: {
              ...journal.limits,
              ...(options.reviewPinQuotaBytes !== undefined ? { pinQuotaBytes: options.reviewPinQuotaBytes } : {}),
            },
          })
          // Snapshots that expired are listed nowhere rather than guessed at.
          return fromCommands.kind === 'ok' ? [...rows, ...fromCommands.result] : rows
        },
      )
    },
    'review.diff': async (payload, context) =>
      pageReviewDiff(
        review,
        diffRunner,
        blobs,
        context.project.project_id,
        payload,
        options.reviewDiffBudgetMs,
        async (basis) => {
          // A workspace snapshot holds only while git's status, the index and the worktree are as listed.
          const marker = `${context.project.project_id}|workspace:`
          if (!basis.startsWith(marker)) return true
          const current = await workspaceBasis(context.project.root)
          return current.kind === 'ok' && basis.endsWith(`:${current.result.basis}`)
        },
      ),
    'review.preview': async (payload, context) => reviewPreview(review, blobs, context.project.project_id, payload),
    // Workbench (issue 12).
    'git.status': async (_payload, { project }) => gitDecorations(project.root, project.is_git),
    'history.conflict_diff': async (payload, context) => {
      const session = sessionOf(context)
      if (session.kind === 'error') return session
      return conflictDiff(
        {
          db,
          blobs,
          workspace: workspaceOf(context.project),
          maxFileBytes: journal.limits.maxFileBytes,
          diff: (before, after) => diffRunner.run(before, after, options.reviewDiffBudgetMs ?? 2_000),
        },
        session.result,
        payload,
      )
    },
    'journal.transactions': async (payload, context) => {
      const workspace = workspaceOf(context.project)
      return ok({
        transactions: journal.receipts({ workspace_id: workspace.workspace_id, ...payload }),
        revision: workspaceRevision(db, workspace.workspace_id),
      })
    },
  }

  const projectOf = (projectId: string) => projects.get(projectId)
  const turns: TurnApi = {
    async begin(projectId, sessionId, text) {
      const session = getSession(db, projectId, sessionId)
      return session.kind === 'error' ? session : beginTurn(db, session.result, text)
    },
    async mutate(projectId, turn, plan) {
      const project = projectOf(projectId)
      if (!project) return fail('NOT_FOUND', `No project with id "${projectId}" is open.`)
      const workspace = workspaceOf(project)
      return journal.mutate(workspace, turn.attribution, () => plan({ workspace, limits: journal.limits }))
    },
    async finalize(projectId, turn, result) {
      const session = getSession(db, projectId, turn.session_id)
      if (session.kind === 'error') return session
      return finalizeTurn(db, blobs, session.result, {
        turn_id: turn.turn_id,
        ...result,
        statsBudgetBytes: journal.limits.statsBudgetBytes,
      })
    },
  }

  let disposed = false
  const collectGarbage = async ({ graceMs = 60 * 60 * 1000 }: { graceMs?: number } = {}) => {
    await ready
    const { expired } = applyRetention(db, options.retention)
    const { removed } = await blobs.sweep({ graceMs })
    return { expired, removed: removed.length }
  }
  void ready
    .then(async () => {
      // Not on the request path: requests are served while this runs.
      await new Promise((resolve) => setTimeout(resolve, 2_000).unref())
      if (!disposed) await collectGarbage()
    })
    .catch((error: unknown) => {
      if (!disposed) host.log('warn', 'Garbage collection failed', { error: String(error) })
    })

  const dispatcher = createDispatcher(handlers, projects, host)

  return {
    dataDir,
    ready,
    turns,
    collectGarbage,
    serveBytes: async (ticketId, options) => {
      await ready.catch(() => undefined)
      return byteTransfers.serve(ticketId, options)
    },
    handle: async (raw) => {
      await ready.catch(() => undefined)
      return dispatcher.handle(raw)
    },
    onEvent: (listener) => events.subscribe(listener),
    dispose() {
      if (disposed) return
      disposed = true
      watchers.dispose()
      diffRunner.dispose()
      search.runner.dispose()
      // Running turns are stopped first (their writes are journal transactions either way); with
      // none running the store closes at once, so a restart in the same process sees it closed.
      const stopping = agent.dispose()
      const close = () => {
        snapshots.dispose()
        store.close()
      }
      if (stopping === null) close()
      else void stopping.finally(close)
    },
  }
}
