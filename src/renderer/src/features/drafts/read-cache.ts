import { LRUCache } from 'lru-cache'

/** A complete, successful read of a file at one revision (spec 08 "Renderer read cache"). */
export type CachedRead =
  | { readonly kind: 'text'; readonly text: string; readonly revision: string; readonly size: number }
  | { readonly kind: 'binary'; readonly mime: string; readonly revision: string; readonly size: number }

export const READ_CACHE_ENTRIES = 64
export const READ_CACHE_BYTES = 16 * 1024 * 1024

/**
 * Recent reads, keyed by project + path + revision, at most 64 entries and 16 MiB (LRU). Only
 * complete reads go in; writes, renames, deletes and `files.changed` drop a path's entries. It is
 * never the editing state: drafts live in the draft store.
 */
export class ReadCache {
  private readonly cache = new LRUCache<string, CachedRead>({
    max: READ_CACHE_ENTRIES,
    maxSize: READ_CACHE_BYTES,
    // UTF-16 in memory: two bytes per code unit; a binary entry holds metadata only.
    sizeCalculation: (value) => (value.kind === 'text' ? Math.max(1, value.text.length * 2) : 64),
  })
  /** project + path → the revision last stored (the key of its current entry). */
  private readonly latest = new Map<string, string>()

  private static pathKey(projectId: string, path: string): string {
    return `${projectId}\u0000${path}`
  }

  get(projectId: string, path: string): CachedRead | undefined {
    const pathKey = ReadCache.pathKey(projectId, path)
    const revision = this.latest.get(pathKey)
    if (revision === undefined) return undefined
    const found = this.cache.get(`${pathKey}\u0000${revision}`)
    if (!found) this.latest.delete(pathKey)
    return found
  }

  set(projectId: string, path: string, read: CachedRead): void {
    if (read.kind === 'text' && read.text.length * 2 > READ_CACHE_BYTES) return
    const pathKey = ReadCache.pathKey(projectId, path)
    this.invalidate(projectId, path)
    this.latest.set(pathKey, read.revision)
    this.cache.set(`${pathKey}\u0000${read.revision}`, read)
  }

  invalidate(projectId: string, path: string): void {
    const pathKey = ReadCache.pathKey(projectId, path)
    const revision = this.latest.get(pathKey)
    if (revision !== undefined) this.cache.delete(`${pathKey}\u0000${revision}`)
    this.latest.delete(pathKey)
  }

  /** Everything of a project (a truncated `files.changed`, a root change). */
  invalidateProject(projectId: string): void {
    for (const pathKey of [...this.latest.keys()]) {
      if (pathKey.startsWith(`${projectId}\u0000`)) {
        this.cache.delete(`${pathKey}\u0000${this.latest.get(pathKey) ?? ''}`)
        this.latest.delete(pathKey)
      }
    }
  }

  get size(): number {
    return this.cache.size
  }

  get bytes(): number {
    return this.cache.calculatedSize
  }
}
