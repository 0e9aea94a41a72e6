import { baseName } from '../../../shared/paths'
import {
  EDIT_SESSION_GAP_MS,
  HISTORY_PAGE_SIZE,
  fail,
  ok,
  type FileVersion,
  type Outcome,
  type ResultOf,
} from '../../../shared/protocol'
import { lineageAtPath, lineageChanges, lineageVersion, type LineageChange } from '../journal'
import type { CursorSigner, SnapshotStore } from '../paging'
import { statement, type BlobStore, type Database } from '../store'
import type { ByteTransfers } from './bytes'
import type { ByteBudget } from './read'
import { classifyContent } from './sniff'

/** What History needs to know of the conversations its agent versions came from. */
export type SessionLookup = (sessionIds: readonly string[]) => Map<string, { title: string; archived: boolean }>

export interface FileHistoryDeps {
  readonly db: Database
  readonly blobs: BlobStore
  readonly transfers: ByteTransfers
  readonly signer: CursorSigner
  readonly snapshots: SnapshotStore<FileVersion>
  /** Sessions that still exist (a deleted session is absent: its versions disappear). */
  readonly sessions: SessionLookup
  /** A turn's 1-based position in its conversation, for the label "Agent · turn 4". */
  readonly turnNumber?: (turnId: string) => number | undefined
  readonly maxReadBytes: number
  /** The large-read budget `files.read` uses: a version's bytes are in memory while it is classified. */
  readonly budget?: ByteBudget
}

/** A committed change of the lineage, with what Retrace's own file operations noted about it. */
interface Row extends LineageChange {
  readonly action: string | null
  readonly edit_session_id: string | null
}

/** A version plus what the grouping and reads need but the protocol does not show. */
interface Listed {
  version: FileVersion
  editSession: string | null
  digest: string
}

/**
 * The file operation (files.write, files.rename…) behind each human transaction, from this
 * module's own table; the journal's receipts say what changed, not which control changed it.
 */
function humanOperations(
  db: Database,
  transactionIds: readonly string[],
): Map<string, { action: string; edit_session_id: string | null }> {
  const rows = statement(
    db,
    'SELECT transaction_id, action, edit_session_id FROM human_operations WHERE transaction_id IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(transactionIds)) as Array<{
    transaction_id: string
    action: string
    edit_session_id: string | null
  }>
  return new Map(rows.map((row) => [row.transaction_id, row]))
}

function sourceOf(row: Row): FileVersion['source'] {
  switch (row.kind) {
    case 'edit':
      return 'edit'
    case 'revert':
    case 'reapply':
    case 'rewind':
    case 'restore':
      return 'undo'
    case 'human':
      switch (row.action) {
        case 'files.restore_version':
          return 'restore'
        case 'files.create':
        case 'files.copy':
        case 'files.rename':
          return 'operation'
        default:
          return 'edit'
      }
  }
}

/**
 * Every version of the lineage, oldest first, from the journal's committed receipts. Human saves
 * of one editing session (same `edit_session_id`, less than {@link EDIT_SESSION_GAP_MS} apart, no
 * other version in between) become one version; agent receipts stay one version each.
 */
function listVersions(deps: FileHistoryDeps, lineage: string): Listed[] {
  const changes = lineageChanges(deps.db, lineage)
  const operations = humanOperations(
    deps.db,
    changes.flatMap((change) => (change.kind === 'human' ? [change.transaction_id] : [])),
  )
  const rows: Row[] = changes.map((change) => {
    const operation = operations.get(change.transaction_id)
    return { ...change, action: operation?.action ?? null, edit_session_id: operation?.edit_session_id ?? null }
  })
  const sessionIds = [
    ...new Set(rows.flatMap((row) => (row.kind !== 'human' && row.session_id ? [row.session_id] : []))),
  ]
  const sessions = deps.sessions(sessionIds)
  const numbers = new Map<string, number | undefined>()
  const turnOf = (turnId: string): { turn_id: string; turn_number?: number } => {
    if (!numbers.has(turnId)) numbers.set(turnId, deps.turnNumber?.(turnId))
    const number = numbers.get(turnId)
    return number === undefined ? { turn_id: turnId } : { turn_id: turnId, turn_number: number }
  }
  const listed: Listed[] = []
  let previousAfter: string | null | undefined
  for (const row of rows) {
    const { before, after } = row
    const at = row.settled_at_ms ?? row.created_at_ms
    // What the change found differs from what the journal last left: the first change's before is
    // the original; a later one is an edit made outside Retrace. Both are recorded bytes.
    if (before.kind === 'regular' && before.digest !== previousAfter) {
      listed.push({
        version: {
          version_id: `before:${row.transaction_id}:${row.ordinal}`,
          actor: 'user',
          transaction_id: row.transaction_id,
          revision: before.digest,
          size: before.size,
          created_at_ms: row.created_at_ms,
          source: previousAfter === undefined ? 'original' : 'outside',
          path: row.path,
          edits: 1,
          // Retention keeps a lineage's first baseline for good.
          available: before.blob_ref !== null && (row.blobs_expired === 0 || previousAfter === undefined),
        },
        editSession: null,
        digest: before.digest,
      })
    }
    previousAfter = after.kind === 'regular' ? after.digest : null
    if (after.kind !== 'regular') continue
    const bySession = row.kind !== 'human' && row.session_id !== null
    const session = bySession ? sessions.get(row.session_id as string) : undefined
    // A deleted conversation's versions disappear (its receipts still chain the list above).
    if (bySession && !session) continue
    listed.push({
      version: {
        version_id: `after:${row.transaction_id}:${row.ordinal}`,
        actor: row.kind === 'edit' ? 'agent' : 'user',
        ...(bySession && session
          ? { session_id: row.session_id as string, session_title: session.title, session_archived: session.archived }
          : {}),
        ...(row.kind === 'edit' && row.origin_turn_id ? turnOf(row.origin_turn_id) : {}),
        transaction_id: row.transaction_id,
        revision: after.digest,
        size: after.size,
        created_at_ms: at,
        source: sourceOf(row),
        path: row.path,
        edits: 1,
        available: after.blob_ref !== null && row.blobs_expired === 0,
      },
      editSession: row.kind === 'human' && row.action === 'files.write' ? row.edit_session_id : null,
      digest: after.digest,
    })
  }
  return mergeEditingSessions(listed)
}

function mergeEditingSessions(listed: Listed[]): Listed[] {
  const merged: Listed[] = []
  for (const item of listed) {
    const last = merged[merged.length - 1]
    if (
      last &&
      item.editSession !== null &&
      last.editSession === item.editSession &&
      item.version.created_at_ms - last.version.created_at_ms <= EDIT_SESSION_GAP_MS
    ) {
      merged[merged.length - 1] = { ...item, version: { ...item.version, edits: last.version.edits + 1 } }
      continue
    }
    merged.push(item)
  }
  return merged
}

/** `files.history`: newest first, the original last, pages of 100 from one snapshot. */
export function fileHistory(
  deps: FileHistoryDeps,
  owner: { projectId: string; workspaceId: string },
  request: { path: string; cursor?: string | undefined },
): Outcome<ResultOf<'files.history'>> {
  const lineage = lineageAtPath(deps.db, owner.workspaceId, request.path)
  const empty = { path: request.path, versions: [], total: 0, next_cursor: null, page_size: HISTORY_PAGE_SIZE }
  if (lineage === undefined) {
    return request.cursor === undefined ? ok(empty) : stale(request.path, 'no-history')
  }
  const basis = lineageVersion(deps.db, lineage)
  const query = JSON.stringify({ path: request.path })
  let snapshotId: string
  let items: readonly FileVersion[]
  let offset = 0
  if (request.cursor !== undefined) {
    const claims = deps.signer.open(request.cursor)
    if (!claims) return stale(request.path, 'unrecognised-cursor')
    if (claims.query_kind !== 'file_history' || claims.project_id !== owner.projectId || claims.query !== query) {
      return stale(request.path, 'cursor-for-another-query')
    }
    if (claims.basis !== basis) return stale(request.path, 'history-changed')
    const snapshot = deps.snapshots.get(claims.snapshot_id)
    if (!snapshot || snapshot.basis !== basis) return stale(request.path, 'snapshot-expired')
    snapshotId = snapshot.snapshot_id
    items = snapshot.items
    offset = claims.offset
  } else {
    const versions = listVersions(deps, lineage)
      .map((item) => item.version)
      .reverse()
    const snapshot = deps.snapshots.put(basis, versions)
    snapshotId = snapshot.snapshot_id
    items = versions
  }
  const end = Math.min(items.length, offset + HISTORY_PAGE_SIZE)
  return ok({
    path: request.path,
    versions: items.slice(offset, end),
    total: items.length,
    next_cursor:
      end < items.length
        ? deps.signer.sign({
            query_kind: 'file_history',
            snapshot_id: snapshotId,
            project_id: owner.projectId,
            basis,
            query,
            offset: end,
          })
        : null,
    page_size: HISTORY_PAGE_SIZE,
  })
}

function stale(path: string, why: string) {
  return fail('STALE_SNAPSHOT', "The file's history is out of date; reload it from the first page.", { path, why })
}

/** A version listed for `path` right now (so a deleted session's version is not found). */
function findVersion(deps: FileHistoryDeps, workspaceId: string, path: string, versionId: string) {
  const lineage = lineageAtPath(deps.db, workspaceId, path)
  const found =
    lineage === undefined
      ? undefined
      : listVersions(deps, lineage).find((item) => item.version.version_id === versionId)
  if (!found) {
    return fail('NOT_FOUND', `"${path}" has no version "${versionId}".`, {
      path,
      version_id: versionId,
      reason: 'no-version',
    })
  }
  if (!found.version.available) {
    return fail('UNAVAILABLE', 'The bytes of this version are no longer stored.', {
      path,
      version_id: versionId,
      reason: 'expired',
    })
  }
  return ok(found)
}

/** The stored bytes of a version, verified against its digest by the content store. */
export async function versionBytes(
  deps: FileHistoryDeps,
  workspaceId: string,
  path: string,
  versionId: string,
): Promise<Outcome<{ version: FileVersion; bytes: Buffer }>> {
  const found = findVersion(deps, workspaceId, path, versionId)
  if (found.kind === 'error') return found
  const bytes = await deps.blobs.read(found.result.digest)
  if (bytes.kind === 'error') {
    return fail('UNAVAILABLE', 'The bytes of this version are no longer stored.', {
      path,
      version_id: versionId,
      reason: 'missing-blob',
    })
  }
  return ok({ version: found.result.version, bytes: bytes.result })
}

/** `files.read_version`: shaped like `files.read`; a binary version's bytes come by byte transfer. */
export async function readVersion(
  deps: FileHistoryDeps,
  workspaceId: string,
  request: { path: string; version_id: string },
): Promise<Outcome<ResultOf<'files.read_version'>>> {
  const found = findVersion(deps, workspaceId, request.path, request.version_id)
  if (found.kind === 'error') return found
  const { version, digest } = found.result
  if (version.size > deps.maxReadBytes) {
    return fail('TOO_LARGE', `This version of "${request.path}" is larger than the read limit.`, {
      path: request.path,
      size: version.size,
      limit: deps.maxReadBytes,
      reason: 'read-limit',
    })
  }
  const release = deps.budget ? await deps.budget.acquire(version.size) : () => {}
  let content: ReturnType<typeof classifyContent>
  try {
    const bytes = await deps.blobs.read(digest)
    if (bytes.kind === 'error') {
      return fail('UNAVAILABLE', 'The bytes of this version are no longer stored.', {
        path: request.path,
        version_id: request.version_id,
        reason: 'missing-blob',
      })
    }
    content = classifyContent(baseName(version.path), bytes.result)
  } finally {
    release()
  }
  if (content.kind === 'text') {
    return ok({ kind: 'text', path: request.path, text: content.text, revision: version.revision, size: version.size })
  }
  return ok({
    kind: 'binary',
    path: request.path,
    mime: content.mime,
    revision: version.revision,
    size: version.size,
    url: deps.transfers.issueBlob(digest, version.size, content.mime),
  })
}
