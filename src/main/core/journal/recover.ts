import { randomUUID } from 'node:crypto'
import { unlinkSync } from 'node:fs'
import { PinnedDirs, readLeaf, sameIdentity, statLeaf, type Place } from '../project-fs'
import { digestOf, resourceShortageOf, type BlobStore, type Database, type IdempotencyStore } from '../store'
import { createdFoldersOf, markSettled, receiptsFromRows } from './records'
import { removeEmptyFolders } from './folders'
import { locator, putBack, type Located } from './put-back'
import { matches, type Expected, type Observed, type PublishContext } from './publish'
import type { DiskState } from './target'
import { tempName } from './temp-names'
import { removeTempFiles } from './transaction-parts'
import type { FileState, Receipt, ReceiptFile } from './types'

export interface RecoveryReport {
  readonly committed: string[]
  readonly aborted: string[]
  readonly rolled_back: string[]
  readonly recovery_required: Array<{ transaction_id: string; files: Array<Record<string, unknown>> }>
  /** Left `prepared` because the disk refused the write that settles them (tried again at the next start). */
  readonly deferred: string[]
}

type Side = 'before' | 'after' | 'other'

/** Restores (Undo/Redo/Revert/Reapply, Rewind): spec 04 step 5 governs how they are rolled back. */
const RESTORE_KINDS: ReadonlySet<string> = new Set(['revert', 'reapply', 'rewind'])

function expectedOf(state: FileState): Expected {
  return state.kind === 'regular' ? { kind: 'regular', digest: state.digest } : { kind: state.kind }
}

/**
 * Spec 03 step 7, run at start-up before any request: every `prepared` transaction is settled from
 * what is on disk. All files at `after` → committed; all at `before` → aborted; some at each → the
 * published ones are put back (they hold our bytes) → rolled_back; anything else →
 * recovery_required naming the path and both digests. Leftover temp files are removed. Every path
 * is reached through folders opened from the root without following links, as when it was written.
 */
export async function recoverPrepared(
  db: Database,
  blobs: BlobStore,
  idempotency: IdempotencyStore,
  rootOf: (workspaceId: string) => string | undefined,
  limits: { maxBytes: number; dataDir: string },
): Promise<RecoveryReport> {
  const maxBytes = limits.maxBytes
  const report: RecoveryReport = { committed: [], aborted: [], rolled_back: [], recovery_required: [], deferred: [] }
  const rows = db
    .prepare("SELECT * FROM transactions WHERE status = 'prepared' ORDER BY workspace_id, workspace_sequence")
    .all()
  for (const receipt of receiptsFromRows(db, rows as never)) {
    const root = rootOf(receipt.workspace_id)
    if (root === undefined) continue
    const locate = locator({ root, dataDir: limits.dataDir }, maxBytes)
    removeTempFiles(
      root,
      receipt.files.flatMap((f) => [parentSegments(f.path), ...(f.old_path ? [parentSegments(f.old_path)] : [])]),
      receipt.transaction_id,
    )
    const dirs = new PinnedDirs(root)
    try {
      const settled = await settleOne(receipt, dirs, locate)
      // A transaction that did not happen leaves none of the folders it created (killed after a
      // mkdir, its file put back or never published); one that is no longer empty keeps what it holds.
      if (settled === 'aborted' || settled === 'rolled_back')
        removeEmptyFolders(root, createdFoldersOf(db, [receipt.transaction_id]))
    } catch (error) {
      // A disk still full at start-up: this one stays prepared and is settled at the next start;
      // the others are still settled now.
      if (resourceShortageOf(error) === undefined) throw error
      report.deferred.push(receipt.transaction_id)
    } finally {
      dirs.close()
    }
  }
  // A process killed after settling a transaction but before completing its idempotency record
  // leaves the record running; settle those from the transaction's terminal status.
  const statusOf = db.prepare('SELECT status FROM transactions WHERE transaction_id = ?')
  for (const record of idempotency.running()) {
    const row = statusOf.get(record.operationId) as { status: string } | undefined
    if (row?.status === 'prepared') continue
    try {
      if (row?.status === 'committed') idempotency.completeByOperation(record.operationId)
      else if (row?.status === 'recovery_required')
        idempotency.completeByOperation(record.operationId, interruptedResponse(record.operationId))
      else idempotency.forgetByOperation(record.operationId)
    } catch (error) {
      // Still running after a full disk: settled at the next start, like its transaction.
      if (resourceShortageOf(error) === undefined) throw error
    }
  }
  return report

  async function settleOne(
    receipt: Receipt,
    dirs: PinnedDirs,
    locate: (path: string) => Promise<Located>,
  ): Promise<'committed' | 'aborted' | 'rolled_back' | 'recovery_required'> {
    const sides: Side[] = []
    const places: Array<Place | undefined> = []
    const unexplained: Array<Record<string, unknown>> = []
    for (const file of receipt.files) {
      const side = await sideOf(file, dirs, locate)
      sides.push(side.side)
      places.push(side.place)
      if (side.side === 'other') unexplained.push(side.detail)
    }
    if (unexplained.length > 0 && !RESTORE_KINDS.has(receipt.kind)) {
      return settle(receipt, 'recovery_required', unexplained)
    }
    if (unexplained.length === 0 && sides.every((s) => s === 'after')) {
      await repairAfterBlobs(receipt, places, dirs, blobs, maxBytes)
      return settle(receipt, 'committed', null)
    }
    if (unexplained.length === 0 && sides.every((s) => s === 'before')) return settle(receipt, 'aborted', null)
    // Spec 04 step 5 for a restore someone wrote into while it was down: the files that still hold
    // the restore's bytes go back (it never committed, so none of it may stand), the others' bytes
    // stay, and the transaction is recovery_required naming them — as the live rollback does,
    // rather than leaving a half-applied restore no Undo or Redo can reach.
    const failed = await putBackPublished(receipt, sides, locate, dirs)
    if (unexplained.length > 0) return settle(receipt, 'recovery_required', [...unexplained, ...failed])
    return settle(receipt, failed.length > 0 ? 'recovery_required' : 'rolled_back', failed.length > 0 ? failed : null)
  }

  /** Puts back every file found at its after state, last published first; answers those that would not go. */
  async function putBackPublished(
    receipt: Receipt,
    sides: readonly Side[],
    locate: (path: string) => Promise<Located>,
    dirs: PinnedDirs,
  ): Promise<Array<Record<string, unknown>>> {
    const context: PublishContext = {
      fault: () => {},
      maxBytes,
      dirs,
      tempName: () => tempName(receipt.transaction_id, `recover-${randomUUID().slice(0, 8)}`),
    }
    const failed: Array<Record<string, unknown>> = []
    // Last published first, as the engine rolls back: a folder a restore removed (after its files)
    // is back before the files that go into it.
    for (const [index, file] of [...receipt.files.entries()].reverse()) {
      if (sides[index] !== 'after') continue
      if (!(await putBack(context, file, locate, blobs))) {
        failed.push({
          path: file.path,
          reason: 'could-not-roll-back',
          before: describe(file.before),
          after: describe(file.after),
        })
      }
    }
    return failed.reverse()
  }

  function settle<S extends 'committed' | 'aborted' | 'rolled_back' | 'recovery_required'>(
    receipt: Receipt,
    status: S,
    detail: unknown,
  ): S {
    markSettled(db, receipt, status, detail === null ? null : JSON.stringify(detail))
    // Idempotency (spec 02): a committed record replays its stored success; an aborted one is
    // forgotten so a retry with the same key runs again; an unresolved one replays the refusal.
    if (status === 'committed') idempotency.completeByOperation(receipt.transaction_id)
    else if (status === 'recovery_required') {
      idempotency.completeByOperation(receipt.transaction_id, interruptedResponse(receipt.transaction_id))
    } else idempotency.forgetByOperation(receipt.transaction_id)
    if (status === 'recovery_required')
      report.recovery_required.push({
        transaction_id: receipt.transaction_id,
        files: detail as Array<Record<string, unknown>>,
      })
    else report[status as 'committed' | 'aborted' | 'rolled_back'].push(receipt.transaction_id)
    return status
  }
}

function parentSegments(path: string): string[] {
  return path.split('/').slice(0, -1)
}

function observedOf(state: DiskState): Observed {
  return state.kind === 'regular' ? { kind: 'regular', digest: state.digest } : { kind: state.kind }
}

/**
 * A process killed after publishing but before its after-blob write finished leaves the blob
 * missing; the published file holds exactly those bytes (its digest was just checked), so store
 * them again.
 */
async function repairAfterBlobs(
  receipt: Receipt,
  places: ReadonlyArray<Place | undefined>,
  dirs: PinnedDirs,
  blobs: BlobStore,
  maxBytes: number,
): Promise<void> {
  for (const [index, file] of receipt.files.entries()) {
    const place = places[index]
    if (file.after.kind !== 'regular' || !file.after.blob_ref || !place) continue
    if ((await blobs.read(file.after.blob_ref)).kind === 'ok') continue
    const parent = await dirs.parent(place, { create: false })
    if (parent.kind === 'error') continue
    const read = await readLeaf(parent.result, place.name, maxBytes)
    if (read.kind === 'regular' && digestOf(read.bytes) === file.after.digest)
      await blobs.put(read.bytes, file.after.digest)
  }
}

async function sideOf(
  file: ReceiptFile,
  dirs: PinnedDirs,
  locate: (path: string) => Promise<Located>,
): Promise<{ side: Side; place?: Place; detail: Record<string, unknown> }> {
  const found = await locate(file.path)
  const detail: Record<string, unknown> = {
    path: file.path,
    before: describe(file.before),
    after: describe(file.after),
    actual: found.kind === 'ok' ? describeObserved(observedOf(found.state)) : `unsafe:${found.reason}`,
  }
  if (found.kind !== 'ok') return { side: 'other', detail }
  const here = observedOf(found.state)
  const place = found.state.place
  if (file.operation === 'rename' && file.old_path) {
    const old = await locate(file.old_path)
    if (old.kind !== 'ok') return { side: 'other', detail: { ...detail, old_path: file.old_path } }
    const there = observedOf(old.state)
    // Killed between link(old → new) and unlink(old): both names are one inode. Undo the link.
    if (found.state.kind === 'regular' && old.state.kind === 'regular') {
      if (sameIdentity(found.state.identity, old.state.identity)) {
        if (await removeOurName(dirs, place, found.state)) return { side: 'before', place, detail }
      }
    }
    const moved = matches(here, expectedOf(file.after)) && there.kind === 'absent'
    const stayed = matches(there, expectedOf(file.before)) && here.kind === 'absent'
    if (moved) return { side: 'after', place, detail }
    if (stayed) return { side: 'before', place, detail }
    // A content-changing move killed between creating the new name and removing the old one: the
    // new name was absent at prepare, so it is ours to remove.
    if (matches(here, expectedOf(file.after)) && matches(there, expectedOf(file.before))) {
      if (await removeOurName(dirs, place, found.state)) return { side: 'before', place, detail }
    }
    return { side: 'other', detail: { ...detail, old_path: file.old_path, actual_old: describeObserved(there) } }
  }
  const atAfter = matches(here, expectedOf(file.after))
  const atBefore = matches(here, expectedOf(file.before))
  // The persisted per-file state narrows what the disk may show: a file recorded as applied that
  // holds its before bytes again (or one recorded as rolled back that holds its after bytes) was
  // changed by someone else in the crash window.
  if (atAfter && file.publish_state !== 'rolled_back') return { side: 'after', place, detail }
  if (atBefore && file.publish_state !== 'applied') return { side: 'before', place, detail }
  return { side: 'other', detail: { ...detail, publish_state: file.publish_state } }
}

/** Unlinks the name at `place` if it is still the very file that was found there. */
async function removeOurName(dirs: PinnedDirs, place: Place, found: DiskState): Promise<boolean> {
  if (found.kind !== 'regular') return false
  const parent = await dirs.parent(place, { create: false })
  if (parent.kind === 'error') return false
  const leaf = statLeaf(parent.result, place.name)
  if (leaf.kind !== 'regular' || !sameIdentity(leaf.identity, found.identity)) return false
  unlinkSync(parent.result.at(place.name))
  return true
}

function interruptedResponse(transactionId: string) {
  return {
    status: 'error',
    error: {
      code: 'RECOVERY_REQUIRED',
      message: 'This change was interrupted and needs your decision.',
      details: { transaction_id: transactionId, reason: 'interrupted' },
    },
  }
}

function describe(state: FileState): string {
  return state.kind === 'regular' ? state.digest : state.kind
}

function describeObserved(state: Observed): string {
  return state.kind === 'regular' ? state.digest : state.kind
}
