import type { RequestClient } from '../../transport'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import { createStore, type Store } from '../../ui/store'
import { createAutosave, type Autosave } from './autosave'
import { openDraftStore, type DraftStore } from './draft-store'
import { ReadCache } from './read-cache'

let opened: Promise<DraftStore> | undefined

/** The page's one draft store (opened on first use). */
export function draftStore(): Promise<DraftStore> {
  opened ??= openDraftStore()
  return opened
}

/** The renderer's read cache (spec 08): one per page, keyed by project, path and revision. */
export const readCache = new ReadCache()

const editors = new Map<string, Autosave>()
const dirtyStores = new Map<string, Store<ReadonlySet<string>>>()

/** Paths of a project with unpublished changes: the tabs' dirty dots. */
export function dirtyPathsOf(projectId: string): Store<ReadonlySet<string>> {
  let store = dirtyStores.get(projectId)
  if (!store) {
    store = createStore<ReadonlySet<string>>(new Set())
    dirtyStores.set(projectId, store)
  }
  return store
}

/** Marks a path dirty (or clean) for the tabs' dots: byte editors report through this too. */
export function markDirty(projectId: string, path: string, dirty: boolean): void {
  dirtyPathsOf(projectId).set((current) => {
    if (current.has(path) === dirty) return current
    const next = new Set(current)
    if (dirty) next.add(path)
    else next.delete(path)
    return next
  })
}

const key = (projectId: string, path: string) => `${projectId}\u0000${path}`

/**
 * The autosave of one open document, kept outside React: switching tabs or re-mounting the view
 * never loses it (or its pending publish). Created from the baseline the tab read.
 */
export async function editorFor(
  client: RequestClient,
  projectId: string,
  path: string,
  baseline: { revision: string | null; size: number },
): Promise<Autosave> {
  const existing = editors.get(key(projectId, path))
  if (existing) return existing
  const store = await draftStore()
  const again = editors.get(key(projectId, path))
  if (again) return again
  const autosave = createAutosave({
    store,
    projectId,
    path,
    baseline,
    publish: async (payload, idempotencyKey) => {
      const outcome = await client.request('files.write', payload, {
        owner: { project_id: projectId },
        idempotencyKey,
      })
      if (outcome.kind === 'ok') readCache.invalidate(projectId, path)
      return outcome
    },
  })
  autosave.subscribe(() => markDirty(projectId, path, autosave.getState().dirty))
  editors.set(key(projectId, path), autosave)
  return autosave
}

/** What rename, delete and History need of any open editor of a path: publish now, or forget. */
export interface EditorHandle {
  /** Publishes what is unpublished and waits; true when nothing is left. */
  flush(): Promise<boolean>
  /** Forgets the unpublished changes (the person chose to). */
  discard(): Promise<void>
}

// Editors that export whole files as bytes (PDF annotations, images, Office documents) keep their
// own autosave beside their view; they register here so the explorer waits for them the same way.
const byteEditors = new Map<string, EditorHandle>()

/** A byte editor opened on a path; the returned function unregisters it (when its view closes). */
export function registerByteEditor(projectId: string, path: string, handle: EditorHandle): () => void {
  const id = key(projectId, path)
  byteEditors.set(id, handle)
  return () => {
    if (byteEditors.get(id) === handle) byteEditors.delete(id)
  }
}

/** The open editor of a path, if any (rename, delete and History ask it to publish first). */
export function openEditor(projectId: string, path: string): EditorHandle | undefined {
  return editors.get(key(projectId, path)) ?? byteEditors.get(key(projectId, path))
}

/** Closing a tab: the final publish runs now; the draft stays durable if it fails. */
export async function closeEditor(projectId: string, path: string): Promise<boolean> {
  const autosave = editors.get(key(projectId, path))
  if (!autosave) return (await byteEditors.get(key(projectId, path))?.flush()) ?? true
  const clean = await autosave.flush()
  if (clean) {
    autosave.dispose()
    editors.delete(key(projectId, path))
    markDirty(projectId, path, false)
  }
  return clean
}

/** Drops cached reads of paths the engine says changed (writes, renames, deletes, the watcher). */
export function watchReadCache(client: RequestClient, projectId: string): () => void {
  return onProjectEvent(client, projectId, (frame) => {
    const paths = changedPaths(frame)
    if (paths === null) return
    if (paths === 'all') readCache.invalidateProject(projectId)
    else for (const path of paths) readCache.invalidate(projectId, path)
  })
}
