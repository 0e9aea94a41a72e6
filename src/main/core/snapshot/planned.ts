import { ok, type Outcome } from '../../../shared/protocol'
import type { SnapshotRuntime } from './runtime'
import { entriesAt, readBlobs } from './tree'
import type { PlannedFile, PlannedTarget, SnapshotState } from './types'

/** A path to put back: the snapshot its content comes from and the snapshot that shows what was left. */
export interface PlanItem {
  readonly path: string
  readonly source: string
  readonly leftFrom: string | null
}

/** Groups paths by snapshot so each tree is listed once. */
async function statesByTree(
  rt: SnapshotRuntime,
  pairs: ReadonlyArray<{ hash: string; path: string }>,
): Promise<Outcome<Map<string, Map<string, SnapshotState>>>> {
  const byHash = new Map<string, string[]>()
  for (const { hash, path } of pairs) {
    const list = byHash.get(hash)
    if (list) list.push(path)
    else byHash.set(hash, [path])
  }
  const result = new Map<string, Map<string, SnapshotState>>()
  for (const [hash, paths] of byHash) {
    const entries = await entriesAt(rt.shadow, hash, paths)
    if (entries.kind === 'error') return entries
    result.set(hash, entries.result)
  }
  return ok(result)
}

/**
 * Resolves what each path looked like in its source snapshot (absent → created later → the
 * restore deletes it) and loads the bytes of regular files within the size limit. Deletions come
 * first, deepest path first, then writes, shallowest first: a file ↔ folder swap clears the way
 * before it builds.
 */
export async function planFiles(rt: SnapshotRuntime, items: readonly PlanItem[]): Promise<Outcome<PlannedFile[]>> {
  const sources = await statesByTree(
    rt,
    items.map((item) => ({ hash: item.source, path: item.path })),
  )
  if (sources.kind === 'error') return sources
  const lefts = await statesByTree(
    rt,
    items.flatMap((item) => (item.leftFrom === null ? [] : [{ hash: item.leftFrom, path: item.path }])),
  )
  if (lefts.kind === 'error') return lefts
  const targets = items.map((item) => sources.result.get(item.source)?.get(item.path) ?? { kind: 'absent' as const })
  const blobs = await readBlobs(
    rt.shadow,
    targets.flatMap((t) => (t.kind === 'regular' ? [t.oid] : [])),
    rt.settings.maxFileBytes,
  )
  if (blobs.kind === 'error') return blobs
  const planned = items.map((item, index): PlannedFile => {
    const state = targets[index] ?? { kind: 'absent' as const }
    const target: PlannedTarget =
      state.kind === 'regular' ? { ...state, bytes: blobs.result.get(state.oid) ?? null } : state
    return {
      path: item.path,
      target,
      source: item.source,
      created: state.kind === 'absent',
      left: item.leftFrom === null ? null : (lefts.result.get(item.leftFrom)?.get(item.path) ?? { kind: 'absent' }),
    }
  })
  const depth = (path: string) => path.split('/').length
  return ok(
    planned.sort((a, b) => {
      const aDelete = a.target.kind === 'absent'
      const bDelete = b.target.kind === 'absent'
      if (aDelete !== bDelete) return aDelete ? -1 : 1
      const byDepth = aDelete ? depth(b.path) - depth(a.path) : depth(a.path) - depth(b.path)
      return byDepth !== 0 ? byDepth : a.path < b.path ? -1 : a.path > b.path ? 1 : 0
    }),
  )
}
