import { basename, dirname, join } from 'node:path'
import { digestOf, type BlobStore, type Database, type IdempotencyStore } from '../store'
import { readNoFollow } from './target'
import { matches, observe, publishDelete, publishRegular, type Expected, type PublishContext } from './publish'
import { markSettled, receiptsFromRows } from './records'
import { removeTempFiles, tempPrefix } from './transaction'
import type { FileState, Receipt, ReceiptFile } from './types'

export interface RecoveryReport {
  readonly committed: string[]
  readonly aborted: string[]
  readonly rolled_back: string[]
  readonly recovery_required: Array<{ transaction_id: string; files: Array<Record<string, unknown>> }>
}

type Side = 'before' | 'after' | 'other'

function expectedOf(state: FileState): Expected {
  return state.kind === 'regular' ? { kind: 'regular', digest: state.digest } : { kind: state.kind }
}

/**
 * Spec 03 step 7, run at start-up before any request: every `prepared` transaction is settled from
 * what is on disk. All files at `after` → committed; all at `before` → aborted; some at each → the
 * published ones are put back (they hold our bytes) → rolled_back; anything else →
 * recovery_required naming the path and both digests. Leftover temp files are removed.
 */
export async function recoverPrepared(
  db: Database,
  blobs: BlobStore,
  idempotency: IdempotencyStore,
  rootOf: (workspaceId: string) => string | undefined,
  maxBytes: number,
): Promise<RecoveryReport> {
  const report: RecoveryReport = { committed: [], aborted: [], rolled_back: [], recovery_required: [] }
  const rows = db
    .prepare("SELECT * FROM transactions WHERE status = 'prepared' ORDER BY workspace_id, workspace_sequence")
    .all()
  for (const receipt of receiptsFromRows(db, rows as never)) {
    const root = rootOf(receipt.workspace_id)
    if (root === undefined) continue
    const abs = (path: string) => join(root, ...path.split('/'))
    await removeTempFiles(
      receipt.files.flatMap((f) => [dirname(abs(f.path)), ...(f.old_path ? [dirname(abs(f.old_path))] : [])]),
      receipt.transaction_id,
    )
    const sides: Side[] = []
    const unexplained: Array<Record<string, unknown>> = []
    for (const file of receipt.files) {
      const side = await sideOf(file, abs, maxBytes)
      sides.push(side.side)
      if (side.side === 'other') unexplained.push(side.detail)
    }
    if (unexplained.length > 0) {
      settle(receipt, 'recovery_required', unexplained)
      continue
    }
    if (sides.every((s) => s === 'after')) {
      await repairAfterBlobs(receipt, abs, blobs, maxBytes)
      settle(receipt, 'committed', null)
      continue
    }
    if (sides.every((s) => s === 'before')) {
      settle(receipt, 'aborted', null)
      continue
    }
    const context: PublishContext = {
      fault: () => {},
      maxBytes,
      tempName: (target) =>
        join(dirname(target), `${tempPrefix(receipt.transaction_id)}recover-${basename(target).slice(0, 40)}`),
    }
    const failed: Array<Record<string, unknown>> = []
    for (const [index, file] of receipt.files.entries()) {
      if (sides[index] !== 'after') continue
      if (!(await putBack(context, file, abs, blobs))) {
        failed.push({
          path: file.path,
          reason: 'could-not-roll-back',
          before: describe(file.before),
          after: describe(file.after),
        })
      }
    }
    settle(receipt, failed.length > 0 ? 'recovery_required' : 'rolled_back', failed.length > 0 ? failed : null)
  }
  // A process killed after settling a transaction but before completing its idempotency record
  // leaves the record running; settle those from the transaction's terminal status.
  const statusOf = db.prepare('SELECT status FROM transactions WHERE transaction_id = ?')
  for (const record of idempotency.running()) {
    const row = statusOf.get(record.operationId) as { status: string } | undefined
    if (row?.status === 'prepared') continue
    if (row?.status === 'committed') idempotency.completeByOperation(record.operationId)
    else if (row?.status === 'recovery_required')
      idempotency.completeByOperation(record.operationId, interruptedResponse(record.operationId))
    else idempotency.forgetByOperation(record.operationId)
  }
  return report

  function settle(
    receipt: Receipt,
    status: 'committed' | 'aborted' | 'rolled_back' | 'recovery_required',
    detail: unknown,
  ) {
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
    else report[status].push(receipt.transaction_id)
  }
}

/**
 * A process killed after publishing but before its after-blob write finished leaves the blob
 * missing; the published file holds exactly those bytes (its digest was just checked), so store
 * them again.
 */
async function repairAfterBlobs(
  receipt: Receipt,
  abs: (path: string) => string,
  blobs: BlobStore,
  maxBytes: number,
): Promise<void> {
  for (const file of receipt.files) {
    if (file.after.kind !== 'regular' || !file.after.blob_ref) continue
    if ((await blobs.read(file.after.blob_ref)).kind === 'ok') continue
    const bytes = await readNoFollow(abs(file.path), maxBytes)
    if (bytes !== 'too-large' && digestOf(bytes) === file.after.digest) await blobs.put(bytes, file.after.digest)
  }
}

async function sideOf(
  file: ReceiptFile,
  abs: (path: string) => string,
  maxBytes: number,
): Promise<{ side: Side; detail: Record<string, unknown> }> {
  const here = await observe(abs(file.path), maxBytes)
  const detail = {
    path: file.path,
    before: describe(file.before),
    after: describe(file.after),
    actual: describeObserved(here),
  }
  if (file.operation === 'rename' && file.old_path) {
    // Killed between link(old → new) and unlink(old): both names are one inode. Undo the link.
    const { lstat, unlink } = await import('node:fs/promises')
    const [newInfo, oldInfo] = await Promise.all([
      lstat(abs(file.path)).catch(() => null),
      lstat(abs(file.old_path)).catch(() => null),
    ])
    if (newInfo && oldInfo && newInfo.ino === oldInfo.ino && newInfo.dev === oldInfo.dev) {
      await unlink(abs(file.path))
      return { side: 'before', detail }
    }
    const there = await observe(abs(file.old_path), maxBytes)
    const moved = matches(here, expectedOf(file.after)) && there.kind === 'absent'
    const stayed = matches(there, expectedOf(file.before)) && here.kind === 'absent'
    if (moved) return { side: 'after', detail }
    if (stayed) return { side: 'before', detail }
    // A content-changing move killed between creating the new name and removing the old one: the
    // new name was absent at prepare, so it is ours to remove.
    if (matches(here, expectedOf(file.after)) && matches(there, expectedOf(file.before))) {
      await unlink(abs(file.path))
      return { side: 'before', detail }
    }
    return { side: 'other', detail: { ...detail, old_path: file.old_path, actual_old: describeObserved(there) } }
  }
  const atAfter = matches(here, expectedOf(file.after))
  const atBefore = matches(here, expectedOf(file.before))
  // The persisted per-file state narrows what the disk may show: a file recorded as applied that
  // holds its before bytes again (or one recorded as rolled back that holds its after bytes) was
  // changed by someone else in the crash window.
  if (atAfter && file.publish_state !== 'rolled_back') return { side: 'after', detail }
  if (atBefore && file.publish_state !== 'applied') return { side: 'before', detail }
  return { side: 'other', detail: { ...detail, publish_state: file.publish_state } }
}

async function putBack(
  context: PublishContext,
  file: ReceiptFile,
  abs: (path: string) => string,
  blobs: BlobStore,
): Promise<boolean> {
  try {
    if (file.operation === 'rename' && file.old_path) {
      const { link, unlink } = await import('node:fs/promises')
      await link(abs(file.path), abs(file.old_path))
      await unlink(abs(file.path))
      return true
    }
    const current = expectedOf(file.after)
    if (file.before.kind === 'absent')
      return (await publishDelete(context, file.path, abs(file.path), current)).kind === 'ok'
    if (file.before.kind !== 'regular' || !file.before.blob_ref) return false
    const bytes = await blobs.read(file.before.blob_ref)
    if (bytes.kind === 'error') return false
    return (
      (
        await publishRegular(
          context,
          file.path,
          abs(file.path),
          bytes.result,
          Number.parseInt(file.before.mode, 8),
          current,
          [],
        )
      ).kind === 'ok'
    )
  } catch {
    return false
  }
}

function interruptedResponse(transactionId: string) {
  return {
    status: 'error',
    error: {
      code: 'RECOVERY_REQUIRED',
      message: 'This change was interrupted and needs your decision.',
      details: { transaction_id: transactionId },
    },
  }
}

function describe(state: FileState): string {
  return state.kind === 'regular' ? state.digest : state.kind
}

function describeObserved(state: Awaited<ReturnType<typeof observe>>): string {
  return state.kind === 'regular' ? state.digest : state.kind
}
