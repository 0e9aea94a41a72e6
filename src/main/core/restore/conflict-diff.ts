import type { StructuredPatchHunk } from 'diff'
import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { CONFLICT_DIFF_LINES } from '../../../shared/protocol'
import { foldReceipts } from '../changes'
import { queryAllReceipts, type FileState, type Workspace } from '../journal'
import { readWriteTarget } from '../journal'
import { isTurnOf, type SessionRecord } from '../conversation'
import type { BlobStore, Database } from '../store'

type Result = ResultOf<'history.conflict_diff'>
type Hunk = Result['hunks'][number]

/** Both sides must be within this to be diffed at all; larger files show sizes only. */
const DIFF_BYTES_LIMIT = 4 * 1024 * 1024

export interface ConflictDiffDependencies {
  readonly db: Database
  readonly blobs: BlobStore
  readonly workspace: Workspace
  readonly maxFileBytes: number
  /** Off the main thread with a time budget (the review diff worker). */
  readonly diff: (
    before: string,
    after: string,
  ) => Promise<{ kind: 'ok'; hunks: StructuredPatchHunk[] } | { kind: 'timeout' }>
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * What changed in `path` since the turn: the bytes the turn left (or found, for a forward restore)
 * against the file on disk now. Read-only; reads only the turn's own recorded blobs and the path.
 */
export async function conflictDiff(
  deps: ConflictDiffDependencies,
  session: SessionRecord,
  request: { turn_id?: string | undefined; path: string; expected?: 'after' | 'before' | undefined },
  /** A multi-turn plan's conflict: what the plan expects the path to hold now. */
  planned?: { kind: 'absent' } | { kind: 'regular'; digest: string; blob_ref: string | null },
): Promise<Outcome<Result>> {
  const { db, blobs, workspace } = deps
  if (planned !== undefined) {
    let expected: FileState = { kind: 'absent' }
    if (planned.kind === 'regular') {
      const read = await blobs.read(planned.blob_ref ?? planned.digest)
      if (read.kind === 'error') {
        return fail('UNAVAILABLE', `The recorded copy of "${request.path}" is no longer kept.`, {
          path: request.path,
          reason: 'expired',
        })
      }
      expected = {
        kind: 'regular',
        digest: planned.digest,
        size: read.result.length,
        mode: '',
        blob_ref: planned.digest,
      }
    }
    return diffAgainstDisk(deps, request.path, expected)
  }
  if (request.turn_id === undefined) return fail('INVALID_REQUEST', 'A conflict diff needs a turn_id or a plan_hash.')
  if (!isTurnOf(db, session.session_id, request.turn_id))
    return fail('NOT_FOUND', 'That turn is not part of this session.', {
      turn_id: request.turn_id,
      reason: 'no-turn',
    })
  const receipts = queryAllReceipts(db, { workspace_id: workspace.workspace_id, origin_turn_id: request.turn_id })
  const side = request.expected ?? 'after'
  const change = foldReceipts(receipts).find((c) =>
    side === 'after' ? c.last_path === request.path : c.first_path === request.path,
  )
  if (!change) {
    return fail('NOT_FOUND', `The turn did not change "${request.path}".`, {
      path: request.path,
      reason: 'not-changed',
    })
  }
  const expected: FileState = side === 'after' ? change.after : change.before
  return diffAgainstDisk(deps, request.path, expected)
}

async function diffAgainstDisk(
  deps: ConflictDiffDependencies,
  path: string,
  expected: FileState,
): Promise<Outcome<Result>> {
  const { blobs, workspace } = deps
  const request = { path }
  const disk = await readWriteTarget(
    { root: workspace.root, dataDir: workspace.dataDir },
    request.path,
    deps.maxFileBytes,
  )
  if (disk.kind === 'error') return disk

  const kindOf = (state: { kind: string }) =>
    (state.kind === 'regular' ? 'file' : state.kind) as Result['expected_kind']
  const base = {
    path: request.path,
    expected_kind: kindOf(expected),
    current_kind: kindOf(disk.result),
    expected_size: expected.kind === 'regular' ? expected.size : null,
    current_size: disk.result.kind === 'regular' ? disk.result.bytes.length : null,
    hunks: [] as Hunk[],
    truncated: false,
  }
  let expectedBytes: Buffer = Buffer.alloc(0)
  if (expected.kind === 'regular') {
    if (expected.size > DIFF_BYTES_LIMIT) return ok({ ...base, diff_state: 'large' })
    const read = await blobs.read(expected.blob_ref ?? expected.digest)
    if (read.kind === 'error') {
      return fail('UNAVAILABLE', `The turn's copy of "${request.path}" is no longer kept.`, {
        path: request.path,
        reason: 'expired',
      })
    }
    expectedBytes = read.result
  }
  const currentBytes = disk.result.kind === 'regular' ? disk.result.bytes : Buffer.alloc(0)
  if (currentBytes.length > DIFF_BYTES_LIMIT) return ok({ ...base, diff_state: 'large' })
  if (expected.kind === disk.result.kind && expectedBytes.equals(currentBytes)) {
    return ok({ ...base, diff_state: 'identical' })
  }
  let before: string
  let after: string
  try {
    before = utf8.decode(expectedBytes)
    after = utf8.decode(currentBytes)
  } catch {
    return ok({ ...base, diff_state: 'binary' })
  }
  if (before.includes('\0') || after.includes('\0')) return ok({ ...base, diff_state: 'binary' })
  const patch = await deps.diff(before, after)
  if (patch.kind === 'timeout') return ok({ ...base, diff_state: 'timeout' })
  const { hunks, truncated } = boundedHunks(patch.hunks, CONFLICT_DIFF_LINES)
  return ok({ ...base, diff_state: 'available', hunks, truncated })
}

/** jsdiff's hunks as protocol hunks, cut after `limit` lines. */
function boundedHunks(source: readonly StructuredPatchHunk[], limit: number): { hunks: Hunk[]; truncated: boolean } {
  const hunks: Hunk[] = []
  let count = 0
  for (const hunk of source) {
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    const lines: Hunk['lines'] = []
    for (const raw of hunk.lines) {
      if (raw.startsWith('\\')) continue
      if (count >= limit) {
        if (lines.length > 0)
          hunks.push({ old_start: hunk.oldStart, new_start: hunk.newStart, continued: false, lines })
        return { hunks, truncated: true }
      }
      const text = raw.slice(1)
      if (raw.startsWith('+')) lines.push({ kind: 'add', text, old_line: null, new_line: newLine++ })
      else if (raw.startsWith('-')) lines.push({ kind: 'del', text, old_line: oldLine++, new_line: null })
      else lines.push({ kind: 'context', text, old_line: oldLine++, new_line: newLine++ })
      count++
    }
    hunks.push({ old_start: hunk.oldStart, new_start: hunk.newStart, continued: false, lines })
  }
  return { hunks, truncated: false }
}
