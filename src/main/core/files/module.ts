import type { DirEntry, ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import type { JournalModule } from '../journal'
import { createCursorSigner, createSnapshotStore } from '../paging'
import { createByteTransfers, type ByteResponse, type ByteTransfers } from './bytes'
import type { ProjectRoots } from './containment'
import { createDirectoryListing, listDirectory } from './list'
import { createHumanOperations, type HumanOperations, type OperationContext } from './operations'
import { createByteBudget, DEFAULT_READ_LIMITS, readFile, type ReadLimits } from './read'

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

export interface FilesModule {
  readonly actions: ModuleActions<FileActions>
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
  return {
    bytes,
    operations,
    rootsOf,
    operationContext,
    serveBytes: (ticketId, options) => bytes.serve(ticketId, options),
    actions: {
      'files.list': async (payload, { project }) => {
        deps.onListed?.(project)
        return listDirectory(listing, project.project_id, rootsOf(project.root), payload)
      },
      'files.read': async ({ path }, { project }) => readFile(rootsOf(project.root), path, readLimits, budget),
      'files.read_bytes': async ({ path }, { project }) => bytes.issueFile(rootsOf(project.root), path),
      'files.write': async (payload, context) => operations.write(operationContext(context), payload),
      'files.create': async (payload, context) => operations.create(operationContext(context), payload),
      'files.rename': async (payload, context) => operations.rename(operationContext(context), payload),
      'files.copy': async (payload, context) => operations.copy(operationContext(context), payload),
      'files.delete': async (payload, context) => operations.delete(operationContext(context), payload),
    },
  }
}
