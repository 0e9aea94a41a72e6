import { openDB, type DBSchema, type IDBPDatabase } from 'idb'

/**
 * Durable local drafts (spec 08 "Drafts"): IndexedDB through `idb`, database
 * `retrace-file-drafts`, stores `drafts` and `project_index`. A draft is what the person typed (or
 * a binary editor exported) and has not yet been published; it survives reloads, crashes, tab
 * unmounts and project switches, and it never leaves this browser origin.
 *
 * Every create / update / rename / discard writes the draft and its project's aggregate in ONE
 * readwrite transaction; a write that would pass the quota (32 drafts or 8 MiB, UTF-8 bytes with
 * metadata, across all projects) is not committed. Dirty drafts are never evicted.
 */
export const DRAFTS_DATABASE = 'retrace-file-drafts'
export const MAX_DRAFTS = 32
export const MAX_DRAFT_BYTES = 8 * 1024 * 1024

export type DraftContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly mime: string }

/**
 * `dirty`: not yet published; `conflict`: the file changed underneath (the draft keeps its
 * original baseline); `failed`: the last publish failed for another reason (retryable).
 */
export type DraftState = 'dirty' | 'conflict' | 'failed'

export interface DraftRecord {
  /** `project_id` + NUL + canonical root-relative path. */
  readonly key: string
  readonly project_id: string
  readonly path: string
  readonly content: DraftContent
  /** The revision the edit started from (`null`: the file did not exist). */
  readonly baseline_revision: string | null
  readonly baseline_size: number
  readonly baseline_mtime: number | null
  readonly state: DraftState
  /** Monotonic per store: a later write always has a larger number. */
  readonly updated_at: number
  /** What this record counts against the quota (content + metadata, UTF-8). */
  readonly bytes: number
}

export type DraftInput = Omit<DraftRecord, 'key' | 'updated_at' | 'bytes'>

interface ProjectIndexRecord {
  readonly project_id: string
  readonly keys: string[]
  readonly count: number
  readonly bytes: number
}

interface DraftSchema extends DBSchema {
  drafts: { key: string; value: DraftRecord; indexes: { by_project: string } }
  project_index: { key: string; value: ProjectIndexRecord }
}

export type DraftWrite =
  | { kind: 'ok'; record: DraftRecord }
  /** Over 32 drafts or 8 MiB: nothing was written; the previous draft (if any) stands. */
  | { kind: 'quota'; count: number; bytes: number; needed: number }
  /** The browser refused (QuotaExceededError or another storage error): the last persisted version stands. */
  | { kind: 'storage-error'; name: string; message: string }

export interface DraftUsage {
  readonly count: number
  readonly bytes: number
}

export interface DraftStore {
  get(projectId: string, path: string): Promise<DraftRecord | undefined>
  put(input: DraftInput): Promise<DraftWrite>
  /** Discards a draft (a publish that made it clean, or the person's explicit choice). */
  discard(
    projectId: string,
    path: string,
    onlyIfUpdatedAt?: number,
  ): Promise<{ kind: 'ok' } | { kind: 'storage-error'; message: string }>
  /** A successful rename moves the draft to the new key in one transaction. */
  rename(
    projectId: string,
    from: string,
    to: string,
  ): Promise<{ kind: 'ok' } | { kind: 'storage-error'; message: string }>
  /** A project's drafts from its index, rebuilt by scanning if the index is missing or wrong. */
  list(projectId: string): Promise<DraftRecord[]>
  usage(): Promise<DraftUsage>
  close(): void
}

const encoder = new TextEncoder()

export function draftKey(projectId: string, path: string): string {
  return `${projectId}\u0000${path}`
}

/** UTF-8 bytes of the content plus the metadata stored with it. */
export function draftBytes(input: DraftInput): number {
  const content = input.content.kind === 'text' ? encoder.encode(input.content.text).length : input.content.bytes.length
  const metadata = encoder.encode(
    JSON.stringify({
      project_id: input.project_id,
      path: input.path,
      baseline_revision: input.baseline_revision,
      baseline_size: input.baseline_size,
      baseline_mtime: input.baseline_mtime,
      state: input.state,
      kind: input.content.kind,
      mime: input.content.kind === 'bytes' ? input.content.mime : undefined,
      updated_at: Number.MAX_SAFE_INTEGER,
    }),
  ).length
  return content + metadata
}

export async function openDraftStore(
  options: { name?: string; limits?: { maxDrafts: number; maxBytes: number } } = {},
): Promise<DraftStore> {
  const limits = options.limits ?? { maxDrafts: MAX_DRAFTS, maxBytes: MAX_DRAFT_BYTES }
  const db: IDBPDatabase<DraftSchema> = await openDB<DraftSchema>(options.name ?? DRAFTS_DATABASE, 1, {
    upgrade(database) {
      const drafts = database.createObjectStore('drafts', { keyPath: 'key' })
      drafts.createIndex('by_project', 'project_id')
      database.createObjectStore('project_index', { keyPath: 'project_id' })
    },
  })
  // Monotonic across reloads: continues from the newest stored draft, never behind the clock.
  let clock = 0
  {
    const all = await db.getAll('drafts')
    for (const record of all) clock = Math.max(clock, record.updated_at)
  }
  const tick = () => (clock = Math.max(clock + 1, Date.now()))

  const storageError = (error: unknown) => ({
    kind: 'storage-error' as const,
    name: error instanceof Error || error instanceof DOMException ? error.name : 'Error',
    message: error instanceof Error || error instanceof DOMException ? error.message : String(error),
  })

  return {
    async get(projectId, path) {
      return db.get('drafts', draftKey(projectId, path))
    },

    async put(input) {
      const key = draftKey(input.project_id, input.path)
      const bytes = draftBytes(input)
      try {
        const tx = db.transaction(['drafts', 'project_index'], 'readwrite')
        const drafts = tx.objectStore('drafts')
        const index = tx.objectStore('project_index')
        const [previous, projects] = await Promise.all([drafts.get(key), index.getAll()])
        const totalCount = projects.reduce((n, p) => n + p.count, 0)
        const totalBytes = projects.reduce((n, p) => n + p.bytes, 0)
        const count = totalCount + (previous ? 0 : 1)
        const after = totalBytes - (previous?.bytes ?? 0) + bytes
        if (count > limits.maxDrafts || after > limits.maxBytes) {
          tx.abort()
          await tx.done.catch(() => undefined)
          return { kind: 'quota', count: totalCount, bytes: totalBytes, needed: bytes }
        }
        const record: DraftRecord = { ...input, key, bytes, updated_at: tick() }
        const own = projects.find((p) => p.project_id === input.project_id)
        const keys = own ? (own.keys.includes(key) ? own.keys : [...own.keys, key]) : [key]
        await drafts.put(record)
        await index.put({
          project_id: input.project_id,
          keys,
          count: keys.length,
          bytes: (own?.bytes ?? 0) - (previous?.bytes ?? 0) + bytes,
        })
        await tx.done
        return { kind: 'ok', record }
      } catch (error) {
        return storageError(error)
      }
    },

    async discard(projectId, path, onlyIfUpdatedAt) {
      const key = draftKey(projectId, path)
      try {
        const tx = db.transaction(['drafts', 'project_index'], 'readwrite')
        const previous = await tx.objectStore('drafts').get(key)
        // A publish that answers after the person typed more must not drop the newer draft.
        if (!previous || (onlyIfUpdatedAt !== undefined && previous.updated_at !== onlyIfUpdatedAt)) {
          await tx.done
          return { kind: 'ok' }
        }
        await tx.objectStore('drafts').delete(key)
        const own = await tx.objectStore('project_index').get(projectId)
        if (own) {
          const keys = own.keys.filter((k) => k !== key)
          await tx.objectStore('project_index').put({
            project_id: projectId,
            keys,
            count: keys.length,
            bytes: Math.max(0, own.bytes - previous.bytes),
          })
        }
        await tx.done
        return { kind: 'ok' }
      } catch (error) {
        return storageError(error)
      }
    },

    async rename(projectId, from, to) {
      const fromKey = draftKey(projectId, from)
      const toKey = draftKey(projectId, to)
      try {
        const tx = db.transaction(['drafts', 'project_index'], 'readwrite')
        const drafts = tx.objectStore('drafts')
        const previous = await drafts.get(fromKey)
        if (!previous) {
          await tx.done
          return { kind: 'ok' }
        }
        const moved: DraftRecord = { ...previous, key: toKey, path: to, updated_at: tick() }
        await drafts.delete(fromKey)
        await drafts.put(moved)
        const own = await tx.objectStore('project_index').get(projectId)
        const keys = [...(own?.keys ?? []).filter((k) => k !== fromKey && k !== toKey), toKey]
        await tx.objectStore('project_index').put({
          project_id: projectId,
          keys,
          count: keys.length,
          bytes: (own?.bytes ?? previous.bytes) - previous.bytes + moved.bytes,
        })
        await tx.done
        return { kind: 'ok' }
      } catch (error) {
        return storageError(error)
      }
    },

    async list(projectId) {
      const tx = db.transaction(['drafts', 'project_index'], 'readwrite')
      const own = await tx.objectStore('project_index').get(projectId)
      if (own) {
        const records = await Promise.all(own.keys.map((key) => tx.objectStore('drafts').get(key)))
        const consistent =
          records.every((r) => r !== undefined) &&
          own.count === own.keys.length &&
          own.bytes === records.reduce((n, r) => n + (r?.bytes ?? 0), 0)
        const scanned = await tx.objectStore('drafts').index('by_project').count(projectId)
        if (consistent && scanned === own.keys.length) {
          await tx.done
          return records as DraftRecord[]
        }
      }
      // Missing or inconsistent: rebuild from the drafts themselves; never delete a record.
      const found = await tx.objectStore('drafts').index('by_project').getAll(projectId)
      await tx.objectStore('project_index').put({
        project_id: projectId,
        keys: found.map((r) => r.key),
        count: found.length,
        bytes: found.reduce((n, r) => n + r.bytes, 0),
      })
      await tx.done
      return found
    },

    async usage() {
      const projects = await db.getAll('project_index')
      return {
        count: projects.reduce((n, p) => n + p.count, 0),
        bytes: projects.reduce((n, p) => n + p.bytes, 0),
      }
    },

    close() {
      db.close()
    },
  }
}
