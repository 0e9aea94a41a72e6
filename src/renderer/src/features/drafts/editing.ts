import type { RequestClient } from '../../transport'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import { createStore, type Store } from '../../ui/store'
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

/** Marks a path dirty (or clean) for the tabs' dots (each working copy reports its state here). */
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

/** What rename, delete and History need of any open editor of a path: publish now, or forget. */
export interface EditorHandle {
  /** Publishes what is unpublished and waits; true when nothing is left. */
  flush(): Promise<boolean>
  /** Forgets the unpublished changes (the person chose to). */
  discard(): Promise<void>
  /** The file is going away under this name (a rename): publishes, then lets the editor go. */
  close(): Promise<boolean>
}

// The open documents' working copies (features/documents) register here, so the explorer waits for
// them without knowing what kind of editor holds a path.
const editors = new Map<string, EditorHandle>()

/** An editor opened on a path; the returned function unregisters it (when it is disposed). */
export function registerEditor(projectId: string, path: string, handle: EditorHandle): () => void {
  const id = key(projectId, path)
  editors.set(id, handle)
  return () => {
    if (editors.get(id) === handle) editors.delete(id)
  }
}

/** The open editor of a path, if any (rename, delete and History ask it to publish first). */
export function openEditor(projectId: string, path: string): EditorHandle | undefined {
  return editors.get(key(projectId, path))
}

/** A rename: the final publish runs now; the draft stays durable if it fails. */
export async function closeEditor(projectId: string, path: string): Promise<boolean> {
  return (await editors.get(key(projectId, path))?.close()) ?? true
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
