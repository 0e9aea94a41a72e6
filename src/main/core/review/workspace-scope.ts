import { createHash } from 'node:crypto'
import { lstatSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { readLinkPath, readPath, statPath, withParent } from '../project-fs'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import {
  branchBase,
  catBlobSizes,
  catBlobs,
  diffRaw,
  headCommit,
  headParent,
  indexPath,
  status,
  type StatusEntry,
} from '../git'
import { lineStats } from '../journal'
import type { BlobStore } from '../store'
import { categoryOf } from './categories'
import type { ReviewRow } from './scope-candidates'

export type WorkspaceSubScope = 'all' | 'unstaged' | 'staged' | 'branch' | 'commit'

/** A no-follow identity of a worktree path, reached without following links on the way. */
async function fingerprint(root: string, path: string): Promise<string> {
  const found = await withParent(root, path, (dir, name) => {
    try {
      const info = lstatSync(dir.at(name), { bigint: true })
      return { kind: 'found' as const, text: `${info.mode}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` }
    } catch {
      return { kind: 'absent' as const }
    }
  })
  return found.kind === 'found' ? found.text : found.kind
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
    .update(await fileFingerprint(index.result))
  for (const entry of listed.result.entries) hash.update(`\0${entry.path}\0${await fingerprint(root, entry.path)}`)
  return ok({ basis: hash.digest('hex'), entries: listed.result.entries })
}

type Side = { kind: 'absent' } | { kind: 'bytes'; bytes: Buffer } | { kind: 'large'; size: number }

/** The index file lives in git's own folder (outside the worktree rules): identity only. */
async function fileFingerprint(abs: string): Promise<string> {
  try {
    const info = await lstat(abs, { bigint: true })
    return `${info.mode}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
  } catch {
    return 'absent'
  }
}

async function worktreeSide(root: string, path: string, maxBytes: number): Promise<Side> {
  const entry = await statPath(root, path)
  if (entry.kind === 'symlink') {
    const target = await readLinkPath(root, path)
    return target === undefined ? { kind: 'absent' } : { kind: 'bytes', bytes: Buffer.from(target) }
  }
  if (entry.kind !== 'regular') return { kind: 'absent' }
  if (entry.identity.size > BigInt(maxBytes)) return { kind: 'large', size: Number(entry.identity.size) }
  const read = await readPath(root, path, maxBytes)
  if (read.kind === 'too-large') return { kind: 'large', size: read.size }
  return read.kind === 'regular' ? { kind: 'bytes', bytes: read.bytes } : { kind: 'absent' }
}

/** Bytes fetched per `cat-file --batch` run: bounds memory however large the commit. */
const OBJECT_CHUNK_BYTES = 32 * 1024 * 1024

async function readObjects(
  root: string,
  oids: readonly string[],
  maxBytes: number,
): Promise<Outcome<Map<string, Side>>> {
  const sides = new Map<string, Side>()
  const sizes = await catBlobSizes(root, oids)
  if (sizes.kind === 'error') return sizes
  let chunk: string[] = []
  let chunkBytes = 0
  const flush = async (): Promise<Outcome<void>> => {
    if (chunk.length === 0) return ok(undefined)
    const read = await catBlobs(root, chunk)
    if (read.kind === 'error') return read
    for (const [oid, bytes] of read.result) sides.set(oid, { kind: 'bytes', bytes })
    chunk = []
    chunkBytes = 0
    return ok(undefined)
  }
  for (const [oid, size] of sizes.result) {
    if (size > maxBytes) {
      sides.set(oid, { kind: 'large', size })
      continue
    }
    if (chunkBytes + size > OBJECT_CHUNK_BYTES) {
      const flushed = await flush()
      if (flushed.kind === 'error') return flushed
    }
    chunk.push(oid)
    chunkBytes += size
  }
  const flushed = await flush()
  return flushed.kind === 'error' ? flushed : ok(sides)
}

/** Bytes of workspace content one review snapshot may pin. */
export const REVIEW_PIN_QUOTA_BYTES = 256 * 1024 * 1024

type Source = { kind: 'absent' } | { kind: 'object'; oid: string } | { kind: 'worktree' }

interface Candidate {
  readonly path: string
  readonly old_path?: string | null
  readonly before: Source
  readonly after: Source
}

const object = (oid: string | null): Source => (oid === null ? { kind: 'absent' } : { kind: 'object', oid })

function fromStatus(entries: readonly StatusEntry[], subScope: 'all' | 'unstaged' | 'staged'): Candidate[] {
  const candidates: Candidate[] = []
  for (const entry of entries) {
    const untracked = entry.unstaged === '?'
    if (subScope === 'staged' && (entry.staged === '.' || untracked)) continue
    if (subScope === 'unstaged' && entry.unstaged === '.') continue
    candidates.push({
      path: entry.path,
      // The unstaged part of a staged rename is an edit of the new path.
      old_path: subScope === 'unstaged' ? null : entry.old_path,
      before: object(subScope === 'unstaged' ? entry.index_oid : entry.head_oid),
      after: subScope === 'staged' ? object(entry.index_oid) : { kind: 'worktree' },
    })
  }
  return candidates
}

/** Branch: merge-base → worktree (committed and uncommitted work), untracked files included. */
async function branchCandidates(root: string, entries: readonly StatusEntry[]): Promise<Outcome<Candidate[]>> {
  const base = await branchBase(root)
  if (base.kind === 'error') return base
  const changes = await diffRaw(root, base.result.base)
  if (changes.kind === 'error') return changes
  const candidates: Candidate[] = changes.result.map((change) => ({
    path: change.path,
    before: object(change.status === 'A' ? null : change.old_oid),
    after: { kind: 'worktree' },
  }))
  for (const entry of entries) {
    if (entry.unstaged === '?')
      candidates.push({ path: entry.path, before: { kind: 'absent' }, after: { kind: 'worktree' } })
  }
  return ok(candidates.sort((a, b) => (a.path < b.path ? -1 : 1)))
}

/** Commit: HEAD against its parent (or, for a root commit, against nothing). */
async function commitCandidates(root: string): Promise<Outcome<Candidate[]>> {
  const head = await headCommit(root)
  if (head === null) return fail('UNAVAILABLE', 'This repository has no commits yet.', { reason: 'no-commits' })
  const parent = await headParent(root)
  const changes = await diffRaw(root, parent ?? EMPTY_TREE, head)
  if (changes.kind === 'error') return changes
  return ok(
    changes.result.map((change) => ({
      path: change.path,
      before: object(change.old_oid),
      after: object(change.new_oid),
    })),
  )
}

/** git's id of the empty tree: the "parent" of a root commit. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

/**
 * The candidates of one workspace sub-scope, each with its content pinned in the content store so
 * every later diff renders from exactly what was listed, never from the worktree as it is now.
 */
export async function workspaceRows(
  root: string,
  entries: readonly StatusEntry[],
  subScope: WorkspaceSubScope,
  blobs: BlobStore,
  limits: { statsBudgetBytes: number; maxFileBytes: number; pinQuotaBytes?: number },
): Promise<Outcome<ReviewRow[]>> {
  // Review storage quota (spec 07): content pinned for one snapshot. Past it, files are listed with
  // their metadata only (`large`, no diff) rather than pinning without bound.
  let pinBudget = limits.pinQuotaBytes ?? REVIEW_PIN_QUOTA_BYTES
  const listed =
    subScope === 'branch'
      ? await branchCandidates(root, entries)
      : subScope === 'commit'
        ? await commitCandidates(root)
        : ok(fromStatus(entries, subScope))
  if (listed.kind === 'error') return listed
  // Every git object the candidates need, read in a few batched git runs (one process per chunk,
  // never one per file: cost follows what changed, as git's own diff does).
  const objects = await readObjects(
    root,
    listed.result.flatMap((c) => [c.before, c.after].flatMap((s) => (s.kind === 'object' ? [s.oid] : []))),
    limits.maxFileBytes,
  )
  if (objects.kind === 'error') return objects
  const sideOf = async (path: string, source: Source): Promise<Outcome<Side>> =>
    source.kind === 'absent'
      ? ok({ kind: 'absent' })
      : source.kind === 'worktree'
        ? ok(await worktreeSide(root, path, limits.maxFileBytes))
        : ok(objects.result.get(source.oid) ?? { kind: 'absent' })
  const rows: ReviewRow[] = []
  for (const candidate of listed.result) {
    const beforeSide = await sideOf(candidate.path, candidate.before)
    if (beforeSide.kind === 'error') return beforeSide
    const afterSide = await sideOf(candidate.path, candidate.after)
    if (afterSide.kind === 'error') return afterSide
    const before = beforeSide.result
    const after = afterSide.result
    if (before.kind === 'absent' && after.kind === 'absent') continue
    // Pins are a cache of bytes git or the worktree already hold: no fsync per blob (see README).
    const pin = (side: Side) => (side.kind === 'bytes' && !overQuota ? blobs.putCached(side.bytes) : null)
    const bytesOf = (side: Side) => (side.kind === 'bytes' ? side.bytes : null)
    const pinned = (bytesOf(before)?.length ?? 0) + (bytesOf(after)?.length ?? 0)
    const overQuota = pinned > pinBudget
    if (!overQuota) pinBudget -= pinned
    const tooLarge = before.kind === 'large' || after.kind === 'large' || overQuota
    const computed = tooLarge
      ? { stats: { unknown: true as const, reason: 'over-budget' }, diff_state: 'large' as const }
      : lineStats(bytesOf(before), bytesOf(after), limits.statsBudgetBytes)
    const size =
      after.kind === 'bytes' ? after.bytes.length : after.kind === 'large' ? after.size : (bytesOf(before)?.length ?? 0)
    rows.push({
      path: candidate.path,
      old_path: candidate.old_path ?? null,
      operation:
        before.kind === 'absent'
          ? 'create'
          : after.kind === 'absent'
            ? 'delete'
            : candidate.old_path
              ? 'rename'
              : 'modify',
      category: categoryOf(candidate.path, size, computed.diff_state),
      added: 'added' in computed.stats ? computed.stats.added : null,
      removed: 'added' in computed.stats ? computed.stats.removed : null,
      size,
      diff_state: computed.diff_state,
      source: 'git',
      actor_id: null,
      producer_turn_id: null,
      outside_changes: 0,
      transaction_ids: [],
      change_set_ids: [],
      before_blob: pin(before),
      after_blob: pin(after),
    })
  }
  return ok(rows)
}

export function workspaceSubScope(subScope: WorkspaceSubScope | undefined): WorkspaceSubScope {
  return subScope ?? 'all'
}
