import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome, type ProtocolError } from '../../../shared/protocol'
import { createLimiter } from '../platform'
import { PinnedDirs } from '../project-fs'
import {
  digestOf,
  resourceShortageOf,
  storageFailure,
  type BlobStore,
  type Database,
  type Digest,
  type WorkspaceLock,
} from '../store'
import { SimulatedCrash, type FaultHook } from './faults'
import { lineStats } from './line-stats'
import {
  matches,
  observe,
  publishDelete,
  publishDirectory,
  publishMove,
  publishRegular,
  type PublishContext,
} from './publish'
import { foldersCreatedBy, insertPrepared, markPublishState, markSettled, type StoredFile } from './records'
import type { PlannedChange, Workspace } from './plan'
import { locator, putBack } from './put-back'
import type { WriteRoots } from './target'
import { tempName } from './temp-names'
import {
  checkApproval,
  describe,
  expectedAfter,
  expectedOf,
  finalPlace,
  insideAny,
  isFolderRemoval,
  octal,
  placesOf,
  recoveryRequired,
} from './transaction-parts'
import type { Attribution, FileState, JournalLimits, Receipt, ReceiptFile } from './types'

export type { PlannedAfter, PlannedChange, Workspace } from './plan'

export interface MutateOptions {
  /** Approval fingerprints (spec 03 step 3): each path's digest, or null for "absent", when approved. */
  readonly approved?: ReadonlyMap<string, Digest | null>
  /** Runs inside the SQLite transaction that prepares the mutation (idempotency claims). */
  readonly onPrepared?: (receipt: Receipt) => void
  /** Runs inside the SQLite transaction that settles it (completing the idempotency record). */
  readonly onSettled?: (receipt: Receipt) => void
  /** Progress of the publish step, for long transactions (every 100 files and at the end). */
  readonly onPublished?: (done: number, total: number) => void
}

/** One run's publish context, plus where its workspace is (a rollback may need to find paths afresh). */
interface RunContext extends PublishContext {
  readonly roots: WriteRoots
}

export interface TransactionEngine {
  mutate(
    workspace: Workspace,
    attribution: Attribution,
    plan: () => Promise<Outcome<readonly PlannedChange[]>>,
    options?: MutateOptions,
  ): Promise<Outcome<Receipt>>
  /**
   * Writes the terminal status of transactions whose settle row a full disk refused (they stay
   * `prepared` in the database until then). Cheap when there are none; never throws.
   */
  settlePending(): void
  dispose(): void
}

export interface EngineDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly lock: WorkspaceLock
  readonly limits: JournalLimits
  readonly fault: FaultHook
}

/** Enough to overlap fsyncs on any disk, far below the descriptor limit. */
const BLOB_WRITES_IN_FLIGHT = 16
/** How often a settle refused by a full disk is tried again (also before every mutation). */
const PENDING_SETTLE_RETRY_MS = 2_000

/** A terminal status known in memory that the database could not take yet. */
interface PendingSettle {
  readonly receipt: Receipt
  readonly status: Exclude<Receipt['status'], 'prepared' | 'committed'>
  readonly detail: string | null
  readonly onSettled: ((receipt: Receipt) => void) | undefined
}

/**
 * Spec 03's sequence, for any set of files as one all-or-nothing transaction: plan under the lock →
 * store before/after blobs → `prepared` (durable) → publish each file with re-verification → confirm
 * the bytes on disk → `committed`. A failure after publishing some files rolls those back (only if
 * they still hold our bytes); a state it cannot explain is `recovery_required`, never a guess.
 */
export function createTransactionEngine(deps: EngineDependencies): TransactionEngine {
  const { db, blobs, lock, limits, fault } = deps
  const pendingSettles: PendingSettle[] = []
  let pendingTimer: ReturnType<typeof setInterval> | undefined

  /**
   * Spec 03 keeps a transaction `prepared` until its terminal row is written. When a full disk
   * refuses that row, the outcome is still known here (nothing of ours is left on disk, or exactly
   * what is unresolved), so it is queued and written as soon as the disk takes it; a process that
   * stops first leaves it `prepared`, and start-up recovery settles it from the disk the same way.
   */
  function settleDurably(
    receipt: Receipt,
    status: PendingSettle['status'],
    detail: string | null,
    onSettled: ((receipt: Receipt) => void) | undefined,
  ): void {
    try {
      markSettled(db, receipt, status, detail, onSettled)
    } catch (error) {
      if (resourceShortageOf(error) === undefined) throw error
      pendingSettles.push({ receipt, status, detail, onSettled })
      if (!pendingTimer) {
        pendingTimer = setInterval(settlePending, PENDING_SETTLE_RETRY_MS)
        pendingTimer.unref()
      }
    }
  }

  function settlePending(): void {
    while (pendingSettles.length > 0) {
      const next = pendingSettles[0] as PendingSettle
      try {
        markSettled(db, next.receipt, next.status, next.detail, next.onSettled)
      } catch {
        // Still refused (or the database is closing): the next retry or start-up recovery settles it.
        return
      }
      pendingSettles.shift()
    }
    clearInterval(pendingTimer)
    pendingTimer = undefined
  }

  /** Per-file publish marks are hints recovery can do without (see markPublishState): a full disk skips them. */
  function notePublishState(...args: Parameters<typeof markPublishState>): void {
    try {
      markPublishState(...args)
    } catch (error) {
      if (resourceShortageOf(error) === undefined) throw error
    }
  }

  return {
    settlePending,
    dispose() {
      // A last try on the way out; what the disk still refuses, start-up recovery settles.
      settlePending()
      clearInterval(pendingTimer)
      pendingTimer = undefined
    },
    async mutate(workspace, attribution, plan, options = {}) {
      const lease = await lock.acquire(workspace.workspace_id)
      if (lease.kind === 'error') return lease
      try {
        settlePending()
        let planned: Outcome<readonly PlannedChange[]>
        try {
          planned = await plan()
        } catch (error) {
          const failure = storageFailure(error, { side: 'project' })
          if (failure) return { kind: 'error', error: failure }
          throw error
        }
        if (planned.kind === 'error') return planned
        const changes = planned.result
        if (changes.length === 0) return fail('INVALID_REQUEST', 'The change contains no files.')
        const approvalProblem = checkApproval(changes, options.approved)
        if (approvalProblem) return { kind: 'error', error: approvalProblem }

        const transactionId = `mtx_${randomUUID()}`
        const { files, beforeStored, afterStored } = describeAndStore(changes)
        // Always settle the blob writes, even if the prepare below throws.
        const settled = (p: Promise<unknown>) =>
          p.then(
            () => undefined,
            (error: unknown) => error,
          )
        const beforeDurable = settled(beforeStored)
        const afterDurable = settled(afterStored)
        let receipt: Receipt
        try {
          receipt = insertPrepared(db, {
            transaction_id: transactionId,
            workspace_id: workspace.workspace_id,
            attribution,
            files,
            createdFolders: foldersCreatedBy(changes),
            onPrepared: options.onPrepared,
          })
        } catch (error) {
          const failure = storageFailure(error, { side: 'data' })
          if (!failure) throw error
          // The prepare rolled back as a whole: no row, no claim, nothing published. The blobs
          // still being written are unreferenced (swept later); none is written after we answer.
          await Promise.all([beforeDurable, afterDurable])
          return { kind: 'error', error: failure }
        }
        const context: RunContext = {
          roots: { root: workspace.root, dataDir: workspace.dataDir },
          fault,
          maxBytes: limits.maxFileBytes,
          dirs: new PinnedDirs(workspace.root),
          tempName: () => tempName(transactionId, randomUUID().slice(0, 8)),
        }
        const published: PlannedChange[] = []
        try {
          return await publishPrepared(
            context,
            receipt,
            changes,
            files,
            published,
            beforeDurable,
            afterDurable,
            options,
          )
        } catch (error) {
          if (error instanceof SimulatedCrash) throw error
          // A bug or an unexpected I/O error after `prepared`: settle here and now (never leave the
          // transaction prepared and its idempotency key in progress until a restart).
          return settleAfterException(context, receipt, published, files, error, options)
        } finally {
          context.dirs.close()
        }
      } finally {
        lease.result.release()
      }
    },
  }

  async function publishPrepared(
    context: RunContext,
    receipt: Receipt,
    changes: readonly PlannedChange[],
    files: readonly StoredFile[],
    published: PlannedChange[],
    beforeDurable: Promise<unknown>,
    afterDurable: Promise<unknown>,
    options: MutateOptions,
  ): Promise<Outcome<Receipt>> {
    const transactionId = receipt.transaction_id
    fault('after-prepare')
    // Rollback needs the before blobs, so they are durable before anything is published. The
    // after blobs (needed only for a later redo) finish while we publish; a crash that loses
    // one is repaired by recovery from the published bytes, which it verifies by digest.
    const blobFailure = (await beforeDurable) ?? undefined
    if (blobFailure !== undefined) {
      await afterDurable
      settleDurably(receipt, 'aborted', JSON.stringify({ reason: 'blob-store-failed' }), options.onSettled)
      const noSpace = storageFailure(blobFailure, { side: 'data' })
      if (noSpace) return { kind: 'error', error: noSpace }
      return fail('UNAVAILABLE', 'Retrace could not store the versions it keeps for undo; nothing was written.', {
        reason: 'blob-store-failed',
      })
    }
    fault('after-blobs')

    let failure: ProtocolError | undefined
    for (const change of changes) {
      let outcome: Outcome<void>
      try {
        outcome = await publishOne(context, change)
      } catch (error) {
        outcome = fail('INTERNAL', `Writing "${change.path}" failed: ${(error as Error).message}`, {
          path: change.path,
        })
      }
      if (outcome.kind === 'error') {
        failure = outcome.error
        break
      }
      published.push(change)
      const after = expectedAfter(change)
      notePublishState(
        db,
        transactionId,
        published.length - 1,
        'applied',
        after.kind === 'regular' ? after.digest : null,
      )
      // The step went through folders opened before it; if one of them was moved or swapped
      // meanwhile, the bytes are not where the path says. Undo (through the same handles) rather
      // than record a change that is somewhere else.
      const moved = placesOf(change).find((place) => !context.dirs.stillInPlace(place))
      if (moved) {
        failure = {
          code: 'CONFLICT',
          message: `A folder on the way to "${moved.path}" was moved or replaced while Retrace wrote it; the change was undone.`,
          details: { path: moved.path, reason: 'parent-changed' },
        }
        break
      }
      fault('after-publish-file')
      if (published.length % 100 === 0 || published.length === changes.length) {
        options.onPublished?.(published.length, changes.length)
      }
    }

    if (failure) return settleFailure(context, receipt, published, files, failure, options)

    // Redo needs the after blobs. One the data disk had no room for is not a state to repair later:
    // put the files back (the before blobs are durable) and say why.
    const afterFailure = await afterDurable
    const afterNoSpace = afterFailure === undefined ? undefined : storageFailure(afterFailure, { side: 'data' })
    if (afterNoSpace) return settleFailure(context, receipt, published, files, afterNoSpace, options)

    // Step 6: confirm what is on disk is what we published, at the place the path names now. A
    // writer that ignored our lock can still slip in after the rename; that shows here and is
    // reported, never committed.
    const unconfirmed: Array<Record<string, unknown>> = []
    const removedFolders = new Set(changes.filter(isFolderRemoval).map((change) => change.path))
    for (const change of changes) {
      const place = finalPlace(change)
      const observed = await observe(context.dirs, place, limits.maxFileBytes)
      // A path inside a folder this transaction removed has no chain to re-walk: the removed
      // folder's own confirmation (further out, at a chain that still stands) proves it is gone.
      const inPlace =
        (expectedAfter(change).kind === 'absent' && insideAny(change.path, removedFolders)) ||
        context.dirs.stillInPlace(place)
      if (!inPlace || !matches(observed, expectedAfter(change))) {
        unconfirmed.push({
          path: change.path,
          expected: describe(expectedAfter(change)),
          actual: inPlace ? describe(observed) : 'folder-moved',
        })
      }
    }
    if (unconfirmed.length > 0) {
      settleDurably(receipt, 'recovery_required', JSON.stringify(unconfirmed), options.onSettled)
      return recoveryRequired(unconfirmed)
    }
    if (afterFailure !== undefined) {
      settleDurably(
        receipt,
        'recovery_required',
        JSON.stringify([{ reason: 'after-blob-store-failed' }]),
        options.onSettled,
      )
      return recoveryRequired([{ reason: 'after-blob-store-failed' }])
    }
    fault('before-commit')
    let committed: Receipt
    try {
      committed = markSettled(db, receipt, 'committed', null, options.onSettled)
    } catch (error) {
      const failure = storageFailure(error, { side: 'data' })
      if (!failure) throw error
      // The commit row did not fit on the disk: a change the journal cannot record is put back
      // (it holds only our bytes, just confirmed) rather than left as an unrecorded write.
      return settleFailure(context, receipt, published, files, failure, options)
    }
    fault('after-commit')
    return ok(committed)
  }

  async function settleFailure(
    context: RunContext,
    receipt: Receipt,
    published: readonly PlannedChange[],
    files: readonly StoredFile[],
    failure: ProtocolError,
    options: MutateOptions,
  ): Promise<Outcome<Receipt>> {
    const rollback = await rollBack(context, published, files, receipt.transaction_id)
    const status =
      rollback.unresolved.length > 0 ? 'recovery_required' : published.length > 0 ? 'rolled_back' : 'aborted'
    if (status !== 'recovery_required') context.dirs.removeCreated()
    settleDurably(
      receipt,
      status,
      rollback.unresolved.length > 0 ? JSON.stringify(rollback.unresolved) : null,
      options.onSettled,
    )
    if (status === 'recovery_required') return recoveryRequired(rollback.unresolved)
    return { kind: 'error', error: failure }
  }

  async function settleAfterException(
    context: RunContext,
    receipt: Receipt,
    published: readonly PlannedChange[],
    files: readonly StoredFile[],
    error: unknown,
    options: MutateOptions,
  ): Promise<Outcome<Receipt>> {
    const failure: ProtocolError = storageFailure(error, {}) ?? {
      code: 'INTERNAL',
      message: `The change failed unexpectedly: ${(error as Error).message ?? String(error)}`,
      details: { transaction_id: receipt.transaction_id },
    }
    try {
      return await settleFailure(context, receipt, published, files, failure, options)
    } catch {
      // Even the rollback failed: say so durably rather than leave the transaction prepared.
      try {
        settleDurably(
          receipt,
          'recovery_required',
          JSON.stringify(published.map((change) => ({ path: change.path, reason: 'exception-during-publish' }))),
          options.onSettled,
        )
      } catch {
        // the database itself failed: start-up recovery settles it from the disk
      }
      return recoveryRequired(published.map((change) => ({ path: change.path, reason: 'exception-during-publish' })))
    }
  }

  /**
   * Describes every file of the transaction (digests, stats) and starts storing its before/after
   * blobs. The writes run in the thread pool while the caller commits `prepared`, so the blob
   * fsyncs overlap the database fsync; nothing is published until both are durable.
   */
  function describeAndStore(changes: readonly PlannedChange[]): {
    files: StoredFile[]
    beforeStored: Promise<unknown>
    afterStored: Promise<unknown>
  } {
    const beforePuts: Array<() => Promise<unknown>> = []
    const afterPuts: Array<() => Promise<unknown>> = []
    const keep = (bytes: Buffer, digest: Digest, into: Array<() => Promise<unknown>>): Digest | null => {
      if (bytes.length > limits.recoveryBudgetBytes) return null
      into.push(() => blobs.put(bytes, digest))
      return digest
    }
    const files = changes.map((change): StoredFile => {
      const beforeBytes = change.before.kind === 'regular' ? change.before.bytes : null
      const afterBytes = change.after.kind === 'regular' ? change.after.bytes : null
      const overBudget = (beforeBytes?.length ?? 0) > limits.recoveryBudgetBytes
      const before: FileState =
        change.before.kind === 'regular'
          ? {
              kind: 'regular',
              digest: change.before.digest,
              size: change.before.bytes.length,
              mode: octal(change.before.mode),
              blob_ref: keep(change.before.bytes, change.before.digest, beforePuts),
            }
          : { kind: change.before.kind }
      let after: FileState
      if (change.after.kind === 'regular') {
        const digest = digestOf(change.after.bytes)
        after = {
          kind: 'regular',
          digest,
          size: change.after.bytes.length,
          mode: octal(change.after.mode),
          blob_ref: keep(change.after.bytes, digest, afterPuts),
        }
      } else after = { kind: change.after.kind }
      const { stats, diff_state } = lineStats(beforeBytes, afterBytes, limits.statsBudgetBytes)
      const file: ReceiptFile = {
        file_lineage_id: '',
        path: change.path,
        operation: change.operation,
        old_path: change.old_path,
        before,
        after,
        stats,
        diff_state,
        recoverability: overBudget ? 'unavailable' : 'exact',
        unavailable_reason: overBudget ? 'over-recovery-budget' : null,
      }
      return { file, change }
    })
    // One pool, before-blobs queued first: rollback's inputs never wait behind redo's.
    const limit = createLimiter(BLOB_WRITES_IN_FLIGHT)
    const beforeStored = Promise.all(beforePuts.map((put) => limit(put)))
    const afterStored = Promise.all(afterPuts.map((put) => limit(put)))
    return { files, beforeStored, afterStored }
  }

  async function publishOne(context: PublishContext, change: PlannedChange): Promise<Outcome<void>> {
    const before = change.before
    switch (change.operation) {
      case 'rename': {
        if (before.kind !== 'regular' || !change.destination) throw new Error('rename needs a regular source')
        if (change.after.kind === 'regular' && digestOf(change.after.bytes) !== before.digest) {
          // A move that also changes the content (apply_patch "Move to"): create the new name
          // (never clobbering), then remove the old one at its verified revision.
          const created = await publishRegular(
            context,
            change.destination.place,
            change.after.bytes,
            change.after.mode,
            { kind: 'absent' },
          )
          if (created.kind === 'error') return created
          const removed = await publishDelete(context, before.place, expectedOf(before))
          if (removed.kind === 'error') {
            await publishDelete(context, change.destination.place, expectedAfter(change))
          }
          return removed
        }
        return publishMove(context, { place: before.place, digest: before.digest }, { place: change.destination.place })
      }
      case 'delete':
        return publishDelete(context, before.place, expectedOf(before))
      case 'create':
      case 'modify': {
        if (change.after.kind === 'directory') return publishDirectory(context, before.place)
        if (change.after.kind !== 'regular') throw new Error('create/modify needs content')
        return publishRegular(context, before.place, change.after.bytes, change.after.mode, expectedOf(before))
      }
    }
  }

  /** Puts back files we already published, but only where our bytes are still what is there. */
  async function rollBack(
    context: RunContext,
    published: readonly PlannedChange[],
    files: readonly StoredFile[],
    transactionId: string,
  ) {
    if (published.some(isFolderRemoval)) return rollBackFromDisk(context, published, files, transactionId)
    const unresolved: Array<Record<string, unknown>> = []
    for (const change of [...published].reverse()) {
      const ordinal = files.findIndex((f) => f.change === change)
      const restored = await restoreBefore(context, change, files[ordinal]?.file.before ?? { kind: 'absent' })
      if (!restored) unresolved.push({ path: change.path, reason: 'could-not-roll-back' })
      else notePublishState(db, transactionId, ordinal, 'rolled_back', null)
      fault('during-rollback')
    }
    return { unresolved }
  }

  /**
   * The rollback of a restore that already removed folders: the run's held folder handles name
   * folders that no longer exist, so every path is found again from the root (as start-up recovery
   * does) and put back last-published first — the folders before the files that go into them.
   */
  async function rollBackFromDisk(
    context: RunContext,
    published: readonly PlannedChange[],
    files: readonly StoredFile[],
    transactionId: string,
  ) {
    const unresolved: Array<Record<string, unknown>> = []
    const fresh: PublishContext = { ...context, dirs: new PinnedDirs(context.roots.root) }
    const locate = locator(context.roots, limits.maxFileBytes)
    try {
      for (const change of [...published].reverse()) {
        const ordinal = files.findIndex((f) => f.change === change)
        const file = files[ordinal]?.file
        if (file && (await putBack(fresh, file, locate, blobs)))
          notePublishState(db, transactionId, ordinal, 'rolled_back', null)
        else unresolved.push({ path: change.path, reason: 'could-not-roll-back' })
        fault('during-rollback')
      }
    } finally {
      fresh.dirs.close()
    }
    return { unresolved }
  }

  async function restoreBefore(context: PublishContext, change: PlannedChange, before: FileState): Promise<boolean> {
    try {
      if (change.operation === 'rename') {
        const source = change.before
        if (source.kind !== 'regular' || !change.destination) return false
        if (change.after.kind === 'regular' && digestOf(change.after.bytes) !== source.digest) {
          const restored = await publishRegular(context, source.place, source.bytes, source.mode, { kind: 'absent' })
          if (restored.kind === 'error') return false
          return (await publishDelete(context, change.destination.place, expectedAfter(change))).kind === 'ok'
        }
        const back = await publishMove(
          context,
          { place: change.destination.place, digest: source.digest },
          { place: source.place },
        )
        return back.kind === 'ok'
      }
      const place = change.before.place
      const current = expectedAfter(change)
      if (before.kind === 'absent') return (await publishDelete(context, place, current)).kind === 'ok'
      if (before.kind === 'directory') return (await publishDirectory(context, place)).kind === 'ok'
      if (!before.blob_ref) return false
      const bytes = await blobs.read(before.blob_ref)
      if (bytes.kind === 'error') return false
      const mode = Number.parseInt(before.mode, 8)
      return (await publishRegular(context, place, bytes.result, mode, current)).kind === 'ok'
    } catch {
      return false
    }
  }
}
