import type { DirEntry, FileVersion, ProjectSummary, SearchEntry } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import type { JournalModule } from '../journal'
import { createCursorSigner, createSnapshotStore } from '../paging'
import { createByteTransfers, type ByteResponse, type ByteTransfers } from './bytes'
import { createContentSearch, type ContentSearchOptions } from './content-search'
import type { ProjectRoots } from './containment'
import { createDirectoryListing, listDirectory } from './list'
import { createHumanOperations, type HumanOperations, type OperationContext } from './operations'
import { createByteBudget, DEFAULT_READ_LIMITS, readFile, type ReadLimits } from './read'
import { searchProject, type ProjectSearch } from './search'
import { createSearchRunner } from './search-runner'
import { fileHistory, readVersion, versionBytes, type FileHistoryDeps, type SessionLookup } from './versions'

/** File bytes that large reads may hold in memory at once, across all clients. */
const LARGE_READ_BUDGET_BYTES = 128 * 1024 * 1024

/** What a human operation needs of a request (another module's request context satisfies it). */
type OperationRequest = Pick<ProjectRequestContext, 'owner' | 'idempotencyKey'> & {
  readonly project: Pick<ProjectRequestContext['project'], 'project_id' | 'root'>
}

type FileActions =
  | 'files.list'
  | 'files.read'
  | 'files.read_bytes'
  | 'files.write'
  | 'files.create'
  | 'files.rename'
  | 'files.copy'
  | 'files.delete'
  | 'files.search'
  | 'files.search_content'
  | 'files.history'
  | 'files.read_version'
  | 'files.restore_version'

export interface FilesModule {
  readonly actions: ModuleActions<FileActions>
  /** Stops the search worker. */
  dispose(): void
  readonly bytes: ByteTransfers
  /** The human file operations, for other modules' trusted writes (an Office conversion). */
  readonly operations: HumanOperations
  rootsOf(root: string): ProjectRoots
  operationContext(context: OperationRequest): OperationContext
  serveBytes(ticketId: string, options: { range?: string | undefined; head?: boolean }): Promise<ByteResponse>
}

/** The explorer's listings, bounded reads, byte transfers and the human file operations (spec 08). */
export function createFilesModule(deps: {
  journal: JournalModule
  readLimits?: Partial<ReadLimits> | undefined
  /** A window lists a project's folder: the project is being shown (the watcher starts). */
  onListed?: (project: ProjectSummary) => void
  /** Index a project for search as soon as its root is listed (the shells; not tests). */
  prewarmSearch?: boolean
  /** The sessions of a project that still exist: History shows only their agent versions. */
  sessions: (projectId: string) => ReturnType<SessionLookup>
  /** A turn's 1-based position in its conversation (File History's "Agent · turn 4"). */
  turnNumber?: (turnId: string) => number | undefined
  /** Content search's engine and bounds (tests force the built-in walk or small bounds). */
  contentSearch?: ContentSearchOptions | undefined
}): FilesModule {
  const { journal } = deps
  const dataDir = journal.dataDir
  const readLimits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...deps.readLimits }
  // Bounded by entries across all listings (~150 B each): a 100 000-entry folder fits four times.
  const listing = createDirectoryListing(
    createCursorSigner(),
    createSnapshotStore<DirEntry>({ maxItems: 400_000, ttlMs: 10 * 60 * 1000 }),
  )
  // File bytes of large reads held at once; past it reads queue (spec 12's memory bound).
  const budget = createByteBudget(LARGE_READ_BUDGET_BYTES)
  const bytes = createByteTransfers({ blobs: journal.store.blobs, limits: readLimits, budget })
  const operations = createHumanOperations({
    db: journal.store.db,
    journal: journal.store.journal,
    mutations: journal.mutations,
    onCommitted: journal.announceReceipt,
  })
  const rootsOf = (root: string): ProjectRoots => ({ root, dataDir })
  const operationContext = (context: OperationRequest): OperationContext => ({
    projectId: context.project.project_id,
    sessionId: context.owner.session_id,
    idempotencyKey: context.idempotencyKey,
    workspace: journal.workspaceOf(context.project),
  })
  const search: ProjectSearch = {
    signer: createCursorSigner(),
    // Bounded by entries across all search snapshots (~100 B each).
    snapshots: createSnapshotStore<SearchEntry>({ maxItems: 500_000, ttlMs: 10 * 60 * 1000 }),
    runner: createSearchRunner(),
  }
  const contentSearch = createContentSearch(deps.contentSearch)
  const historyPaging = {
    signer: createCursorSigner(),
    snapshots: createSnapshotStore<FileVersion>({ maxItems: 100_000, ttlMs: 10 * 60 * 1000 }),
  }
  const historyDeps = (projectId: string): FileHistoryDeps => ({
    db: journal.store.db,
    blobs: journal.store.blobs,
    transfers: bytes,
    signer: historyPaging.signer,
    snapshots: historyPaging.snapshots,
    sessions: () => deps.sessions(projectId),
    ...(deps.turnNumber ? { turnNumber: deps.turnNumber } : {}),
    maxReadBytes: readLimits.maxReadBytes,
    budget,
  })
  return {
    bytes,
    dispose: () => {
      search.runner.dispose()
      contentSearch.dispose()
    },
    operations,
    rootsOf,
    operationContext,
    serveBytes: (ticketId, options) => bytes.serve(ticketId, options),
    actions: {
      'files.list': async (payload, { project }) => {
        deps.onListed?.(project)
        if (deps.prewarmSearch && payload.path === '' && payload.cursor === undefined) {
          search.runner.generations(project.root, dataDir).catch(() => undefined)
        }
        return listDirectory(listing, project.project_id, rootsOf(project.root), payload)
      },
      'files.read': async ({ path }, { project }) => readFile(rootsOf(project.root), path, readLimits, budget),
      'files.read_bytes': async ({ path }, { project }) => bytes.issueFile(rootsOf(project.root), path),
      'files.write': async (payload, context) => operations.write(operationContext(context), payload),
      'files.create': async (payload, context) => operations.create(operationContext(context), payload),
      'files.rename': async (payload, context) => operations.rename(operationContext(context), payload),
      'files.copy': async (payload, context) => operations.copy(operationContext(context), payload),
      'files.delete': async (payload, context) => operations.delete(operationContext(context), payload),
      'files.search': async (payload, { project }) =>
        searchProject(search, project.project_id, rootsOf(project.root), payload),
      'files.search_content': async (payload, { project }) =>
        contentSearch.search(project.project_id, rootsOf(project.root), payload),
      'files.history': async (payload, { project }) =>
        fileHistory(
          historyDeps(project.project_id),
          { projectId: project.project_id, workspaceId: journal.workspaceOf(project).workspace_id },
          payload,
        ),
      'files.read_version': async (payload, { project }) =>
        readVersion(historyDeps(project.project_id), journal.workspaceOf(project).workspace_id, payload),
      'files.restore_version': async (payload, context) => {
        const operation = operationContext(context)
        const version = await versionBytes(
          historyDeps(context.project.project_id),
          operation.workspace.workspace_id,
          payload.path,
          payload.version_id,
        )
        if (version.kind === 'error') return version
        return operations.restoreVersion(operation, { ...payload, content: version.result.bytes })
      },
    },
  }
}
