import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'

export interface Snapshot<Item> {
  readonly snapshot_id: string
  readonly basis: string
  readonly items: readonly Item[]
}

export interface SnapshotStore<Item> {
  put(basis: string, items: readonly Item[]): Snapshot<Item>
  get(snapshotId: string): Snapshot<Item> | undefined
}

/**
 * Computed lists kept server-side so that every page of one listing comes from the same scan.
 * Bounded by entry count (not snapshot count) so one huge directory cannot pin unbounded memory.
 */
export function createSnapshotStore<Item>(options: { maxItems: number; ttlMs: number }): SnapshotStore<Item> {
  const cache = new LRUCache<string, Snapshot<Item>>({
    maxSize: options.maxItems,
    sizeCalculation: (snapshot) => Math.max(1, snapshot.items.length),
    ttl: options.ttlMs,
    updateAgeOnGet: true,
  })
  return {
    put(basis, items) {
      const snapshot: Snapshot<Item> = { snapshot_id: `snp_${randomUUID()}`, basis, items }
      cache.set(snapshot.snapshot_id, snapshot)
      return snapshot
    },
    get(snapshotId) {
      return cache.get(snapshotId)
    },
  }
}
