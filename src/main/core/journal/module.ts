import { ok, type ProjectSummary } from '../../../shared/protocol'
import type { ModuleActions } from '../actions'
import type { EventBus } from '../events'
import { createIdempotentMutations, type IdempotentMutations } from '../store'
import type { FaultHook } from './faults'
import { openJournalStore, type JournalStore } from './open'
import { transactionPaths, workspaceRoots } from './queries'
import { ensureWorkspace, projectOfWorkspace, workspaceRevision } from './records'
import type { RecoveryReport } from './recover'
import type { Workspace } from './transaction'
import type { JournalLimits, Receipt } from './types'

export interface JournalModule {
  readonly store: JournalStore
  /** The one idempotency flow for every mutating action (file operations, restores, conversions). */
  readonly mutations: IdempotentMutations
  readonly dataDir: string
  /** The project's main workspace (created on first use). */
  workspaceOf(project: Pick<ProjectSummary, 'project_id' | 'root'>): Workspace
  /** `workspace.changed` for the paths a committed transaction touched, to the project's clients. */
  announceReceipt(workspace: Workspace, receipt: Receipt): void
  announceTransaction(workspace: Workspace, transactionId: string): void
  readonly actions: ModuleActions<'journal.transactions'>
  /** Settles every `prepared` transaction a stopped process left (spec 03 step 7). */
  recover(): Promise<RecoveryReport>
  dispose(): void
}

/** The content store, the mutation journal and its tables, opened over a data directory. */
export function createJournalModule(deps: {
  dataDir: string
  fault: FaultHook
  limits?: Partial<JournalLimits> | undefined
  events: EventBus
}): JournalModule {
  const store = openJournalStore(deps.dataDir, { fault: deps.fault, limits: deps.limits })
  const { db, journal } = store
  const workspaceOf = (project: Pick<ProjectSummary, 'project_id' | 'root'>): Workspace => ({
    workspace_id: ensureWorkspace(db, project.project_id, project.root),
    root: project.root,
    dataDir: deps.dataDir,
  })
  const announce = (workspace: Workspace, paths: readonly string[]) =>
    deps.events.emit(
      'workspace.changed',
      { project_id: projectOfWorkspace(db, workspace.workspace_id) },
      {
        workspace_id: workspace.workspace_id,
        revision: workspaceRevision(db, workspace.workspace_id),
        paths: [...paths],
      },
    )
  return {
    store,
    // A key whose transaction a full disk left unsettled is resolved before it is looked up, so a
    // retry after freeing space runs again instead of answering IN_PROGRESS.
    mutations: createIdempotentMutations(store.idempotency, { beforeLookup: () => journal.settlePending() }),
    dataDir: deps.dataDir,
    workspaceOf,
    announceReceipt: (workspace, receipt) =>
      announce(
        workspace,
        receipt.files.flatMap((f) => (f.old_path ? [f.old_path, f.path] : [f.path])),
      ),
    announceTransaction: (workspace, transactionId) => announce(workspace, transactionPaths(db, transactionId)),
    actions: {
      'journal.transactions': async (payload, context) => {
        const workspace = workspaceOf(context.project)
        return ok({
          transactions: journal.receipts({ workspace_id: workspace.workspace_id, ...payload }),
          revision: workspaceRevision(db, workspace.workspace_id),
        })
      },
    },
    recover: () => {
      const roots = workspaceRoots(db)
      return journal.recover((workspaceId) => roots.find((r) => r.workspace_id === workspaceId)?.root)
    },
    dispose: () => store.close(),
  }
}
