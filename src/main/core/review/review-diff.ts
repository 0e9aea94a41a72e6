import { fail, type FailureReasonOf, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import type { BlobStore } from '../store'
import type { DiffRunner } from './diff-runner'
import type { ReviewPaging } from './review-files'

type Result = ResultOf<'review.diff'>
type Line = Result['hunks'][number]['lines'][number]

/** Spec 07: a diff page holds at most 200 lines or 256 KiB; a longer hunk is split. */
export const DIFF_PAGE_LINES = 200
export const DIFF_PAGE_BYTES = 256 * 1024
/** Over this a diff is reported as `timeout`, never approximated. */
export const DIFF_TIME_BUDGET_MS = 2_000

const utf8 = new TextDecoder('utf-8', { fatal: true })

interface FlatLine extends Line {
  /** Index of the hunk this line belongs to. */
  readonly hunk: number
  /** Where the line sits on each side (the next line number there), for a hunk starting at it. */
  readonly oldAt: number
  readonly newAt: number
}

async function flatten(
  runner: DiffRunner,
  before: string,
  after: string,
  budgetMs: number,
  context: number,
): Promise<FlatLine[] | 'timeout'> {
  const patch = await runner.run(before, after, budgetMs, context)
  if (patch.kind === 'timeout') return 'timeout'
  const lines: FlatLine[] = []
  patch.hunks.forEach((hunk, index) => {
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    for (const raw of hunk.lines) {
      if (raw.startsWith('\\')) continue // "\ No newline at end of file"
      const text = raw.slice(1)
      const at = { hunk: index, oldAt: oldLine, newAt: newLine }
      if (raw.startsWith('+')) lines.push({ ...at, kind: 'add', text, old_line: null, new_line: newLine++ })
      else if (raw.startsWith('-')) lines.push({ ...at, kind: 'del', text, old_line: oldLine++, new_line: null })
      else lines.push({ ...at, kind: 'context', text, old_line: oldLine++, new_line: newLine++ })
    }
  })
  return lines
}

/**
 * One page of a file's diff from the same review snapshot, read from the blob pair the snapshot
 * pinned (never the current disk). The cursor is bound to the snapshot, the path, the blob pair
 * and the page budget, in its own namespace.
 */
export async function pageReviewDiff(
  paging: ReviewPaging,
  runner: DiffRunner,
  blobs: BlobStore,
  projectId: string,
  payload: { snapshot_id: string; path: string; cursor?: string | undefined; context?: number | undefined },
  budgetMs = DIFF_TIME_BUDGET_MS,
  /** For workspace snapshots: whether the basis still holds now (status, index, worktree). */
  stillCurrent?: (basis: string) => Promise<boolean>,
): Promise<Outcome<Result>> {
  const stale = (reason: FailureReasonOf<'STALE_SNAPSHOT'>) =>
    fail('STALE_SNAPSHOT', 'The review list changed; reload it before opening this diff.', { reason })
  const snapshot = paging.snapshots.get(payload.snapshot_id)
  if (!snapshot || !snapshot.basis.startsWith(`${projectId}|`)) return stale('evicted')
  if (stillCurrent && !(await stillCurrent(snapshot.basis))) return stale('basis-changed')
  const row = snapshot.items.find((item) => item.path === payload.path)
  if (!row)
    return fail('NOT_FOUND', `"${payload.path}" is not part of this review.`, {
      path: payload.path,
      reason: 'not-in-review',
    })
  const pair = `${row.before_blob ?? 'absent'}:${row.after_blob ?? 'absent'}`
  const context = payload.context ?? 3
  // The context is part of the page layout: a cursor of one context never reads another's pages.
  const budgetKey = `${DIFF_PAGE_LINES}:${DIFF_PAGE_BYTES}:${context}`
  let offset = 0
  if (payload.cursor !== undefined) {
    const claims = paging.signer.open(payload.cursor)
    if (
      !claims ||
      claims.query_kind !== 'review_diff' ||
      claims.project_id !== projectId ||
      claims.snapshot_id !== snapshot.snapshot_id ||
      claims.query !== `${payload.path}\u0000${budgetKey}` ||
      claims.basis !== pair
    ) {
      return stale('cursor-mismatch')
    }
    offset = claims.offset
  }
  const base = { path: row.path, before_size: null as number | null, after_size: null as number | null }
  if (row.diff_state === 'binary' || row.diff_state === 'large') {
    return ok({ ...base, diff_state: row.diff_state, hunks: [], next_cursor: null })
  }
  const read = async (ref: string | null): Promise<Buffer | null | 'missing'> => {
    if (ref === null) return null
    const bytes = await blobs.read(ref)
    return bytes.kind === 'ok' ? bytes.result : 'missing'
  }
  const [beforeBytes, afterBytes] = await Promise.all([read(row.before_blob), read(row.after_blob)])
  if (beforeBytes === 'missing' || afterBytes === 'missing') {
    return fail('UNAVAILABLE', `The recorded content of "${row.path}" is no longer kept.`, {
      path: row.path,
      reason: 'expired',
    })
  }
  base.before_size = beforeBytes?.length ?? null
  base.after_size = afterBytes?.length ?? null
  let before: string
  let after: string
  try {
    before = beforeBytes ? utf8.decode(beforeBytes) : ''
    after = afterBytes ? utf8.decode(afterBytes) : ''
  } catch {
    return ok({ ...base, diff_state: 'binary', hunks: [], next_cursor: null })
  }
  const lines = await flatten(runner, before, after, budgetMs, context)
  if (lines === 'timeout') return ok({ ...base, diff_state: 'timeout', hunks: [], next_cursor: null })

  let end = offset
  let bytes = 0
  while (end < lines.length && end - offset < DIFF_PAGE_LINES) {
    const size = Buffer.byteLength((lines[end] as FlatLine).text) + 16
    if (end > offset && bytes + size > DIFF_PAGE_BYTES) break
    bytes += size
    end++
  }
  const hunks: Result['hunks'] = []
  for (let i = offset; i < end; i++) {
    const line = lines[i] as FlatLine
    const { hunk, oldAt: _old, newAt: _new, ...shown } = line
    const last = hunks[hunks.length - 1]
    if (!last || (lines[i - 1] as FlatLine | undefined)?.hunk !== hunk || i === offset) {
      hunks.push({
        old_start: line.oldAt,
        new_start: line.newAt,
        continued: i === offset && i > 0 && (lines[i - 1] as FlatLine).hunk === hunk,
        lines: [shown],
      })
    } else {
      last.lines.push(shown)
    }
  }
  return ok({
    ...base,
    diff_state: 'available',
    hunks,
    next_cursor:
      end < lines.length
        ? paging.signer.sign({
            query_kind: 'review_diff',
            snapshot_id: snapshot.snapshot_id,
            project_id: projectId,
            basis: pair,
            query: `${payload.path}\u0000${budgetKey}`,
            offset: end,
          })
        : null,
  })
}
