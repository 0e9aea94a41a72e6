import { lstat, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { joinRelPath } from '../../../shared/paths'
import { DIRECTORY_PAGE_SIZE, fail, ok, type DirEntry, type Outcome, type ResultOf } from '../../../shared/protocol'
import type { CursorSigner, SnapshotStore } from '../paging'
import { isInside } from '../platform/fs-paths'
import { JOURNAL_TEMP_PREFIX } from '../journal'
import { isForbiddenName, resolveForRead, type ProjectRoots } from './containment'

export interface DirectoryListing {
  readonly signer: CursorSigner
  readonly snapshots: SnapshotStore<DirEntry>
}

type FilesListResult = ResultOf<'files.list'>

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * One page of a directory. The first request scans and sorts the whole directory into a snapshot;
 * later pages are served from that snapshot only while the directory's version is unchanged, so a
 * page never mixes entries from two scans.
 */
export async function listDirectory(
  listing: DirectoryListing,
  projectId: string,
  roots: ProjectRoots,
  request: { path: string; cursor?: string | undefined },
): Promise<Outcome<FilesListResult>> {
  const resolved = await resolveForRead(roots, request.path)
  if (resolved.kind === 'error') return resolved
  const { real, stats } = resolved.result
  if (!stats.isDirectory()) {
    return fail('INVALID_REQUEST', `"${request.path}" is a file, not a folder.`, { path: request.path })
  }
  const basis = await directoryVersion(real)
  const query = JSON.stringify({ path: request.path, sort: 'dirs-first-name' })

  if (request.cursor !== undefined) {
    const claims = listing.signer.open(request.cursor)
    const stale = (why: string) =>
      fail('STALE_SNAPSHOT', 'The folder listing is out of date; reload it from the first page.', {
        path: request.path,
        why,
      })
    if (!claims) return stale('unrecognised-cursor')
    if (claims.query_kind !== 'directory' || claims.project_id !== projectId || claims.query !== query) {
      return stale('cursor-for-another-query')
    }
    if (claims.basis !== basis) return stale('directory-changed')
    const snapshot = listing.snapshots.get(claims.snapshot_id)
    if (!snapshot || snapshot.basis !== basis) return stale('snapshot-expired')
    return ok(page(listing, projectId, query, request.path, snapshot.snapshot_id, basis, snapshot.items, claims.offset))
  }

  const entries = await scanDirectory(real, request.path, roots)
  const snapshot = listing.snapshots.put(basis, entries)
  return ok(page(listing, projectId, query, request.path, snapshot.snapshot_id, basis, entries, 0))
}

function page(
  listing: DirectoryListing,
  projectId: string,
  query: string,
  path: string,
  snapshotId: string,
  basis: string,
  items: readonly DirEntry[],
  offset: number,
): FilesListResult {
  const end = Math.min(items.length, offset + DIRECTORY_PAGE_SIZE)
  const next =
    end < items.length
      ? listing.signer.sign({
          query_kind: 'directory',
          snapshot_id: snapshotId,
          project_id: projectId,
          basis,
          query,
          offset: end,
        })
      : null
  return {
    path,
    entries: items.slice(offset, end),
    next_cursor: next,
    total: items.length,
    page_size: DIRECTORY_PAGE_SIZE,
  }
}

/** Changes whenever an entry is added, removed or renamed in the directory itself. */
async function directoryVersion(real: string): Promise<string> {
  const s = await stat(real, { bigint: true })
  return `${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`
}

async function scanDirectory(real: string, relDir: string, roots: ProjectRoots): Promise<DirEntry[]> {
  const dirents = await readdir(real, { withFileTypes: true, encoding: 'buffer' })
  const entries: DirEntry[] = []
  await Promise.all(
    dirents.map(async (dirent) => {
      let name: string
      try {
        name = utf8.decode(dirent.name)
      } catch {
        // A name that is not UTF-8 cannot round-trip through the protocol's string paths; it is
        // left out rather than shown under a lossy name that would then address nothing.
        return
      }
      if (isForbiddenName(name)) return
      // The journal's in-flight temp files (renamed into place or removed within milliseconds).
      if (name.startsWith(JOURNAL_TEMP_PREFIX)) return
      const abs = join(real, name)
      if (isInside(roots.dataDir, abs)) return
      let info
      try {
        info = await lstat(abs)
      } catch {
        return // removed between readdir and lstat
      }
      entries.push({
        name,
        path: joinRelPath(relDir, name),
        kind: info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'dir' : 'file',
        size: info.isDirectory() ? 0 : info.size,
        mtime_ms: Math.trunc(info.mtimeMs),
      })
    }),
  )
  return sortEntries(entries)
}

/** Sorts by {@link compareKeyed}, computing each entry's folded key once rather than per comparison. */
function sortEntries(entries: DirEntry[]): DirEntry[] {
  const keyed = entries.map((entry) => ({ entry, folded: entry.name.normalize('NFC').toLowerCase() }))
  keyed.sort((a, b) => compareKeyed(a.entry, a.folded, b.entry, b.folded))
  return keyed.map((k) => k.entry)
}

/**
 * Folders first, then by name case-insensitively, with the exact code-unit order breaking ties so
 * the order is total and the same on every machine (no locale-dependent collation).
 */
function compareKeyed(a: DirEntry, foldedA: string, b: DirEntry, foldedB: string): number {
  const aDir = a.kind === 'dir' ? 0 : 1
  const bDir = b.kind === 'dir' ? 0 : 1
  if (aDir !== bDir) return aDir - bDir
  if (foldedA !== foldedB) return foldedA < foldedB ? -1 : 1
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}
