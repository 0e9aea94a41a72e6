import { SEARCH_PAGE_SIZE, fail, ok, type Outcome, type ResultOf, type SearchEntry } from '../../../shared/protocol'
import { baseName } from '../../../shared/paths'
import type { CursorSigner, SnapshotStore } from '../paging'
import type { ProjectRoots } from './containment'
import type { SearchRunner } from './search-runner'
import type { SearchMode } from './search-rank'

export interface ProjectSearch {
  readonly signer: CursorSigner
  readonly snapshots: SnapshotStore<SearchEntry>
  readonly runner: SearchRunner
}

type SearchResult = ResultOf<'files.search'>

/**
 * `files.search` (spec 08): the first page ranks the project's index (walked, or refreshed, in the
 * search worker) into a snapshot; later pages come from that snapshot only while the project's
 * entries are the ones it was ranked from — a rename, create or delete since page one makes the
 * cursor `STALE_SNAPSHOT`, as does a cursor of another project, query or mode.
 */
export async function searchProject(
  search: ProjectSearch,
  projectId: string,
  roots: ProjectRoots,
  request: { query: string; mode?: SearchMode | undefined; cursor?: string | undefined },
): Promise<Outcome<SearchResult>> {
  const mode = request.mode ?? 'all'
  const query = JSON.stringify({ query: request.query, mode })
  if (request.cursor !== undefined) {
    const claims = search.signer.open(request.cursor)
    const stale = (why: string) =>
      fail('STALE_SNAPSHOT', 'The search results are out of date; search again from the first page.', { why })
    if (!claims) return stale('unrecognised-cursor')
    if (claims.query_kind !== 'project_search' || claims.project_id !== projectId || claims.query !== query) {
      return stale('cursor-for-another-query')
    }
    const snapshot = search.snapshots.get(claims.snapshot_id)
    if (!snapshot || snapshot.basis !== claims.basis) return stale('snapshot-expired')
    const generations = await search.runner.generations(roots.root, roots.dataDir)
    if (!generations.some((generation) => `${projectId}|${generation}` === claims.basis)) return stale('tree-changed')
    return ok(
      page(
        search,
        projectId,
        query,
        snapshot.snapshot_id,
        claims.basis,
        snapshot.items,
        claims.offset,
        truncatedOf(claims.basis),
      ),
    )
  }
  const answer = await search.runner.query(roots.root, roots.dataDir, request.query, mode)
  const entries: SearchEntry[] = answer.paths.map((path, i) => ({
    path,
    name: baseName(path),
    kind: answer.kinds[i] ?? 'file',
  }))
  const basis = `${projectId}|${answer.generation}`
  const snapshot = search.snapshots.put(basis, entries)
  return ok(page(search, projectId, query, snapshot.snapshot_id, basis, entries, 0, answer.truncated))
}

function truncatedOf(basis: string): boolean {
  return basis.endsWith(':partial')
}

function page(
  search: ProjectSearch,
  projectId: string,
  query: string,
  snapshotId: string,
  basis: string,
  items: readonly SearchEntry[],
  offset: number,
  truncated: boolean,
): SearchResult {
  const end = Math.min(items.length, offset + SEARCH_PAGE_SIZE)
  return {
    snapshot_id: snapshotId,
    entries: items.slice(offset, end),
    total: items.length,
    next_cursor:
      end < items.length
        ? search.signer.sign({
            query_kind: 'project_search',
            snapshot_id: snapshotId,
            project_id: projectId,
            basis,
            query,
            offset: end,
          })
        : null,
    page_size: SEARCH_PAGE_SIZE,
    truncated,
  }
}
