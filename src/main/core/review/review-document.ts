import { LRUCache } from 'lru-cache'
import {
  countsOf,
  fail,
  type DocumentCounts,
  type FailureReasonOf,
  ok,
  type Outcome,
  type ResultOf,
} from '../../../shared/protocol'
import { extensionOf, mayBeDocument, type DocumentDiffOutcome, type DocumentsModule } from '../documents'
import type { BlobStore } from '../store'
import type { ReviewPaging } from './review-files'
import type { ReviewRow } from './scope-candidates'

/**
 * One document diff may take this long before Review shows `timeout`: the documents worker's own
 * limit, so a long paper's page comparison has the time a read or an edit of it has.
 */
export const DOCUMENT_DIFF_BUDGET_MS = 20_000
/**
 * Decision: the counts of one page of rows get 1.5 s together, so the list never waits long on its
 * documents; rows past it get null and the renderer asks `review.document` for them (the diff
 * started for the row the budget ran out on keeps running and lands in the cache).
 */
export const DOCUMENT_COUNTS_PAGE_BUDGET_MS = 1_500

/** Diffs by blob pair: a pair's diff never changes, so Review, counts and re-opens share it. */
export interface DocumentDiffCache {
  get(
    path: string,
    row: Pick<ReviewRow, 'before_blob' | 'after_blob' | 'size'>,
  ): Promise<DocumentDiffOutcome | 'missing'>
}

export function createDocumentDiffCache(
  documents: DocumentsModule,
  blobs: BlobStore,
  budgetMs = DOCUMENT_DIFF_BUDGET_MS,
): DocumentDiffCache {
  // Small: a diff is a few KiB to a few hundred KiB of JSON; 64 covers the documents of a turn.
  const cache = new LRUCache<string, Promise<DocumentDiffOutcome | 'missing'>>({ max: 64 })
  const read = async (ref: string | null): Promise<Buffer | null | 'missing'> => {
    if (ref === null) return null
    const bytes = await blobs.read(ref)
    return bytes.kind === 'ok' ? bytes.result : 'missing'
  }
  return {
    get(path, row) {
      // The kind is decided by content and extension, so the extension is part of the key.
      const key = `${extensionOf(path)}|${row.before_blob ?? 'absent'}:${row.after_blob ?? 'absent'}`
      const cached = cache.get(key)
      if (cached) return cached
      const computed = (async (): Promise<DocumentDiffOutcome | 'missing'> => {
        // Never read a recorded file into memory only to find it is over the bound.
        if (row.size > documents.limits.maxInputBytes) {
          return { kind: 'unreadable', reason: 'too-large', message: 'The document is too large to compare.' }
        }
        const [before, after] = await Promise.all([read(row.before_blob), read(row.after_blob)])
        if (before === 'missing' || after === 'missing') return 'missing' as const
        return documents.diff(path, before, after, budgetMs)
      })()
      cache.set(key, computed)
      // A missing blob or a failure is not remembered: the next ask tries again.
      computed.then(
        (outcome) => {
          if (outcome === 'missing') cache.delete(key)
        },
        () => cache.delete(key),
      )
      return computed
    },
  }
}

/**
 * `review.document`: what changed inside a document row of the same snapshot, from the blob pair
 * the snapshot pinned (never the current disk) — with review.diff's STALE_SNAPSHOT, NOT_FOUND and
 * UNAVAILABLE rules and, for the git workspace, its basis check.
 */
export async function reviewDocument(
  paging: ReviewPaging,
  cache: DocumentDiffCache,
  projectId: string,
  payload: { snapshot_id: string; path: string },
  stillCurrent: (basis: string) => Promise<boolean>,
): Promise<Outcome<ResultOf<'review.document'>>> {
  const stale = (reason: FailureReasonOf<'STALE_SNAPSHOT'>) =>
    fail('STALE_SNAPSHOT', 'The review list changed; reload it before opening this document.', { reason })
  const snapshot = paging.snapshots.get(payload.snapshot_id)
  if (!snapshot || !snapshot.basis.startsWith(`${projectId}|`)) return stale('evicted')
  if (!(await stillCurrent(snapshot.basis))) return stale('basis-changed')
  const row = snapshot.items.find((item) => item.path === payload.path)
  if (!row) {
    return fail('NOT_FOUND', `"${payload.path}" is not part of this review.`, {
      path: payload.path,
      reason: 'not-in-review',
    })
  }
  const outcome = await cache.get(row.path, row)
  if (outcome === 'missing') {
    return fail('UNAVAILABLE', `The recorded content of "${row.path}" is no longer kept.`, {
      path: row.path,
      reason: 'expired',
    })
  }
  return ok(outcome)
}

/**
 * The page's document rows with their counts: rows of documents only, computed one after another
 * within `budgetMs` for the whole page; a row past the budget (or unreadable) gets null.
 */
export async function withDocumentCounts(
  rows: readonly ReviewRow[],
  cache: DocumentDiffCache,
  budgetMs = DOCUMENT_COUNTS_PAGE_BUDGET_MS,
): Promise<ReviewRow[]> {
  const deadline = Date.now() + budgetMs
  const out: ReviewRow[] = []
  for (const row of rows) {
    if (!mayBeDocument(row.path) || (row.before_blob === null && row.after_blob === null)) {
      out.push(row)
      continue
    }
    out.push({ ...row, document_counts: await countsWithin(cache, row, deadline) })
  }
  return out
}

async function countsWithin(
  cache: DocumentDiffCache,
  row: ReviewRow,
  deadline: number,
): Promise<DocumentCounts | null> {
  const left = deadline - Date.now()
  if (left <= 0) return null
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), left)
  })
  try {
    const outcome = await Promise.race([cache.get(row.path, row).catch(() => null), late])
    return outcome !== null && outcome !== 'late' && outcome !== 'missing' && outcome.kind === 'diff'
      ? countsOf(outcome.diff)
      : null
  } finally {
    clearTimeout(timer)
  }
}
