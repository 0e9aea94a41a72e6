import { fstatSync, statSync } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { joinRelPath } from '../../../shared/paths'
import { DIRECTORY_PAGE_SIZE, fail, ok, type DirEntry, type Outcome, type ResultOf } from '../../../shared/protocol'
import type { CursorSigner, SnapshotStore } from '../paging'
import { createLimiter } from '../platform'
import { isJournalTempName } from '../journal'
import type { OpenDir } from '../project-fs'
import { isForbiddenName, openForRead, type ProjectRoots } from './containment'

export interface DirectoryListing {
  readonly signer: CursorSigner
  readonly snapshots: SnapshotStore<DirEntry>
  /** Scans in flight by project, folder and version: concurrent first pages share one scan. */
  readonly scans: Map<string, Promise<DirEntry[]>>
  /** Bounds folder scans running at once (each holds a whole folder's entries in memory). */
  readonly scanLimit: <T>(task: () => Promise<T>) => Promise<T>
}

/** At most this many folder scans run at once; more wait (their clients see latency, not failure). */
const SCANS_AT_ONCE = 2
/** lstat calls in flight per scan: enough to overlap the thread pool, never one promise per entry. */
const STATS_IN_FLIGHT = 32

export function createDirectoryListing(signer: CursorSigner, snapshots: SnapshotStore<DirEntry>): DirectoryListing {
  return { signer, snapshots, scans: new Map(), scanLimit: createLimiter(SCANS_AT_ONCE) }
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
  const opened = await openForRead(roots, request.path)
  if (opened.kind === 'error') {
    if (opened.error.code !== 'UNSUPPORTED') return opened
    return fail('INVALID_REQUEST', `"${request.path}" is not a folder.`, { path: request.path, reason: 'not-a-folder' })
  }
  const target = opened.result
  try {
    if (target.kind !== 'directory') {
      return fail('INVALID_REQUEST', `"${request.path}" is a file, not a folder.`, {
        path: request.path,
        reason: 'not-a-folder',
      })
    }
    return await listOpened(listing, projectId, roots, request, target.dir)
  } finally {
    target.close()
  }
}

async function listOpened(
  listing: DirectoryListing,
  projectId: string,
  roots: ProjectRoots,
  request: { path: string; cursor?: string | undefined },
  dir: OpenDir,
): Promise<Outcome<FilesListResult>> {
  const basis = directoryVersion(dir)
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

  const scanKey = `${projectId}\u0000${request.path}\u0000${basis}`
  let scan = listing.scans.get(scanKey)
  if (!scan) {
    scan = listing.scanLimit(() => scanDirectory(dir, request.path, roots))
    listing.scans.set(scanKey, scan)
    void scan.finally(() => listing.scans.delete(scanKey)).catch(() => undefined)
  }
  const entries = await scan
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

/** The data directory is hidden wherever it appears in a project (matched by identity, not name). */
function dataDirIdentity(dataDir: string): { dev: bigint; ino: bigint } | undefined {
  try {
    const info = statSync(dataDir, { bigint: true })
    return { dev: info.dev, ino: info.ino }
  } catch {
    return undefined
  }
}

/** Changes whenever an entry is added, removed or renamed in the directory itself. */
function directoryVersion(dir: OpenDir): string {
  const s = fstatSync(dir.fd, { bigint: true })
  return `${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`
}

async function scanDirectory(dir: OpenDir, relDir: string, roots: ProjectRoots): Promise<DirEntry[]> {
  const dirents = await readdir(dir.self, { withFileTypes: true, encoding: 'buffer' })
  const entries: DirEntry[] = []
  const limit = createLimiter(STATS_IN_FLIGHT)
  const dataDir = dataDirIdentity(roots.dataDir)
  await Promise.all(
    dirents.map((dirent) =>
      limit(async () => {
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
        if (isJournalTempName(name)) return
        let info
        try {
          info = await lstat(dir.at(name), { bigint: true })
        } catch {
          return // removed between readdir and lstat
        }
        if (dataDir && info.dev === dataDir.dev && info.ino === dataDir.ino) return
        entries.push({
          name,
          path: joinRelPath(relDir, name),
          kind: info.isSymbolicLink() ? 'symlink' : info.isDirectory() ? 'dir' : 'file',
          size: info.isDirectory() ? 0 : Number(info.size),
          mtime_ms: Number(info.mtimeMs),
        })
      }),
    ),
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
