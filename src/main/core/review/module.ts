import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { ModuleActions, ProjectRequestContext } from '../actions'
import {
  changeSetIndex,
  classifyTurnChanges,
  isTurnOf,
  nodeParts,
  patchFilesFrom,
  type CommandPathChange,
  type SessionRecord,
} from '../conversation'
import { turnUndone } from '../restore'
import { scopeVersion, type JournalModule, type Receipt } from '../journal'
import { createCursorSigner, createSnapshotStore } from '../paging'
import type { ProjectSnapshots } from '../snapshot'
import type { DocumentsModule } from '../documents'
import { reviewCommandNotes } from './command-notes'
import { commandRows } from './command-rows'
import { createDiffRunner, type DiffRunner } from './diff-runner'
import { pageReviewDiff } from './review-diff'
import { pageReviewFiles, type ReviewPaging } from './review-files'
import { reviewPreview, type RecordedPages } from './review-preview'
import { createDocumentDiffCache, reviewDocument, withDocumentCounts } from './review-document'
import { branchReceipts, rowsFromReceipts, turnReceipts, type ReviewRow } from './scope-candidates'
import { workspaceBasis, workspaceRows, workspaceSubScope } from './workspace-scope'

export interface ReviewModule {
  readonly actions: ModuleActions<'review.files' | 'review.diff' | 'review.preview' | 'review.document'>
  /** The diff worker (bounded, off the event loop), shared with the blocked-restore diff. */
  readonly diffRunner: DiffRunner
  dispose(): void
}

/** Spec 07: This turn, Current branch and the git workspace, paged from server-side snapshots. */
export function createReviewModule(deps: {
  journal: JournalModule
  sessionOf: (context: ProjectRequestContext) => Outcome<SessionRecord>
  snapshotsOf: (projectId: string, root: string) => ProjectSnapshots
  diffBudgetMs?: number | undefined
  pinQuotaBytes?: number | undefined
  snapshotRows?: number | undefined
  /** Time a page of `review.files` may spend counting inside documents (tests lengthen it). */
  documentCountsBudgetMs?: number | undefined
  /** Issue 26: what changed inside DOCX/XLSX/PPTX/PDF rows. */
  documents: DocumentsModule
  /** Recorded contents reach the previews through the byte transfer. */
  issueBlob: (digest: string, size: number, mime: string) => string
  /** The LibreOffice pages of a recorded Office version, for the project of the request. */
  recordedPages?: ((context: ProjectRequestContext) => RecordedPages) | undefined
}): ReviewModule {
  const { journal } = deps
  const { db, blobs } = journal.store
  const limits = journal.store.journal.limits
  const paging: ReviewPaging = {
    signer: createCursorSigner(),
    // Bounded by rows across all review snapshots; a 10 000-file turn fits many times over.
    snapshots: createSnapshotStore<ReviewRow>({ maxItems: deps.snapshotRows ?? 500_000, ttlMs: 10 * 60 * 1000 }),
  }
  const diffRunner = createDiffRunner()
  const documentDiffs = createDocumentDiffCache(deps.documents, blobs)
  const completePage = (rows: readonly ReviewRow[]) =>
    withDocumentCounts(rows, documentDiffs, deps.documentCountsBudgetMs)
  // A workspace snapshot holds only while git's status, the index and the worktree are as listed.
  const stillCurrentFor = (context: ProjectRequestContext) => async (basis: string) => {
    const marker = `${context.project.project_id}|workspace:`
    if (!basis.startsWith(marker)) return true
    const current = await workspaceBasis(context.project.root)
    return current.kind === 'ok' && basis.endsWith(`:${current.result.basis}`)
  }
  const pinLimits = {
    ...limits,
    ...(deps.pinQuotaBytes !== undefined ? { pinQuotaBytes: deps.pinQuotaBytes } : {}),
  }

  async function workspaceScope(
    payload: Parameters<ReviewModule['actions']['review.files']>[0],
    context: ProjectRequestContext,
  ) {
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
      paging,
      owner,
      payload,
      `${context.project.project_id}|workspace:${subScope}:${current.result.basis}`,
      async () => {
        const rows = await workspaceRows(context.project.root, current.result.entries, subScope, blobs, pinLimits)
        if (rows.kind === 'error') {
          failure = rows
          return []
        }
        return rows.result
      },
      completePage,
    )
    return failure ?? paged
  }

  return {
    diffRunner,
    dispose: () => diffRunner.dispose(),
    actions: {
      'review.files': async (payload, context) => {
        // The git workspace belongs to the project, not to a conversation: it needs no session.
        if (payload.scope === 'workspace') return workspaceScope(payload, context)
        const workspace = journal.workspaceOf(context.project)
        const session = deps.sessionOf(context)
        if (session.kind === 'error') return session
        let receipts: () => Receipt[]
        let version: { count: number; last: number }
        let basisKey: string
        // Issue 23 item 14: an undone turn's rows say so (an Undo adds no transaction of the turn,
        // so the marker is part of the basis: a snapshot from before the Undo is stale).
        let undone = false
        if (payload.scope === 'turn') {
          const turnId = payload.turn_id
          if (turnId === undefined) return fail('INVALID_REQUEST', 'Reviewing a turn needs its turn_id.')
          if (!isTurnOf(db, session.result.session_id, turnId)) {
            return fail('NOT_FOUND', `There is no turn "${turnId}" in this session.`, {
              turn_id: turnId,
              reason: 'no-turn',
            })
          }
          receipts = () => turnReceipts(db, workspace.workspace_id, turnId)
          version = scopeVersion(db, workspace.workspace_id, { origin_turn_id: turnId })
          undone = turnUndone(db, turnId)
          basisKey = `${turnId}:${undone ? 'undone' : 'standing'}`
        } else {
          const branchId = session.result.active_branch_id
          receipts = () => branchReceipts(db, workspace.workspace_id, branchId)
          version = scopeVersion(db, workspace.workspace_id, { branch_id: branchId })
          basisKey = branchId
        }
        // Issue 16: This turn also lists the files its commands changed, from the step snapshots.
        let commandChangesOfTurn: CommandPathChange[] = []
        const snapshots = deps.snapshotsOf(context.project.project_id, context.project.root)
        if (payload.scope === 'turn' && payload.turn_id !== undefined) {
          const classified = await classifyTurnChanges(
            nodeParts(db, payload.turn_id),
            receipts,
            patchFilesFrom(snapshots),
          )
          commandChangesOfTurn = classified.changes
        }
        // The scope's own committed transactions: page two is stale only if the scope itself changed.
        const basis = `${context.project.project_id}|${payload.scope}:${basisKey}:${version.count}:${version.last}:${commandChangesOfTurn.length}`
        const paged = await pageReviewFiles(
          paging,
          { project_id: context.project.project_id, session_id: session.result.session_id },
          payload,
          basis,
          async () => {
            const rows = await rowsFromReceipts(
              receipts(),
              blobs,
              limits.statsBudgetBytes,
              changeSetIndex(db, session.result.session_id),
            )
            const marked = (list: ReviewRow[]) => (undone ? list.map((row) => ({ ...row, undone: true })) : list)
            if (commandChangesOfTurn.length === 0) return marked(rows)
            // A file the journal also changed in this turn keeps its exact row only.
            const fromCommands = await commandRows({
              changes: commandChangesOfTurn.filter((change) => !change.journaled),
              snapshots,
              blobs,
              turnId: payload.turn_id ?? '',
              limits: pinLimits,
            })
            // Snapshots that expired are listed nowhere rather than guessed at.
            return marked(fromCommands.kind === 'ok' ? [...rows, ...fromCommands.result] : rows)
          },
          completePage,
        )
        // Issue 23: what the turn's commands changed that is not among the rows is said with page
        // one (whatever the filter: it is about the turn, not about the rows shown).
        if (paged.kind === 'error' || payload.scope !== 'turn' || payload.turn_id === undefined) return paged
        if (payload.cursor !== undefined) return paged
        const notes = await reviewCommandNotes(nodeParts(db, payload.turn_id), receipts(), snapshots)
        return notes === null ? paged : ok({ ...paged.result, command_notes: notes })
      },
      'review.diff': async (payload, context) =>
        pageReviewDiff(
          paging,
          diffRunner,
          blobs,
          context.project.project_id,
          payload,
          deps.diffBudgetMs,
          stillCurrentFor(context),
        ),
      'review.preview': async (payload, context) =>
        reviewPreview(
          paging,
          blobs,
          context.project.project_id,
          payload,
          deps.issueBlob,
          deps.recordedPages?.(context),
        ),
      'review.document': async (payload, context) =>
        reviewDocument(paging, documentDiffs, context.project.project_id, payload, stillCurrentFor(context)),
    },
  }
}
