import {
  fail,
  type FailureReasonOf,
  ok,
  type Outcome,
  type ParsedPayloadOf,
  type ResultOf,
} from '../../../shared/protocol'
import { canonicalJson } from '../store'
import type { CursorSigner, SnapshotStore } from '../paging'
import type { ReviewRow } from './scope-candidates'

export const REVIEW_PAGE_SIZE = 100

type Payload = ParsedPayloadOf<'review.files'>
type Result = ResultOf<'review.files'>

export interface ReviewPaging {
  readonly signer: CursorSigner
  readonly snapshots: SnapshotStore<ReviewRow>
}

const churn = (row: ReviewRow) => (row.added ?? 0) + (row.removed ?? 0)
const byPath = (a: ReviewRow, b: ReviewRow) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/** Filter, then a stable total order (ties broken by path), computed on the server over everything. */
export function filterAndSort(rows: readonly ReviewRow[], payload: Pick<Payload, 'filter' | 'sort'>): ReviewRow[] {
  const filter = payload.filter ?? {}
  const query = filter.query?.trim().toLowerCase()
  const kept = rows.filter(
    (row) =>
      (filter.category === undefined || row.category === filter.category) &&
      (filter.operation === undefined || row.operation === filter.operation) &&
      (filter.diff_state === undefined || row.diff_state === filter.diff_state) &&
      (filter.source === undefined || row.source === filter.source) &&
      (!query || row.path.toLowerCase().includes(query) || (row.old_path ?? '').toLowerCase().includes(query)),
  )
  switch (payload.sort ?? 'path') {
    case 'path':
      return kept.sort(byPath)
    case 'churn':
      return kept.sort((a, b) => churn(b) - churn(a) || byPath(a, b))
    case 'size':
      return kept.sort((a, b) => b.size - a.size || byPath(a, b))
  }
}

function totalsOf(rows: readonly ReviewRow[]): Result['totals'] {
  const exact = rows.every((row) => row.added !== null && row.removed !== null)
  const by_category = { code: 0, tests: 0, docs: 0, large: 0, other: 0 }
  for (const row of rows) by_category[row.category]++
  return {
    files: rows.length,
    added: exact ? rows.reduce((sum, row) => sum + (row.added ?? 0), 0) : null,
    removed: exact ? rows.reduce((sum, row) => sum + (row.removed ?? 0), 0) : null,
    by_category,
  }
}

const publicRow = ({ before_blob: _before, after_blob: _after, ...row }: ReviewRow) => row

/**
 * Spec 02 "Snapshots and cursors" for review lists: page one computes and stores the complete
 * filtered, sorted result; later pages are served from that snapshot only if the cursor's scope,
 * owner, basis, filter and sort all match the request — otherwise STALE_SNAPSHOT.
 */
export async function pageReviewFiles(
  paging: ReviewPaging,
  owner: { project_id: string; session_id: string },
  payload: Payload,
  basis: string,
  compute: () => Promise<ReviewRow[]>,
  /** Completes the rows of the page being returned (issue 26: document counts), never the snapshot. */
  completePage: (rows: readonly ReviewRow[]) => Promise<readonly ReviewRow[]> = async (rows) => rows,
): Promise<Outcome<Result>> {
  const { cursor: _cursor, ...query } = payload
  const queryKey = canonicalJson({ ...query, session_id: owner.session_id })
  let snapshotId: string
  let items: readonly ReviewRow[]
  let offset = 0
  if (payload.cursor !== undefined) {
    const stale = (reason: FailureReasonOf<'STALE_SNAPSHOT'>) =>
      fail('STALE_SNAPSHOT', 'The review list changed; it was reloaded from the first page.', { reason })
    const claims = paging.signer.open(payload.cursor)
    if (!claims || claims.query_kind !== 'review_scope') return stale('bad-cursor')
    if (claims.project_id !== owner.project_id || claims.query !== queryKey) return stale('query-mismatch')
    if (claims.basis !== basis) return stale('basis-changed')
    const snapshot = paging.snapshots.get(claims.snapshot_id)
    if (!snapshot || snapshot.basis !== basis) return stale('evicted')
    snapshotId = snapshot.snapshot_id
    items = snapshot.items
    offset = claims.offset
  } else {
    const snapshot = paging.snapshots.put(basis, filterAndSort(await compute(), payload))
    snapshotId = snapshot.snapshot_id
    items = snapshot.items
  }
  const page = await completePage(items.slice(offset, offset + REVIEW_PAGE_SIZE))
  const next = offset + REVIEW_PAGE_SIZE
  return ok({
    snapshot_id: snapshotId,
    files: page.map(publicRow),
    totals: totalsOf(items),
    next_cursor:
      next < items.length
        ? paging.signer.sign({
            query_kind: 'review_scope',
            snapshot_id: snapshotId,
            project_id: owner.project_id,
            basis,
            query: queryKey,
            offset: next,
          })
        : null,
    page_size: REVIEW_PAGE_SIZE,
  })
}
