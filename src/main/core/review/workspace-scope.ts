import { createHash } from 'node:crypto'
import { lstat, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { catBlob, indexPath, status, type StatusEntry } from '../git'
import { lineStats } from '../journal/line-stats'
import type { BlobStore } from '../store'
import { categoryOf } from './categories'
import type { ReviewRow } from './scope-candidates'

export type WorkspaceSubScope = 'all' | 'unstaged' | 'staged'

async function fingerprint(abs: string): Promise<string> {
  try {
    const info = await lstat(abs, { bigint: true })
    return `${info.mode}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
  } catch {
    return 'absent'
  }
}

/**
 * What a workspace snapshot is bound to (spec 07): the status vector, the index file's identity and
 * every candidate's no-follow worktree identity. Editing the index or the worktree, or adding an
 * untracked file, changes it.
 */
export async function workspaceBasis(root: string): Promise<Outcome<{ basis: string; entries: StatusEntry[] }>> {
  const [listed, index] = await Promise.all([status(root), indexPath(root)])
  if (listed.kind === 'error') return listed
  if (index.kind === 'error') return index
  const hash = createHash('sha256')
    .update(listed.result.raw)
    .update(await fingerprint(index.result))
  for (const entry of listed.result.entries)
    hash.update(`\0${entry.path}\0${await fingerprint(join(root, entry.path))}`)
  return ok({ basis: hash.digest('hex'), entries: listed.result.entries })
}

type Side = { kind: 'absent' } | { kind: 'bytes'; bytes: Buffer } | { kind: 'large'; size: number }

async function worktreeSide(root: string, path: string, maxBytes: number): Promise<Side> {
  const abs = join(root, path)
  let info
  try {
    info = await lstat(abs)
  } catch {
    return { kind: 'absent' }
  }
  if (info.isSymbolicLink()) return { kind: 'bytes', bytes: Buffer.from(await readlink(abs)) }
  if (!info.isFile()) return { kind: 'absent' }
  if (info.size > maxBytes) return { kind: 'large', size: info.size }
  return { kind: 'bytes', bytes: await readFile(abs) }
}

async function objectSide(root: string, oid: string | null): Promise<Outcome<Side>> {
  if (oid === null) return ok({ kind: 'absent' })
  const bytes = await catBlob(root, oid)
  return bytes.kind === 'error' ? bytes : ok({ kind: 'bytes', bytes: bytes.result })
}

/**
 * The candidates of one workspace sub-scope, each with its content pinned in the content store so
 * every later diff renders from exactly what was listed, never from the worktree as it is now.
 */
export async function workspaceRows(
  root: string,
  entries: readonly StatusEntry[],
  subScope: WorkspaceSubScope,
  blobs: BlobStore,
  limits: { statsBudgetBytes: number; maxFileBytes: number },
): Promise<Outcome<ReviewRow[]>> {
  const rows: ReviewRow[] = []
  for (const entry of entries) {
    const untracked = entry.unstaged === '?'
    if (subScope === 'staged' && (entry.staged === '.' || untracked)) continue
    if (subScope === 'unstaged' && entry.unstaged === '.') continue
    const before = await objectSide(root, subScope === 'unstaged' ? entry.index_oid : entry.head_oid)
    if (before.kind === 'error') return before
    let after: Side
    if (subScope === 'staged') {
      const staged = await objectSide(root, entry.index_oid)
      if (staged.kind === 'error') return staged
      after = staged.result
    } else {
      after = await worktreeSide(root, entry.path, limits.maxFileBytes)
    }
    if (before.result.kind === 'absent' && after.kind === 'absent') continue
    const pin = async (side: Side) => (side.kind === 'bytes' ? await blobs.put(side.bytes) : null)
    const bytesOf = (side: Side) => (side.kind === 'bytes' ? side.bytes : null)
    const tooLarge = before.result.kind === 'large' || after.kind === 'large'
    const computed = tooLarge
      ? { stats: { unknown: true as const, reason: 'over-budget' }, diff_state: 'large' as const }
      : lineStats(bytesOf(before.result), bytesOf(after), limits.statsBudgetBytes)
    const size =
      after.kind === 'bytes'
        ? after.bytes.length
        : after.kind === 'large'
          ? after.size
          : (bytesOf(before.result)?.length ?? 0)
    rows.push({
      path: entry.path,
      old_path: entry.old_path,
      operation: before.result.kind === 'absent' ? 'create' : after.kind === 'absent' ? 'delete' : 'modify',
      category: categoryOf(entry.path, size, computed.diff_state),
      added: 'added' in computed.stats ? computed.stats.added : null,
      removed: 'added' in computed.stats ? computed.stats.removed : null,
      size,
      diff_state: computed.diff_state,
      source: 'git',
      actor_id: null,
      producer_turn_id: null,
      transaction_ids: [],
      before_blob: await pin(before.result),
      after_blob: await pin(after),
    })
  }
  return ok(rows)
}

export function workspaceSubScope(subScope: string | undefined): Outcome<WorkspaceSubScope> {
  if (subScope === undefined) return ok('all')
  if (subScope === 'unstaged' || subScope === 'staged') return ok(subScope)
  return fail('UNSUPPORTED', `The "${subScope}" workspace view is not available yet; use Unstaged or Staged.`, {
    sub_scope: subScope,
  })
}
