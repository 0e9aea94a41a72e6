import { mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { Disposable } from '../../shared/disposable'
import type { EventFrame, PermissionMode, ProviderKind, ResponseEnvelope } from '../../shared/protocol'
import type { ActionHandlers } from './actions'
import { createAgentModule, type LoopSettings } from './agent'
import { createDispatcher } from './dispatcher'
import { createEventBus } from './events'
import { createFilesModule, type ByteResponse, type ContentSearchOptions, type ReadLimits } from './files'
import {
  createConversationModule,
  listSessions,
  turnNumberOf,
  type RetentionPolicy,
  type TurnApi,
} from './conversation'
import type { Host } from './host'
import { createOfficeModule, createReadingConverter, type OfficeHost, type OfficeModuleOptions } from './office'
import {
  createJournalModule,
  faultHookFromEnv,
  type FaultHook,
  type JournalLimits,
  type RecoveryReport,
} from './journal'
import { createProjectsModule } from './projects'
import { createCodePort, createRestoreModule } from './restore'
import { createReviewModule } from './review'
import { createDocumentsModule, type DocumentLimits } from './documents'
import { createSnapshotModule } from './snapshot'
import { createWatchModule } from './watch'

export type { Host } from './host'
export { BYTES_ROUTE, type ByteResponse } from './files'
export type { TurnApi } from './conversation'

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
  /** Time one `review.files` page may spend counting inside documents (default 1.5 s). */
  readonly reviewDocumentCountsBudgetMs?: number
  /** Time one restore preview may spend on what changes inside its documents (default 3 s). */
  readonly restoreDocumentBudgetMs?: number
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
   * When retention and the blob sweep run (`collectGarbage`): a couple of seconds after start-up,
   * then every six hours, so an app left open for days does not grow until it restarts. `false`:
   * only when called.
   */
  readonly garbageCollection?: { firstAfterMs: number; everyMs: number } | false
  /** Spec 06 maintenance schedule of the shadow repositories (`false`: none, for short-lived engines). */
  readonly snapshotMaintenance?: { firstAfterMs: number; everyMs: number } | false
  /**
   * Index a project for `files.search` in the background as soon as its root is listed, so the
   * first quick open answers from a warm index (the shells turn it on; tests leave it off).
   */
  readonly prewarmSearch?: boolean
  /** Content search's engine and bounds (tests: the built-in walk, a small regex budget). */
  readonly contentSearch?: ContentSearchOptions
  /** Office documents (spec 10): bundle pin, LibreOffice detection and limits. */
  readonly office?: OfficeModuleOptions
  /** The document tools' and Review's bounds (issue 26): time, heap and bytes of one document job. */
  readonly documentLimits?: Partial<DocumentLimits>
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
  /** The Office module's side for the shells: the bundle tree and origin (spec 10). */
  readonly office: OfficeHost
  /** The project a session belongs to (for the browser host's session routes); undefined: unknown. */
  projectOfSession(sessionId: string): string | undefined
}

/**
 * The composition root: builds each domain module in layer order, merges their action handlers
 * (checked complete at compile time) and wires start-up recovery and disposal. No SQL lives here;
 * each table belongs to the one module that owns it.
 */
export function createCore(options: CoreOptions): Core {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
  const dataDir = realpathSync(options.dataDir)
  const host = options.host
  const fault = options.fault ?? faultHookFromEnv(process.env.RETRACE_FAULT)
  const events = createEventBus((error) => host.log('error', 'An event listener failed', { error: String(error) }))
  const journal = createJournalModule({ dataDir, fault, limits: options.journalLimits, events })
  const { db } = journal.store
  const projects = createProjectsModule({ db, dataDir, events, shell: host })
  const projectOf = (projectId: string) => projects.registry.get(projectId)
  const snapshots = createSnapshotModule({
    db,
    dataDir,
    maxFileBytes: journal.store.journal.limits.maxFileBytes,
    available: options.snapshots !== false,
    maintenance: options.snapshotMaintenance,
    log: host.log,
  })
  const watch = createWatchModule({ dataDir, events, log: host.log })
  const files = createFilesModule({
    journal,
    readLimits: options.readLimits,
    onListed: (project) => watch.ensure(project),
    prewarmSearch: options.prewarmSearch === true,
    contentSearch: options.contentSearch,
    // File History shows agent versions only of sessions that still exist (archived ones too).
    sessions: (projectId) =>
      new Map(
        listSessions(db, projectId, true).map((session) => [
          session.session_id,
          { title: session.title, archived: session.state === 'archived' },
        ]),
      ),
    turnNumber: (turnId) => turnNumberOf(db, turnId),
  })
  // Office documents: their own module; only its actions and shell-facing host cross this line.
  const office = createOfficeModule({
    dataDir,
    events,
    operations: files.operations,
    log: host.log,
    rootsOf: files.rootsOf,
    operationContext: files.operationContext,
    blobs: journal.store.blobs,
    byteTransfers: files.bytes,
    options: options.office,
  })
  // The conversation sits below restore/, which answers what it asks about the files (the port).
  const conversation = createConversationModule({
    journal,
    events,
    code: createCodePort({ journal }),
    projectOf,
    defaultPermissionMode: options.agent?.defaultPermissionMode ?? 'ask',
    retention: options.retention,
    openProject: (path) => projects.open(path),
    recovered: () => agentReady,
  })
  // Issue 26: DOCX/XLSX/PPTX/PDF parsing, editing and diffing, in one bounded worker.
  // ODF and legacy documents are read through the Office module's engine (native LibreOffice,
  // else the WebAssembly pack), inspected first and staged under the data folder, never in the project.
  const readingConverter = createReadingConverter({
    engine: () => office.host.converter(),
    workDir: join(dataDir, 'office', 'reading'),
    inspectLimits: options.office?.inspectLimits,
  })
  const documents = createDocumentsModule({
    limits: options.documentLimits,
    convertForReading: (request) => readingConverter.convert(request),
  })
  // The diff worker belongs to Review; a blocked restore's diff borrows it (see restore).
  const late: { review?: ReturnType<typeof createReviewModule> } = {}
  const restore = createRestoreModule({
    journal,
    conversation,
    events,
    fault,
    snapshotsOf: snapshots.of,
    diff: (before, after) =>
      (late.review as NonNullable<typeof late.review>).diffRunner.run(
        before,
        after,
        options.reviewDiffBudgetMs ?? 2_000,
      ),
    documents,
    documentBudgetMs: options.restoreDocumentBudgetMs,
  })
  conversation.onSessionPurged(restore.forgetSession)
  const review = createReviewModule({
    documents,
    journal,
    sessionOf: conversation.sessionOf,
    snapshotsOf: snapshots.of,
    diffBudgetMs: options.reviewDiffBudgetMs,
    documentCountsBudgetMs: options.reviewDocumentCountsBudgetMs,
    pinQuotaBytes: options.reviewPinQuotaBytes,
    snapshotRows: options.reviewSnapshotRows,
    issueBlob: (digest, size, mime) => files.bytes.issueBlob(digest, size, mime),
    recordedPages: (context) => (path, bytes) =>
      office.host.recordedPages({
        path,
        bytes,
        context: { owner: context.owner, idempotencyKey: undefined, project: context.project },
      }),
  })
  late.review = review

  // Start-up recovery, before any request is served: the journal, then restore intents, then turns.
  const ready = journal.recover().then((report) => {
    restore.recover()
    return report
  })
  ready.catch((error: unknown) => host.log('error', 'Start-up recovery failed', { error: String(error) }))
  const agent = createAgentModule({
    journal,
    history: conversation,
    events,
    projectOf,
    snapshotsOf: snapshots.of,
    secrets: host.secrets,
    log: host.log,
    env: options.agent?.env,
    cliProvider: options.agent?.cliProvider,
    ollamaUrl: options.agent?.ollamaUrl,
    loop: options.agent?.loop,
    documents,
    ready: () => agentReady,
  })
  const agentReady = ready.then(() => agent.recover())
  agentReady.catch((error: unknown) => host.log('error', 'Recovering agent turns failed', { error: String(error) }))

  const handlers = {
    ...projects.actions,
    ...files.actions,
    ...journal.actions,
    ...conversation.actions,
    ...restore.actions,
    ...agent.actions,
    ...snapshots.actions,
    ...review.actions,
    ...watch.actions,
    ...office.actions,
  } satisfies ActionHandlers
  const dispatcher = createDispatcher(handlers, projects.registry, host)

  let disposed = false
  const collectGarbage = async ({ graceMs = 60 * 60 * 1000 }: { graceMs?: number } = {}) => {
    await ready
    const { expired } = conversation.applyRetention()
    const { removed } = await journal.store.blobs.sweep({ graceMs })
    return { expired, removed: removed.length }
  }
  // Not on the request path: requests are served while it runs.
  const gcSchedule = options.garbageCollection ?? { firstAfterMs: 2_000, everyMs: 6 * 60 * 60 * 1000 }
  let gcTimer: ReturnType<typeof setTimeout> | undefined
  const scheduleGarbage = (schedule: { firstAfterMs: number; everyMs: number }, delayMs: number) => {
    gcTimer = setTimeout(() => {
      void collectGarbage()
        .catch((error: unknown) => {
          if (!disposed) host.log('warn', 'Garbage collection failed', { error: String(error) })
        })
        .finally(() => {
          if (!disposed) scheduleGarbage(schedule, schedule.everyMs)
        })
    }, delayMs)
    gcTimer.unref()
  }
  if (gcSchedule !== false) {
    void ready.then(
      () => {
        if (!disposed) scheduleGarbage(gcSchedule, gcSchedule.firstAfterMs)
      },
      () => undefined,
    )
  }

  return {
    dataDir,
    ready,
    turns: conversation.turns,
    office: office.host,
    collectGarbage,
    serveBytes: async (ticketId, byteOptions) => {
      await ready.catch(() => undefined)
      return files.serveBytes(ticketId, byteOptions)
    },
    handle: async (raw) => {
      await ready.catch(() => undefined)
      return dispatcher.handle(raw)
    },
    onEvent: (listener) => events.subscribe(listener),
    projectOfSession: (sessionId) => conversation.projectOfSession(sessionId),
    dispose() {
      if (disposed) return
      disposed = true
      clearTimeout(gcTimer)
      watch.dispose()
      review.dispose()
      documents.dispose()
      readingConverter.dispose()
      files.dispose()
      office.dispose()
      // Running turns are stopped first (their writes are journal transactions either way); with
      // none running the store closes at once, so a restart in the same process sees it closed.
      const stopping = agent.dispose()
      const close = () => {
        snapshots.dispose()
        journal.dispose()
      }
      if (stopping === null) close()
      else void stopping.finally(close)
    },
  }
}
